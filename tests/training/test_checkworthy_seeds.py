"""The seed-averaging rule: a soup averages weights (and only floating-point ones), and the output mean,
which costs a run per seed, needs the larger gain."""

from __future__ import annotations

import pytest

from icarus_training.checkworthy_minilm import MIN_GAIN
from icarus_training.checkworthy_seeds import SEEDS_GAIN, choose


def _ranking(ap: float) -> tuple[list[float], list[bool]]:
    # one chosen line at rank 1/ap: average precision exactly ap
    rank = round(1 / ap)
    return [float(-i) for i in range(rank)], [i == rank - 1 for i in range(rank)]


def _by_transcript(aps: list[float]) -> dict[str, tuple[list[float], list[bool]]]:
    return {f"t{k}": _ranking(ap) for k, ap in enumerate(aps)}


def test_the_soup_replaces_the_single_seed_on_the_gain_and_the_majority() -> None:
    incumbent = _by_transcript([0.25, 0.25, 0.25])
    assert choose({"minilm": incumbent, "minilm-soup": _by_transcript([0.5, 0.5, 0.25])}) == "minilm-soup"
    # a large gain on one transcript of three is not enough
    assert choose({"minilm": incumbent, "minilm-soup": _by_transcript([1.0, 0.25, 0.25])}) == "minilm"
    assert choose({"minilm": incumbent, "minilm-soup": incumbent}) == "minilm"


def test_the_output_mean_needs_the_larger_gain_over_the_choice() -> None:
    incumbent = _by_transcript([0.2, 0.2, 0.2, 0.2])
    soup = _by_transcript([0.25, 0.25, 0.25, 0.2])  # +0.0375 on three of four: the soup wins
    # against the soup, +0.0125 on average (more than MIN_GAIN, less than SEEDS_GAIN): the soup stays
    small = _by_transcript([0.25, 0.25, 0.25, 0.25])
    assert MIN_GAIN <= 0.0125 < SEEDS_GAIN
    assert choose({"minilm": incumbent, "minilm-soup": soup, "minilm-seeds": small}) == "minilm-soup"
    large = _by_transcript([0.5, 0.5, 0.5, 0.2])
    assert choose({"minilm": incumbent, "minilm-soup": soup, "minilm-seeds": large}) == "minilm-seeds"


def test_a_soup_is_the_mean_of_floating_weights_and_keeps_integer_buffers() -> None:
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    from icarus_training.checkworthy_seeds import soup

    models = []
    for value in (1.0, 2.0, 6.0):
        layer = torch.nn.Linear(2, 1)
        with torch.no_grad():
            layer.weight.fill_(value)
            layer.bias.fill_(-value)
        layer.register_buffer("steps", torch.tensor([int(value)]))
        models.append(layer)
    merged = soup(models)
    assert torch.allclose(merged.weight, torch.full((1, 2), 3.0))
    assert torch.allclose(merged.bias, torch.tensor([-3.0]))
    assert merged.steps.tolist() == [1]  # an integer buffer is the first model's, not a mean
