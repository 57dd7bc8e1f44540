"""The command line pauses the cyclic garbage collector while a command loads and while a check runs, and
leaves it as it found it; it lets OpenBLAS's idle threads sleep soon."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
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

    def run(text: str | None, post: Path | None, *rest: object, **options: object) -> None:
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


@pytest.mark.parametrize(("given", "expected"), [(None, "4"), ("12", "12")])
def test_openblas_threads_sleep_soon_unless_told_otherwise(given: str | None, expected: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if given is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = given
    code = "import os, icarus.cli; print(os.environ['OPENBLAS_THREAD_TIMEOUT'])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.strip() == expected
