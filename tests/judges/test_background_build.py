"""``JudgeInBackground``: the configured judge, built on a second thread, or the error building it raised."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

import icarus.judges.background as background
import icarus.pipeline.cli
from icarus.cli import app
from icarus.judges.background import JudgeInBackground
from icarus.judges.protocol import Judge
from icarus.judges.registry import JudgeConfigError, create_judge
from icarus.settings import Settings

ROOT = Path(__file__).parents[2]


def test_it_gives_the_judge_built_on_another_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    built_on: list[str] = []
    judge = create_judge("offline-lexical@1")

    def build(settings: Settings) -> Judge:
        built_on.append(threading.current_thread().name)
        return judge

    monkeypatch.setattr(background, "judge_from_settings", build)
    assert JudgeInBackground(Settings()).result() is judge
    assert len(built_on) == 1
    assert built_on[0] != threading.current_thread().name
    assert built_on[0].startswith("judge-build")


def test_a_judge_that_cannot_be_built_raises_in_the_caller() -> None:
    pending = JudgeInBackground(Settings(offline_judge="offline-nothing@9"))
    with pytest.raises(JudgeConfigError, match="offline-nothing@9"):
        pending.result()


def test_the_check_command_hands_the_pipeline_the_judge_it_started(monkeypatch: pytest.MonkeyPatch) -> None:
    handed: dict[str, object] = {}

    def run(*arguments: object, **options: object) -> None:
        handed.update(options)

    monkeypatch.setattr(icarus.pipeline.cli, "run_check_command", run)
    result = CliRunner().invoke(app, ["check", "A sentence to check."])
    assert result.exit_code == 0, result.output
    judge = handed["judge"]
    assert callable(judge)
    assert isinstance(getattr(judge, "__self__", None), JudgeInBackground)
    settings = handed["settings"]
    assert isinstance(settings, Settings)
    built = judge()
    assert getattr(built, "provenance", None) == getattr(
        create_judge(settings.offline_judge), "provenance", None
    )


def test_the_default_judge_is_the_one_the_settings_name() -> None:
    settings = Settings()
    judge = JudgeInBackground(settings).result()
    expected = create_judge(settings.offline_judge, settings)
    assert type(judge) is type(expected)
    assert getattr(judge, "provenance", None) == getattr(expected, "provenance", None)


# Imported on the build thread (the LLM judge's module, for its client's second of import time); it brings
# no other module of ours with it, which the test below also holds.
BUILT_ON_DEMAND = ["icarus.judges.llm"]


def test_building_any_registered_judge_imports_nothing_of_ours_not_yet_imported() -> None:
    # What the second thread may import safely (module docstring): run in a fresh interpreter, so that
    # what an earlier test imported does not hide a new import.
    probe = (
        "import json, sys\n"
        "import icarus.judges.background\n"
        "from icarus.judges.registry import JUDGES, create_judge\n"
        "from icarus.settings import Settings\n"
        "settings = Settings(llm_base_url='http://127.0.0.1:9/v1', llm_model='m')\n"
        "before = {m for m in sys.modules if m == 'icarus' or m.startswith('icarus.')}\n"
        "for name in sorted(JUDGES):\n"
        "    create_judge(name, settings)\n"
        "after = {m for m in sys.modules if m == 'icarus' or m.startswith('icarus.')}\n"
        "print(json.dumps(sorted(after - before)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT, timeout=300
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == BUILT_ON_DEMAND
