"""Recording and reading report versions: numbering, append-only history, idempotency, lookups."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from threading import Barrier

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from icarus.ledger import Subject
from icarus.scoring.canonical import canonical_json
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.engine import score_ledger
from icarus.store import CheckStatus, NotFound, Reason, Store, StoreConflict, VersionRef
from icarus.store.tables import ReportVersion
from tests.store.conftest import Scored, rescored

SNAPSHOT = "sha256:" + "ab" * 32


def test_first_record_creates_check_and_version_1(store: Store, first: Scored) -> None:
    ledger, result = first
    ref = store.record_check(ledger.subject, ledger, result)
    assert ref == VersionRef(ref.check_id, 1, f"/checks/{ref.check_id}/versions/1", created=True)
    stored = store.latest(ref.check_id)
    assert stored == store.version(ref.check_id, 1)
    assert (stored.policy, stored.trace_hash, stored.ledger_hash) == (
        "icarus@1.1",
        result["trace_hash"],
        result["ledger_hash"],
    )
    assert (stored.label, stored.band) == (result["overall"]["label"], result["overall"]["band"])
    assert stored.as_of == ledger.as_of
    assert stored.reason is Reason.FIRST and stored.what_changed == "first version"
    assert stored.result() == json.loads(json.dumps(result))
    assert stored.ledger_json == ledger.model_dump_json()  # exact bytes: the ledger hash still holds
    assert store.check(ref.check_id).status is CheckStatus.RECORDED


def test_times_are_utc_on_every_backend(db_url: str, first: Scored) -> None:
    moment = datetime(2026, 11, 21, 8, 30, 15, 123456, tzinfo=UTC)
    with Store(db_url, clock=lambda: moment) as store:
        ref = store.record_check(first[0].subject, *first)
        stored = store.latest(ref.check_id)
    assert stored.created_at == moment and stored.created_at.tzinfo is UTC
    assert stored.as_of.tzinfo is UTC


def test_recheck_appends_a_version_and_keeps_the_first(
    store: Store, first: Scored, later: Scored, policy: PolicyConfig
) -> None:
    ref = store.record_check(first[0].subject, *first)
    v1 = store.version(ref.check_id, 1)
    second = store.record_check(later[0].subject, *later, reason="recheck", check_id=ref.check_id)
    third_ledger, third_result = rescored(first[0], policy, 400)
    third = store.record_check(
        third_ledger.subject,
        third_ledger,
        third_result,
        Reason.CORRECTION,
        "a supporting source was corrected",
        check_id=ref.check_id,
    )
    assert (second.version, third.version) == (2, 3)
    assert store.version(ref.check_id, 1) == v1
    timeline = store.versions(ref.check_id)
    assert [(e.version, e.reason) for e in timeline] == [
        (1, Reason.FIRST),
        (2, Reason.RECHECK),
        (3, Reason.CORRECTION),
    ]
    assert [e.as_of for e in timeline] == [first[0].as_of, later[0].as_of, third_ledger.as_of]
    assert timeline[2].what_changed == "a supporting source was corrected"
    assert timeline[1].what_changed  # summarised against version 1 when the caller gives no text
    assert all(e.label and e.band and e.url_path.endswith(f"/versions/{e.version}") for e in timeline)
    assert store.latest(ref.check_id).version == 3


def test_a_second_write_of_the_same_version_number_fails(store: Store, first: Scored) -> None:
    ref = store.record_check(first[0].subject, *first)
    before = store.version(ref.check_id, 1)
    with Session(store.engine) as session:
        session.add(
            ReportVersion(
                check_id=ref.check_id,
                version=1,
                created_at=datetime.now(UTC),
                as_of=datetime.now(UTC),
                policy="icarus@1.1",
                config_hash="sha256:forged",
                code_hash="sha256:forged",
                ledger_hash="sha256:forged",
                trace_hash="sha256:forged",
                label="not_supported",
                band="high",
                reason="correction",
                what_changed="overwrite attempt",
                ledger_json="{}",
                result_json="{}",
            )
        )
        with pytest.raises(IntegrityError):
            session.commit()
    assert store.version(ref.check_id, 1) == before
    assert [e.version for e in store.versions(ref.check_id)] == [1]


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE report_versions SET label = 'not_supported'",
        "DELETE FROM report_versions",
        "UPDATE snapshots SET archived = TRUE",
        "DELETE FROM snapshots",
    ],
)
def test_the_database_refuses_updates_and_deletes(store: Store, first: Scored, statement: str) -> None:
    ref = store.record_check(first[0].subject, *first)
    store.record_snapshot(SNAPSHOT, "https://example.org/a", datetime.now(UTC))
    before = store.version(ref.check_id, 1)
    with pytest.raises(DBAPIError, match="append-only"), store.engine.begin() as connection:
        connection.execute(text(statement))
    assert store.version(ref.check_id, 1) == before
    assert len(store.snapshots(SNAPSHOT)) == 1


def test_the_repository_offers_no_way_to_change_history() -> None:
    verbs = ("update", "delete", "remove", "overwrite", "replace", "edit", "set_")
    public = [name for name in dir(Store) if not name.startswith("_")]
    assert not [name for name in public if name.startswith(verbs)]


def test_two_threads_recording_at_once_get_versions_1_and_2(
    store: Store, first: Scored, later: Scored
) -> None:
    for _ in range(3):  # a few rounds: a lost race must be retried, never duplicated or dropped
        check_id = store.open_check(first[0].subject)
        barrier = Barrier(2)

        def record(run: Scored, check_id: str = check_id, barrier: Barrier = barrier) -> VersionRef:
            barrier.wait()
            return store.record_check(run[0].subject, *run, Reason.RECHECK, check_id=check_id)

        with ThreadPoolExecutor(2) as pool:
            refs = list(pool.map(record, [first, later]))
        assert sorted(r.version for r in refs) == [1, 2]
        timeline = store.versions(check_id)
        assert [e.version for e in timeline] == [1, 2]
        assert {e.trace_hash for e in timeline} == {first[1]["trace_hash"], later[1]["trace_hash"]}


def test_many_writers_get_consecutive_versions(store: Store, first: Scored, policy: PolicyConfig) -> None:
    runs = [rescored(first[0], policy, days) for days in range(1, 7)]
    check_id = store.open_check(first[0].subject)
    barrier = Barrier(len(runs))

    def record(run: Scored) -> int:
        barrier.wait()
        return store.record_check(run[0].subject, *run, Reason.RECHECK, check_id=check_id).version

    with ThreadPoolExecutor(len(runs)) as pool:
        numbers = list(pool.map(record, runs))
    assert sorted(numbers) == list(range(1, len(runs) + 1))
    assert [e.version for e in store.versions(check_id)] == sorted(numbers)


def test_recording_the_same_run_twice_returns_the_stored_version(
    store: Store, first: Scored, later: Scored
) -> None:
    ref = store.record_check(first[0].subject, *first)
    store.record_check(later[0].subject, *later, "recheck", check_id=ref.check_id)
    again = store.record_check(first[0].subject, *first, "recheck", check_id=ref.check_id)
    assert again == VersionRef(ref.check_id, 1, ref.url_path, created=False)
    assert [e.version for e in store.versions(ref.check_id)] == [1, 2]


def test_the_same_run_recorded_concurrently_is_stored_once(store: Store, first: Scored) -> None:
    check_id = store.open_check(first[0].subject)
    barrier = Barrier(2)

    def record(_: int) -> VersionRef:
        barrier.wait()
        return store.record_check(first[0].subject, *first, check_id=check_id)

    with ThreadPoolExecutor(2) as pool:
        refs = list(pool.map(record, range(2)))
    assert {r.version for r in refs} == {1}
    assert sorted(r.created for r in refs) == [False, True]
    assert len(store.versions(check_id)) == 1


def test_new_checks_on_a_new_subject_at_once_share_one_subject(store: Store, first: Scored) -> None:
    barrier = Barrier(2)

    def record(_: int) -> VersionRef:
        barrier.wait()
        return store.record_check(first[0].subject, *first)

    with ThreadPoolExecutor(2) as pool:
        refs = list(pool.map(record, range(2)))
    assert len({r.check_id for r in refs}) == 2 and {r.version for r in refs} == {1}
    found = store.find_checks(first[0].subject.kind, first[0].subject.subject_id)
    assert sorted(c.check_id for c in found) == sorted(r.check_id for r in refs)
    with store.engine.connect() as connection:
        assert connection.execute(text("SELECT COUNT(*) FROM subjects")).scalar_one() == 1


def test_a_lost_race_is_retried_and_a_hopeless_one_gives_up(store: Store) -> None:
    attempts: list[int] = []

    def loses_once(_: Session) -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise IntegrityError("INSERT", {}, Exception("duplicate key"))
        return "written"

    assert store._write(loses_once) == "written" and len(attempts) == 2

    def always_loses(_: Session) -> str:
        raise IntegrityError("INSERT", {}, Exception("duplicate key"))

    with pytest.raises(StoreConflict, match="still conflicting"):
        store._write(always_loses)


def test_checks_are_found_by_subject_kind_and_id(store: Store, first: Scored) -> None:
    subject = first[0].subject
    one = store.record_check(subject, *first)
    pending = store.open_check(subject)
    found = store.find_checks(subject.kind, subject.subject_id)
    assert [(c.check_id, c.latest_version, c.status) for c in found] == [
        (one.check_id, 1, CheckStatus.RECORDED),
        (pending, None, CheckStatus.PENDING),
    ]
    assert found[0].subject_kind == subject.kind.value
    assert store.find_checks(subject.kind, "some-other-post") == []
    assert store.find_checks("url", subject.subject_id) == []


def test_unknown_ids_raise_not_found(store: Store, first: Scored) -> None:
    ref = store.record_check(first[0].subject, *first)
    pending = store.open_check(first[0].subject)
    with pytest.raises(NotFound, match="no check 'nope'"):
        store.latest("nope")
    with pytest.raises(NotFound, match="no check 'nope'"):
        store.version("nope", 1)
    with pytest.raises(NotFound, match="no version 9"):
        store.version(ref.check_id, 9)
    with pytest.raises(NotFound, match="no check"):
        store.versions("nope")
    with pytest.raises(NotFound, match="no check"):
        store.check("nope")
    with pytest.raises(NotFound, match="no report version yet"):
        store.latest(pending)
    assert store.versions(pending) == []
    with pytest.raises(NotFound, match="no check"):
        store.record_check(first[0].subject, *first, check_id="nope")
    with pytest.raises(NotFound, match="no snapshot"):
        store.snapshots(SNAPSHOT)


def test_bad_records_are_refused(store: Store, first: Scored, later: Scored, policy: PolicyConfig) -> None:
    ledger, result = first
    with pytest.raises(ValueError, match="reason must be one of"):
        store.record_check(ledger.subject, ledger, result, "retry")
    with pytest.raises(ValueError, match="not this one"):
        store.record_check(ledger.subject, ledger, later[1])
    tampered = {**result, "trace": {**result["trace"], "as_of": "1999-01-01T00:00:00Z"}}
    with pytest.raises(ValueError, match="does not match its trace"):
        store.record_check(ledger.subject, ledger, tampered)
    with pytest.raises(ValueError, match="not a scoring result"):
        store.record_check(ledger.subject, ledger, {"policy": "icarus@1.1"})
    other = Subject.model_validate({**ledger.subject.model_dump(), "subject_id": "another-post"})
    with pytest.raises(ValueError, match="not the ledger's subject"):
        store.record_check(other, ledger, result)
    ref = store.record_check(ledger.subject, ledger, result)
    other_ledger = ledger.model_copy(update={"subject": other})
    with pytest.raises(ValueError, match="is about"):
        store.record_check(other, other_ledger, score_ledger(other_ledger, policy), check_id=ref.check_id)
    assert [e.version for e in store.versions(ref.check_id)] == [1]


def test_a_store_must_be_opened_first(db_url: str) -> None:
    with pytest.raises(RuntimeError, match="open"):
        Store(db_url).find_checks("x_post", "1")


def test_snapshot_metadata_is_recorded_once_per_address(store: Store) -> None:
    fetched = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    a = store.record_snapshot(SNAPSHOT, "https://example.org/a", fetched, "text/html")
    again = store.record_snapshot(SNAPSHOT, "https://example.org/a", datetime.now(UTC), "text/plain")
    assert again == a and a.fetched_at == fetched and a.content_type == "text/html"
    store.record_snapshot(
        SNAPSHOT, "https://mirror.example/a", datetime.now(UTC), archived=True, archive_url="https://arch/a"
    )
    rows = store.snapshots(SNAPSHOT)
    assert [r.url for r in rows] == ["https://example.org/a", "https://mirror.example/a"]
    assert rows[1].archived and rows[1].archive_url == "https://arch/a"
    with pytest.raises(ValueError, match="64 lowercase hex"):
        store.record_snapshot("md5:abc", "https://example.org/a", fetched)


def test_stored_result_is_canonical_json(store: Store, first: Scored) -> None:
    ref = store.record_check(first[0].subject, *first)
    assert store.latest(ref.check_id).result_json == canonical_json(first[1])
