"""Content-addressed snapshots: round trip, immutability, tamper detection, reference validation, and the
archive fallback (H24) against a local Wayback-style server."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import pytest

from icarus.fetching import (
    BadStatus,
    BlockedURL,
    CorruptSnapshot,
    FetchBudget,
    InvalidSnapshotRef,
    OfflineArchive,
    SafeFetcher,
    SnapshotError,
    SnapshotMeta,
    SnapshotNotFound,
    SnapshotStore,
    WaybackArchive,
    capture_url,
    parse_ref,
)
from icarus.fetching.snapshots import ArchivedCopy
from tests.fetching.conftest import FakeServer, FakeTime, Reply

MakeFetcher = Callable[..., SafeFetcher]
WHEN = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def meta(url: str = "https://news.example/a", **extra: object) -> dict[str, object]:
    return {"url": url, "final_url": url, "content_type": "text/html", "fetched_at": WHEN, **extra}


def object_path(root: Path, ref: str) -> Path:
    digest = parse_ref(ref)
    return root / "objects" / digest[:2] / digest[2:]


def test_round_trip(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    body = b"<html>evidence</html>"
    ref = store.put(body, meta())
    assert ref == "sha256:" + hashlib.sha256(body).hexdigest()
    assert store.get(ref) == body
    assert ref in store
    [record] = store.metadata(ref)
    assert record == SnapshotMeta.model_validate(meta())
    assert record.archived is False and record.archive_url is None


def test_objects_are_written_once_and_never_rewritten(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    ref = store.put(b"same bytes", meta("https://a.example/"))
    path = object_path(tmp_path, ref)
    before = path.stat()
    assert stat.S_IMODE(before.st_mode) == 0o444
    again = store.put(b"same bytes", meta("https://b.example/", fetched_at=datetime(2024, 6, 1, tzinfo=UTC)))
    assert again == ref
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert [m.url for m in store.metadata(ref)] == ["https://a.example/", "https://b.example/"]
    store.put(b"same bytes", meta("https://a.example/"))  # an identical record is stored once
    assert len(store.metadata(ref)) == 2
    assert not list(path.parent.glob(".tmp-*"))


def test_tampered_snapshot_is_detected(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    ref = store.put(b"The minister said 12%.", meta())
    path = object_path(tmp_path, ref)
    os.chmod(path, 0o644)
    path.write_bytes(b"The minister said 21%.")
    with pytest.raises(CorruptSnapshot, match="corrupt"):
        store.get(ref)


def test_tampered_metadata_is_detected(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    ref = store.put(b"body", meta())
    [record_path] = (tmp_path / "meta").rglob("*.json")
    os.chmod(record_path, 0o644)
    record_path.write_text(
        json.dumps({**json.loads(record_path.read_text()), "url": "https://forged.example/"})
    )
    with pytest.raises(CorruptSnapshot, match="metadata"):
        store.metadata(ref)


@pytest.mark.parametrize(
    "ref",
    [
        "sha256:../../../../etc/passwd",
        "sha256:" + "0" * 63,
        "sha256:" + "0" * 65,
        "sha256:" + "A" * 64,
        "sha256:" + "0" * 64 + "\n",
        "sha256:" + "0" * 62 + "/x",
        "md5:" + "0" * 32,
        "../objects/ab/cd",
        "/etc/passwd",
        "",
        "SHA256:" + "0" * 64,
    ],
)
def test_invalid_refs_are_rejected(tmp_path: Path, ref: str) -> None:
    store = SnapshotStore(tmp_path)
    with pytest.raises(InvalidSnapshotRef):
        store.get(ref)
    with pytest.raises(InvalidSnapshotRef):
        store.metadata(ref)
    assert ref not in store


def test_missing_snapshot(tmp_path: Path) -> None:
    with pytest.raises(SnapshotNotFound, match="no snapshot"):
        SnapshotStore(tmp_path).get("sha256:" + "0" * 64)


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ({"fetched_at": datetime(2024, 5, 1, 12, 0)}, "timezone-aware"),
        ({"archived": True}, "needs the archive_url"),
        ({"archive_url": "https://web.archive.org/x"}, "only set on archived"),
        ({"unexpected": 1}, "Extra inputs"),
    ],
)
def test_metadata_is_validated(tmp_path: Path, bad: dict[str, object], why: str) -> None:
    with pytest.raises(SnapshotError, match=why):
        SnapshotStore(tmp_path).put(b"x", {**meta(), **bad})


def wayback(server: FakeServer, original: str, timestamp: str, body: bytes) -> None:
    answer = {"archived_snapshots": {"closest": {"available": True, "status": "200", "timestamp": timestamp,
                                                  "url": f"http://archive.invalid/web/{timestamp}/{original}"}}}  # fmt: skip
    server.reply(
        "/wayback/available", Reply(200, json.dumps(answer).encode(), {"Content-Type": "application/json"})
    )
    server.html(f"/web/{timestamp}id_/{original}", body)


def test_wayback_archive_finds_the_closest_capture(server: FakeServer, make_fetcher: MakeFetcher) -> None:
    original = "https://gone.example/story"
    wayback(server, original, "20240102030405", b"<p>archived story</p>")
    archive = WaybackArchive(server.url(""), make_fetcher())
    copy = archive.find(original, near=WHEN)
    assert copy is not None
    assert copy.result.body == b"<p>archived story</p>"
    assert copy.archive_url == server.url(f"/web/20240102030405/{original}")
    assert copy.captured_at == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    lookup = server.requests[0].path
    assert lookup == f"/wayback/available?url={quote(original, safe='')}&timestamp=20240501120000"


@pytest.mark.parametrize(
    "answer",
    [
        b'{"archived_snapshots": {}}',
        b'{"archived_snapshots": {"closest": {"available": false, "timestamp": "20240101000000"}}}',
        b'{"archived_snapshots": {"closest": {"status": "404", "timestamp": "20240101000000"}}}',
        b'{"archived_snapshots": {"closest": {"timestamp": "../../admin"}}}',
        b"not json",
        b"[" * 100_000,
    ],
)
def test_wayback_without_a_usable_capture_returns_none(
    server: FakeServer, make_fetcher: MakeFetcher, answer: bytes
) -> None:
    server.reply("/wayback/available", Reply(200, answer, {"Content-Type": "application/json"}))
    assert WaybackArchive(server.url(""), make_fetcher()).find("https://gone.example/") is None
    assert len(server.requests) == 1


def test_capture_stores_a_live_snapshot(
    tmp_path: Path, server: FakeServer, make_fetcher: MakeFetcher
) -> None:
    server.html("/live", "<p>live page</p>")
    store = SnapshotStore(tmp_path)
    capture = capture_url(server.url("/live"), fetcher=make_fetcher(), store=store)
    assert store.get(capture.ref) == b"<p>live page</p>"
    assert capture.meta.archived is False
    assert capture.live_error is None
    assert store.metadata(capture.ref) == [capture.meta]


def test_capture_falls_back_to_a_labelled_archive_copy(
    tmp_path: Path, server: FakeServer, make_fetcher: MakeFetcher
) -> None:
    dead = server.url("/deleted-story")  # the fake server answers 404
    wayback(server, dead, "20240102030405", b"<p>what the page said</p>")
    fetcher = make_fetcher()
    store = SnapshotStore(tmp_path)
    capture = capture_url(dead, fetcher=fetcher, store=store, archive=WaybackArchive(server.url(""), fetcher))
    assert isinstance(capture.live_error, BadStatus)
    assert capture.meta.archived is True
    assert capture.meta.archive_url == server.url(f"/web/20240102030405/{dead}")
    assert capture.meta.url == dead
    assert store.get(capture.ref) == b"<p>what the page said</p>"
    assert store.metadata(capture.ref)[0].archived is True


def test_capture_without_an_archive_raises_the_live_error(
    tmp_path: Path, server: FakeServer, make_fetcher: MakeFetcher
) -> None:
    assert OfflineArchive().find("https://gone.example/") is None
    with pytest.raises(BadStatus, match="404"):
        capture_url(server.url("/nothing"), fetcher=make_fetcher(), store=SnapshotStore(tmp_path))
    assert not (tmp_path / "objects").exists()


class CountingArchive:
    name = "counting"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def find(
        self, url: str, *, near: datetime | None = None, budget: FetchBudget | None = None
    ) -> ArchivedCopy | None:
        self.asked.append(url)
        return None


def test_blocked_urls_are_not_sent_to_the_archive(tmp_path: Path, make_fetcher: MakeFetcher) -> None:
    archive = CountingArchive()
    with pytest.raises(BlockedURL):
        capture_url(
            "http://10.0.0.1/admin", fetcher=make_fetcher(), store=SnapshotStore(tmp_path), archive=archive
        )
    assert archive.asked == []


def test_unreachable_archive_reports_the_live_error(
    tmp_path: Path, server: FakeServer, make_fetcher: MakeFetcher, fake_time: FakeTime
) -> None:
    fetcher = make_fetcher()
    archive = WaybackArchive("http://10.9.9.9", fetcher)  # the guard refuses it
    with pytest.raises(BadStatus) as caught:
        capture_url(server.url("/gone"), fetcher=fetcher, store=SnapshotStore(tmp_path), archive=archive)
    assert isinstance(caught.value.__cause__, BlockedURL)
