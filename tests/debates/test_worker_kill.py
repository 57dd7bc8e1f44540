"""A worker killed (SIGKILL) in the middle of a panel: after its lease runs out another worker researches the
panel, which is answered exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from icarus.debates.model import DebateSettings, ResearchMode, Verdict
from icarus.debates.service import DebatePipeline, DebateService, ServiceConfig
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.debate_tables import DebatePanelRecord, PanelState
from tests.debates.store_fixtures import OPERATOR, ScriptedResearch, segment, sentence_claims

LEASE_S = 2.0
STARTUP_LIMIT_S = 30.0
REPO_ROOT = Path(__file__).parents[2]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


def wait_for(path: Path, process: subprocess.Popen[str], limit_s: float) -> None:
    deadline = time.monotonic() + limit_s
    while not path.exists():
        if process.poll() is not None:
            raise AssertionError(f"the worker exited early: {process.communicate()}")
        if time.monotonic() > deadline:
            raise AssertionError("the worker never began its research")
        time.sleep(0.05)


def test_a_worker_killed_mid_panel_leaves_it_to_another_once_its_lease_runs_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database_url = f"sqlite:///{tmp_path / 'icarus.db'}"
    monkeypatch.setenv("ICARUS_DEBATE_PANEL_LEASE_S", str(LEASE_S))
    store = Store(database_url).open()
    research = ScriptedResearch(default=Verdict.TRUE)
    service = DebateService(
        store,
        DebatePipeline(detect=sentence_claims, research=research),
        config=ServiceConfig.from_settings(Settings()),
    )
    assert service.config.panel_lease.total_seconds() == LEASE_S
    try:
        debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[ResearchMode.TWO_STEP]))
        service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent in 2024.")])
        [claim] = service.list_claims(OPERATOR, debate.id)
        [panel] = service.claim_results(OPERATOR, claim.claim_id).panels
        marker = tmp_path / "researching"
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.debates.slow_worker",
                database_url,
                str(panel.panel_id),
                str(marker),
            ],
            cwd=REPO_ROOT,
            env={**os.environ, "ICARUS_DEBATE_PANEL_LEASE_S": str(LEASE_S)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            wait_for(marker, worker, STARTUP_LIMIT_S)
            worker.send_signal(signal.SIGKILL)
            assert worker.wait(timeout=10) == -signal.SIGKILL
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait(timeout=10)
        with store.reading() as session:
            held = session.get(DebatePanelRecord, panel.panel_id)
            assert held is not None and held.state == PanelState.RUNNING.value and held.attempts == 1
        assert service.research_panel(panel.panel_id).startswith("not runnable")  # the lease still holds
        time.sleep(LEASE_S + 0.2)
        assert service.run_due() == 1  # the dispatcher's sweep finds the abandoned panel
        assert service.research_panel(panel.panel_id).startswith("not runnable")  # answered: never again
        assert service.run_due() == 0
        results = service.claim_results(OPERATOR, claim.claim_id)
        [done] = results.panels
        assert (done.state, done.verdict, done.attempts) == (PanelState.DONE, Verdict.TRUE, 2)
        assert results.claim_verdict is not None and results.claim_verdict.verdict is Verdict.TRUE
        assert len(research.calls) == 1
        events = service.events_after(OPERATOR, debate.id, 0, 1000)
        answered = [e for e in events if e.kind == "panel" and e.data["panel"]["state"] == "done"]
        assert len(answered) == 1  # announced answered once
        assert [e.kind for e in events].count("claim_verdict") == 1
    finally:
        store.close()
