"""The command line pauses the cyclic garbage collector while a command loads and while a check runs, and
leaves it as it found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import icarus.pipeline.cli
from icarus.cli import app
from icarus.commands.collector import collection_paused


@pytest.fixture
def collector_on() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    if not was_enabled:
        gc.disable()


def test_the_pause_nests_and_restores(collector_on: None) -> None:
    with collection_paused():
        assert not gc.isenabled()
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_pause_started_with_the_collector_off_leaves_it_off(collector_on: None) -> None:
    gc.disable()
    with collection_paused():
        pass
    assert not gc.isenabled()


def test_a_check_runs_paused_and_restores_the_collector(
    collector_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []

    def run(text: str | None, post: Path | None, *rest: object) -> None:
        seen.append(gc.isenabled())
        raise RuntimeError("stop here")

    monkeypatch.setattr(icarus.pipeline.cli, "run_check_command", run)
    result = CliRunner().invoke(app, ["check", "A sentence to check."])
    assert isinstance(result.exception, RuntimeError)
    assert seen == [False]
    assert gc.isenabled()


def test_what_the_pause_built_is_frozen(collector_on: None) -> None:
    before = gc.get_freeze_count()
    with collection_paused():
        kept = [[n] for n in range(1000)]
    assert gc.get_freeze_count() >= before + len(kept)
