"""Text sent to `POST /v1/checks` gets its language identified: French gets no verdict (G0), English does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from icarus.api import create_app
from icarus.jobs.runner import JobRunner
from icarus.settings import Settings
from icarus.store.tokens import Role, TokenStore

FRENCH = "Le taux de chômage est tombé à 7,3 % au deuxième trimestre, son plus bas niveau depuis 2008."
ENGLISH = "Container traffic at Halden harbor fell 12% in October 2024, the port authority said."


@pytest.fixture
def client(runner: JobRunner, tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(Settings(data_dir=tmp_path), runner=runner, enqueue=lambda c, k: None)
    with TestClient(app) as test_client:
        yield test_client


def checked(client: TestClient, runner: JobRunner, text: str) -> tuple[dict[str, object], dict[str, object]]:
    issued = TokenStore(runner.store).create("language test", Role.API, runner.clock(), None)
    answer = client.post(
        "/v1/checks", json={"text": text}, headers={"Authorization": f"Bearer {issued.secret}"}
    )
    assert answer.status_code == 202, answer.text
    check_id = answer.json()["id"]
    runner.run(check_id, "first")
    report = client.get(f"/v1/checks/{check_id}/report").json()["result"]
    subject = client.get(f"/v1/checks/{check_id}/versions/1/ledger").json()["subject"]
    return report, subject


def test_french_text_is_recorded_as_french_and_gets_no_verdict(client: TestClient, runner: JobRunner) -> None:
    report, subject = checked(client, runner, FRENCH)
    assert (subject["language"], subject["language_source"]) == ("fr", "detected")
    assert float(subject["language_confidence"]) >= 0.7  # type: ignore[arg-type]
    assert report["claims"] == []
    assert [c["reason"] for c in report["not_assessed"]] == ["scope"]  # type: ignore[attr-defined]


def test_english_text_is_recorded_as_english_and_assessed(client: TestClient, runner: JobRunner) -> None:
    report, subject = checked(client, runner, ENGLISH)
    assert (subject["language"], subject["language_source"]) == ("en", "detected")
    assert report["claims"] and all(c["reason"] != "scope" for c in report["not_assessed"])  # type: ignore[attr-defined]
