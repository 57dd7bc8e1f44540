"""Three fine-tuning seeds of the check-worthiness encoder, averaged, against the one that ships.

``python -m icarus_training.checkworthy_seeds --data ../shared/datasets --cache .checkworthy-oof.json``
(``make train-checkworthy-seeds``; needs the ``train`` extra). Fine-tuning on a set where 1 line in 37
is chosen is noisy: the same settings with another seed rank differently. Averaging seeds is the usual
cure; averaging their *weights* (a uniform "soup" of models fine-tuned from the same base) keeps one
model to run, where averaging their *outputs* costs a run per seed.

The rule, written down before any figure of these candidates was read (after ``checkworthy@2`` shipped
and its dev figures were read once; this rule reads out-of-fold figures only):

1. The folds, settings and out-of-fold protocol are ``checkworthy_minilm``'s, for its ``minilm``
   candidate. In each fold the encoder is fine-tuned with ``SEEDS`` seeds: the fold's own seed (the one
   ``minilm`` used) and ``SEED_STEP`` and twice that past it.
2. Candidates: ``minilm-soup``, one model whose every weight is the mean of the seeds' weights;
   ``minilm-seeds``, the mean of the seeds' log-odds.
3. ``minilm-soup`` replaces ``minilm`` only if its out-of-fold MAP is higher by ``MIN_GAIN`` or more and
   it ranks more than half of the 15 transcripts better. ``minilm-seeds`` runs the encoder ``SEEDS``
   times a sentence and ships ``SEEDS`` times the weights, so it replaces the choice only with
   ``SEEDS_GAIN`` more MAP than it, on the same majority.
4. The bar is the chosen candidate's out-of-fold 85th percentile (``FLAGGED_BUDGET``), as before; the
   shipped model is the same recipe fitted on all 15 transcripts.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
from rich.console import Console

from icarus.evaluation.checkthat import Transcript, average_precision
from icarus_training.checkworthy_context import wins
from icarus_training.checkworthy_minilm import (
    MIN_GAIN,
    SEED,
    Ranking,
    _examples,
    _fine_tune,
    _torch_log_odds,
)

__all__ = ["CANDIDATES", "SEEDS", "SEEDS_GAIN", "SEED_STEP", "choose", "main", "soup"]

SCRIPT_VERSION: Final = "train-checkworthy-seeds@1"
SEEDS: Final = 3
SEED_STEP: Final = 7919
SEEDS_GAIN: Final = 2 * MIN_GAIN
CANDIDATES: Final = ("minilm-soup", "minilm-seeds")
_INCUMBENT: Final = "minilm"


def soup(models: Sequence[Any]) -> Any:
    """The first model with every floating-point weight replaced by the mean over ``models``."""
    states = [model.state_dict() for model in models]
    merged = {
        key: (sum(state[key] for state in states) / len(states)) if value.is_floating_point() else value
        for key, value in states[0].items()
    }
    models[0].load_state_dict(merged)
    return models[0]


def seed_models(
    transcripts: Sequence[Transcript], console: Console, first_seed: int
) -> tuple[list[Any], Any]:
    """The encoder fine-tuned on ``transcripts`` with each of the rule's seeds, and its tokenizer reader."""
    examples, labels = _examples(transcripts, False)
    models, encoder = [], None
    for k in range(SEEDS):
        model, encoder = _fine_tune(examples, labels, console, first_seed + k * SEED_STEP)
        models.append(model)
    return models, encoder


def _fold_scorer(
    console: Console,
) -> Callable[[list[Transcript], list[Transcript], int], dict[str, list[float]]]:
    def score(train: list[Transcript], held: list[Transcript], fold: int) -> dict[str, list[float]]:
        models, encoder = seed_models(train, console, SEED + 1000 * fold)
        examples = _examples(held, False)[0]
        each = np.asarray([_torch_log_odds(model, encoder, examples) for model in models])
        return {
            "minilm-seeds": [float(v) for v in each.mean(axis=0)],
            "minilm-soup": _torch_log_odds(soup(models), encoder, examples),
        }

    return score


def choose(rankings: dict[str, dict[str, Ranking]]) -> str:
    """Rule 3 over the out-of-fold rankings by transcript name (``minilm`` is the incumbent)."""

    def gains(challenger: str, incumbent: str) -> list[float]:
        names = sorted(rankings[incumbent])
        return [
            average_precision(*rankings[challenger][n]) - average_precision(*rankings[incumbent][n])
            for n in names
        ]

    chosen = _INCUMBENT
    if "minilm-soup" in rankings and wins(gains("minilm-soup", chosen)):
        chosen = "minilm-soup"
    if "minilm-seeds" in rankings and wins(gains("minilm-seeds", chosen), SEEDS_GAIN):
        chosen = "minilm-seeds"
    return chosen


def run(datasets: Path, cache: Path, console: Console) -> dict[str, Any]:
    """Rules 1–4: the challengers' out-of-fold figures beside the incumbent's, and the choice."""
    from icarus_training.checkworthy import _figures
    from icarus_training.checkworthy_minilm import _bar, _out_of_fold, _save_oof, folds, run_cv

    cv = run_cv(datasets, [_INCUMBENT], console, cache)
    oof: dict[str, dict[str, Ranking]] = cv["oof"]
    if not all(name in oof for name in CANDIDATES):
        from icarus.evaluation.checkthat import Part, load_transcripts, part_of

        transcripts = load_transcripts(datasets)
        parts = part_of(t.name for t in transcripts)
        pool = [t for t in transcripts if parts[t.name] is not Part.DEV]
        scorer = _fold_scorer(console)
        joint: dict[int, dict[str, list[float]]] = {}

        def one(name: str) -> Callable[[list[Transcript], list[Transcript], int], list[float]]:
            def score(train: list[Transcript], held: list[Transcript], fold: int) -> list[float]:
                if fold not in joint:
                    joint[fold] = scorer(train, held, fold)
                return joint[fold][name]

            return score

        pool_folds = folds(pool)
        for name in CANDIDATES:
            oof[name] = _out_of_fold(pool_folds, one(name))
        _save_oof(cache, oof)
    order = sorted(oof[_INCUMBENT])
    figures = {}
    for name in (_INCUMBENT, *CANDIDATES):
        ranked = [oof[name][t] for t in order]
        figures[name] = _figures(ranked, _bar(ranked))
        console.print(f"{name}: MAP {figures[name]['map']}, recall at the bar {figures[name]['recall']}")
    chosen = choose({name: oof[name] for name in (_INCUMBENT, *CANDIDATES)})
    return {"candidates": figures, "chosen": chosen, "script": SCRIPT_VERSION}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m icarus_training.checkworthy_seeds", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--cache", type=Path, required=True, help="out-of-fold scores, kept between runs")
    args = parser.parse_args(argv)
    console = Console()
    record = run(args.data, args.cache, console)
    console.print_json(json.dumps({"chosen": record["chosen"]}))
    return record


if __name__ == "__main__":
    main()
