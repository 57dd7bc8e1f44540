"""A check `icarus check` recorded straight into the store answers on every route the service's own do."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from icarus.api import create_app
from icarus.jobs.runner import JobRunner
from icarus.ledger import load_ledger
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.settings import Settings

FIXTURE = Path(__file__).parents[1] / "fixtures" / "two-independent-wires.json"


def test_a_check_recorded_by_the_cli_answers_on_every_route(runner: JobRunner, tmp_path: Path) -> None:
    ledger = load_ledger(FIXTURE)
    result = score_ledger(ledger, load_policy("icarus@1.1"))
    ref = runner.store.record_check(ledger.subject, ledger, result)  # what `icarus check` does
    app = create_app(Settings(data_dir=tmp_path), runner=runner, enqueue=lambda c, k: None)
    with TestClient(app) as client:
        status = client.get(f"/v1/checks/{ref.check_id}")
        assert status.status_code == 200, status.text
        assert status.json()["state"] == "recorded" and status.json()["latest_version"] == 1
        versions = client.get(f"/v1/checks/{ref.check_id}/versions")
        assert versions.status_code == 200 and [v["version"] for v in versions.json()] == [1]
        timeline = client.get(f"/v1/checks/{ref.check_id}/timeline")
        assert timeline.status_code == 200 and timeline.json()["runs"] == []
        assert client.get(f"/v1/checks/{ref.check_id}/events", params={"once": True}).status_code == 200
        assert client.get(f"/v1/checks/{ref.check_id}/report").status_code == 200
        page = client.get(f"/checks/{ref.check_id}")
        assert page.status_code == 200 and ref.check_id in page.text
        assert client.get("/v1/checks/0123456789abcdef").status_code == 404  # unknown still 404
