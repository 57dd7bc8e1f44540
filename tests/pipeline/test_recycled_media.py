"""H23 end to end: a subject image that circulated on a dated page before the event refutes "this image
shows E"; the copy comes from the local corpus's image index or from an image on a fetched evidence page."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from icarus.fetching import FetchBudget, SnapshotStore
from icarus.judges import create_judge
from icarus.ledger import CapturedImage, Claim, ClaimType, EvidenceItem, ImageMatch
from icarus.pipeline.check import CheckServices, check_claims, judge_evidence
from icarus.pipeline.recycled_media import with_recycled_images
from icarus.reputation import load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider
from icarus.scoring.icarus.config import load_policy
from tests.builders import claim, item, subject
from tests.lookups.images import encoded, other_scene, recycled, scene

EXAMPLES = Path(__file__).parents[2] / "examples" / "sample-corpus"
PAGE_DAY = datetime(2024, 5, 1, tzinfo=UTC)  # the corpus page's date (day precision, from its metadata)
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
POST = "This photo shows the old mill destroyed by the flood on Monday."


def _page() -> bytes:
    return (
        b"<!doctype html><html><head><title>Spring at the old mill</title>"
        b'<meta property="article:published_time" content="2024-05-01">'
        b'</head><body><article><h1>Spring at the old mill</h1><img src="mill.png">'
        b"<p>The old mill on the river was photographed from the meadow on a clear spring morning.</p>"
        b"<p>The building has stood at the edge of the village for more than a century, locals said.</p>"
        b"</article></body></html>"
    )


def _meta(url: str, content_type: str) -> dict[str, Any]:
    return {"url": url, "final_url": url, "content_type": content_type, "fetched_at": NOW}


def item_trace(result: dict[str, Any], evidence_id: str) -> dict[str, Any]:
    """The scorer's final reading of one item for the claim."""
    trace = next(entry for entry in result["trace"]["claims"] if entry["claim_id"] == "c1")
    items: list[dict[str, Any]] = trace["passes"][-1]["items"]
    return next(entry for entry in items if entry["evidence_id"] == evidence_id)


def _services(tmp_path: Path, *, with_page: bool = True) -> CheckServices:
    folder = tmp_path / "corpus"
    folder.mkdir()
    if with_page:
        (folder / "mill.png").write_bytes(encoded(scene()))
        (folder / "mill.html").write_bytes(_page())
    corpus = LocalCorpus(tmp_path / "corpus.db")
    assert corpus.add([folder]).images == (1 if with_page else 0)
    return CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[LocalCorpusProvider(corpus)],
        registry=load_registry(EXAMPLES / "reputation.json"),
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy("icarus@1.1"),
    )


def _check(services: CheckServices, image: bytes, event: datetime, claim_type: ClaimType) -> Any:
    ref = services.snapshots.put(image, _meta("https://pbs.example/img.jpg", "image/jpeg"))
    captured = CapturedImage(image_id="img-1", sha256=ref.removeprefix("sha256:"))
    post = subject(POST, images=[captured])
    target = claim(text=POST, source=POST, claim_type=claim_type, event_started_at=event)
    return check_claims(post, [target], services, NOW)


def _matched(output: Any) -> list[EvidenceItem]:
    return [entry for entry in output.ledger.evidence if entry.image_match is not None]


def test_a_recycled_subject_image_refutes_the_image_claim(tmp_path: Path) -> None:
    services = _services(tmp_path)
    output = _check(services, recycled(scene()), PAGE_DAY + timedelta(days=900), ClaimType.IMAGE_CONTEXT)
    [copy] = _matched(output)
    assert copy.image_match is not None and copy.image_match.hamming_distance <= 8
    assert copy.image_match.copy_first_seen_at == PAGE_DAY
    trace = item_trace(output.result, copy.evidence_id)
    assert trace["stance"] == "refute"
    assert "H23" in str(trace)


@pytest.mark.parametrize(
    ("gap", "refutes"), [(timedelta(hours=48), True), (timedelta(hours=48) - timedelta(minutes=1), False)]
)
def test_the_copy_must_predate_the_event_by_48_hours(tmp_path: Path, gap: timedelta, refutes: bool) -> None:
    output = _check(_services(tmp_path), recycled(scene()), PAGE_DAY + gap, ClaimType.IMAGE_CONTEXT)
    [copy] = _matched(output)
    assert (item_trace(output.result, copy.evidence_id)["stance"] == "refute") is refutes


def test_a_different_image_finds_no_copy(tmp_path: Path) -> None:
    output = _check(_services(tmp_path), encoded(other_scene()), NOW, ClaimType.IMAGE_CONTEXT)
    assert _matched(output) == []


def test_only_image_context_claims_look_for_copies(tmp_path: Path) -> None:
    output = _check(_services(tmp_path), recycled(scene()), NOW, ClaimType.OTHER)
    assert _matched(output) == []


# Fetched evidence pages: their images come through the check's fetcher.


class _Fetched:
    def __init__(self, body: bytes) -> None:
        self.body = body
        self.final_url = "https://news.example/mill.png"
        self.content_type = "image/png"
        self.fetched_at = NOW
        self.status = 200


def _page_item(services: CheckServices, published: datetime | None) -> EvidenceItem:
    ref = services.snapshots.put(
        b'<html><body><img src="/mill.png"><img src="data:image/png;base64,AA"></body></html>',
        _meta("https://news.example/story", "text/html"),
    )
    return item(
        "ev-page",
        url="https://news.example/story",
        published_at=published,
        snapshot={"ref": ref, "archived": False},
        content_sha256=ref.removeprefix("sha256:"),
    )


def test_an_image_on_a_fetched_page_is_compared_and_dated_by_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = _services(tmp_path, with_page=False)
    fetched: list[str] = []

    def fake_capture(url: str, **_: Any) -> Any:
        fetched.append(url)
        return type("Capture", (), {"result": _Fetched(encoded(scene()))})()

    monkeypatch.setattr("icarus.lookups.recycled_media.capture_url", fake_capture)
    services.fetcher = object()  # type: ignore[assignment]  # only its presence is read; capture is faked
    ref = services.snapshots.put(recycled(scene()), _meta("https://pbs.example/img.jpg", "image/jpeg"))
    post = subject(POST, images=[CapturedImage(image_id="img-1", sha256=ref.removeprefix("sha256:"))])
    target: Claim = claim(text=POST, source=POST, claim_type=ClaimType.IMAGE_CONTEXT, event_started_at=NOW)
    dated = _page_item(services, PAGE_DAY)
    undated = _page_item(services, None).model_copy(
        update={"evidence_id": "ev-undated", "published_at": None}
    )
    notes: list[str] = []
    result = with_recycled_images(
        post,
        [target],
        [dated, undated],
        services,
        lambda entry, claims: judge_evidence(entry, claims, services.judge),
        NOW,
        FetchBudget(10, 60.0),
        notes,
    )
    assert fetched == ["https://news.example/mill.png"]  # resolved against the page; inline data skipped
    matches = {entry.evidence_id: entry.image_match for entry in result}
    assert isinstance(matches["ev-page"], ImageMatch)
    assert matches["ev-page"].copy_first_seen_at == PAGE_DAY
    assert matches["ev-undated"] is None  # an undated page cannot show the image came first


def test_a_subject_image_that_cannot_be_had_is_noted_and_changes_nothing(tmp_path: Path) -> None:
    services = _services(tmp_path)
    post = subject(POST, images=[CapturedImage(image_id="img-1", sha256="0" * 64)])
    target = claim(text=POST, source=POST, claim_type=ClaimType.IMAGE_CONTEXT, event_started_at=NOW)
    notes: list[str] = []
    kept = [item("ev-a")]
    judge = services.judge
    found = with_recycled_images(
        post, [target], kept, services, lambda e, c: judge_evidence(e, c, judge), NOW, None, notes
    )
    assert found == kept
    assert notes == ["image img-1: not available for the recycled-image search"]
