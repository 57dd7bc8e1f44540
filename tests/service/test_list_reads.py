"""Lists and pollers read status rows, never a ledger; headlines are short; page loads are rate limited."""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event, update

from icarus.api import create_app
from icarus.api.app import REFUSAL_PAUSE_S
from icarus.jobs.runner import JobRunner
from icarus.ledger import load_ledger
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.migrate import alembic_config
from icarus.store.service import ServiceStore
from icarus.store.tables import HEADLINE_CHARS, Check, RequestState, list_headline

FIXTURE = Path(__file__).parents[1] / "fixtures" / "two-independent-wires.json"
LONG_CLAIM = "The harbour bridge reopened after repairs " * 2500  # about 100,000 characters


def recorded_check(store: Store, claim_text: str | None = None) -> str:
    """A submitted check with one recorded version, written the way a worker writes it."""
    ledger = load_ledger(FIXTURE)
    result: dict[str, Any] = score_ledger(ledger, load_policy("icarus@1.1"))
    if claim_text is not None:
        result = copy.deepcopy(result)
        result["claims"][0]["text"] = claim_text
    check_id = f"c{len(ServiceStore(store).recent(1000)):04d}"
    now = datetime.now(UTC)
    ServiceStore(store).submit(check_id, "text", {"text": "x"}, policy=None, post_id=None, now=now)
    store.open_check(ledger.subject, check_id)
    store.record_check(ledger.subject, ledger, result, check_id=check_id, run_key="first")
    ServiceStore(store).set_state(check_id, RequestState.RECORDED, now)
    return check_id


@pytest.fixture
def statements(runner: JobRunner) -> Iterator[list[str]]:
    """Every SELECT the store runs while the test looks."""
    seen: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):  # not BEGIN/COMMIT bookkeeping
            seen.append(statement)

    engine: Engine = runner.store.engine
    event.listen(engine, "before_cursor_execute", note)
    yield seen
    event.remove(engine, "before_cursor_execute", note)


def app_for(runner: JobRunner, tmp_path: Path, **settings: Any) -> TestClient:
    app = create_app(Settings(data_dir=tmp_path, **settings), runner=runner, enqueue=lambda c, k: None)
    return TestClient(app)


def test_dashboard_list_and_poll_read_no_ledger_or_result(
    runner: JobRunner, tmp_path: Path, statements: list[str]
) -> None:
    check_id = recorded_check(runner.store)
    with app_for(runner, tmp_path) as client:
        statements.clear()
        dashboard = client.get("/")
        listed = client.get("/v1/checks", params={"limit": 200})
        polled = client.get(f"/v1/checks/{check_id}")
    assert dashboard.status_code == listed.status_code == polled.status_code == 200
    assert check_id in dashboard.text
    assert listed.json()["checks"][0]["label"] == polled.json()["label"] is not None
    assert polled.json()["latest_version"] == 1
    assert statements, "the listener saw no query"
    assert not [s for s in statements if "ledger_json" in s or "result_json" in s or "report_versions" in s]


def test_a_poll_is_one_query(runner: JobRunner, tmp_path: Path, statements: list[str]) -> None:
    check_id = recorded_check(runner.store)
    with app_for(runner, tmp_path) as client:
        client.get(f"/v1/checks/{check_id}")  # the token-free caller and the app are warm
        statements.clear()
        assert client.get(f"/v1/checks/{check_id}").status_code == 200
    assert len(statements) == 1


def test_the_dashboard_is_rendered_once_until_something_changes(
    runner: JobRunner, tmp_path: Path, statements: list[str]
) -> None:
    first = recorded_check(runner.store)
    with app_for(runner, tmp_path) as client:
        assert first in client.get("/").text
        statements.clear()
        for _ in range(5):
            assert client.get("/").status_code == 200
        assert len(statements) == 5  # the newest event id, once a load: no list, no render
        second = recorded_check(runner.store)
        assert second in client.get("/").text  # a new event: the next load shows it


def test_a_100k_character_claim_shows_a_short_headline(runner: JobRunner, tmp_path: Path) -> None:
    check_id = recorded_check(runner.store, LONG_CLAIM)
    with app_for(runner, tmp_path) as client:
        page = client.get("/")
    assert check_id in page.text
    assert "The harbour bridge reopened" in page.text
    assert len(page.content) < 20_000  # the whole dashboard, not a wall of text
    with runner.store.reading() as session:
        headline = session.get(Check, check_id).headline  # type: ignore[union-attr]
    assert headline is not None and len(headline) <= HEADLINE_CHARS and headline.endswith("\u2026")


def result_with(text: str) -> dict[str, Any]:
    return {"claims": [{"text": text}]}


def test_a_headline_of_exactly_the_limit_is_kept_whole() -> None:
    words = ("ab " * 100)[: HEADLINE_CHARS - 1] + "z"
    assert len(words) == HEADLINE_CHARS
    assert list_headline(result_with(words)) == words


def test_a_headline_one_over_the_limit_is_cut_at_a_word_with_an_ellipsis() -> None:
    words = "word " * (HEADLINE_CHARS // 5) + "x"  # HEADLINE_CHARS + 1 characters
    assert len(words) == HEADLINE_CHARS + 1
    cut = list_headline(result_with(words))
    assert cut is not None and len(cut) <= HEADLINE_CHARS
    assert cut.endswith("word\u2026")


def test_a_headline_is_one_line_and_a_single_huge_word_is_cut_where_it_stands() -> None:
    assert list_headline(result_with("two\n\nlines\t here")) == "two lines here"
    cut = list_headline(result_with("x" * 100_000))
    assert cut == "x" * (HEADLINE_CHARS - 1) + "\u2026"
    assert list_headline({"claims": []}) is None and list_headline({}) is None


MINUTE_MARGIN_S = 15.0


def test_page_loads_are_rate_limited_per_address_apart_from_the_api(
    runner: JobRunner, tmp_path: Path
) -> None:
    check_id = recorded_check(runner.store)
    # With Redis the counts are kept per wall-clock minute: start well inside one, so the four loads
    # below share a window (a boundary between them would reset the count and nothing would be refused).
    left_in_minute = 60.0 - time.time() % 60.0
    if left_in_minute < MINUTE_MARGIN_S:
        time.sleep(left_in_minute + 0.1)
    with app_for(runner, tmp_path, page_rate_anonymous=3) as client:
        assert [client.get(path).status_code for path in ("/", f"/checks/{check_id}", "/methodology")] == [
            200,
            200,
            200,
        ]
        began = time.monotonic()
        refused = client.get("/")
        assert time.monotonic() - began >= REFUSAL_PAUSE_S  # a client asking again at once is slowed
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["retry-after"]) <= 61
        assert client.get("/docs").status_code == 429  # every page, not only the dashboard
        assert client.get(f"/v1/checks/{check_id}").status_code == 200  # the API keeps its own count
        assert client.get("/healthz").status_code == 200
        assert client.get("/favicon.ico").status_code == 200


def test_the_migration_fills_the_list_columns_of_existing_checks(runner: JobRunner) -> None:
    check_id = recorded_check(runner.store, "A claim recorded before the list columns existed.")
    config = alembic_config()
    with runner.store.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0005_models_services")
    runner.store.open()  # upgrades again, filling the columns from each check's latest version
    row = ServiceStore(runner.store).check_row(check_id)
    assert row.latest_version == 1 and row.label is not None and row.band is not None
    assert row.as_of is not None and row.as_of.tzinfo is not None
    assert row.headline == "A claim recorded before the list columns existed."


def test_recording_a_version_updates_the_list_columns(runner: JobRunner) -> None:
    check_id = recorded_check(runner.store)
    with runner.store.engine.begin() as connection:
        connection.execute(update(Check).values(headline=None))  # as a check recorded before 0006
    ledger = load_ledger(FIXTURE)
    result = copy.deepcopy(score_ledger(ledger, load_policy("icarus@1.0")))
    runner.store.record_check(ledger.subject, ledger, result, reason="recheck", check_id=check_id)
    row = ServiceStore(runner.store).check_row(check_id)
    assert row.latest_version == 2 and row.headline == list_headline(result)
