"""Attached still images are read before claims are found: their text becomes claim text labelled "text read
from image", and uncertain readings of load-bearing tokens make the claim unverifiable (G2)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from icarus.capture import capture_x_mention
from icarus.capture.ocr import OcrLine, OcrReading
from icarus.fetching import SafeFetcher, SnapshotStore
from icarus.judges import create_judge
from icarus.pipeline.check import CheckServices, run_check
from icarus.reputation import load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider
from icarus.scoring.icarus.config import load_policy
from tests.fetching.conftest import FakeServer, Reply

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
EXAMPLES = Path(__file__).parents[2] / "examples" / "sample-corpus"
# A 1x1 PNG: the fake engines below do not look at the pixels.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
BOX = ((0.0, 0.0), (100.0, 0.0), (100.0, 20.0), (0.0, 20.0))


@dataclass
class FakeOcr:
    text: str
    confidence: float
    name: str = "fake-ocr"
    version: str = "1"

    def available(self) -> bool:
        return True

    def read(self, image_bytes: bytes) -> OcrReading:
        return OcrReading(lines=[OcrLine(text=self.text, confidence=self.confidence, box=BOX)])


def post_with_image(image_url: str) -> dict:
    return {
        "data": {
            "id": "2",
            "text": "@IcarusCheck true?",
            "author_id": "9",
            "lang": "en",
            "referenced_tweets": [{"type": "replied_to", "id": "1"}],
        },
        "includes": {
            "tweets": [
                {
                    "id": "1",
                    "text": "Look at this",
                    "author_id": "8",
                    "lang": "en",
                    "attachments": {"media_keys": ["3_1"]},
                }
            ],
            "media": [{"media_key": "3_1", "type": "photo", "url": image_url}],
            "users": [{"id": "8", "username": "poster", "name": "Poster"}],
        },
    }


def run(server: FakeServer, tmp_path: Path, ocr: FakeOcr, second: FakeOcr | None = None):  # type: ignore[no-untyped-def]
    server.reply("/img.png", Reply(200, PNG, {"Content-Type": "image/png"}))
    outcome = capture_x_mention(json.loads(json.dumps(post_with_image(server.url("/img.png")))), NOW)
    assert outcome.subject is not None
    corpus = LocalCorpus(tmp_path / "corpus.db")
    corpus.add(sorted(EXAMPLES.glob("*.html")))
    services = CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[LocalCorpusProvider(corpus)],
        registry=load_registry(EXAMPLES / "reputation.json"),
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy("icarus@1.1"),
        fetcher=SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None),
        ocr=ocr,
        second_ocr=second,
    )
    return run_check(outcome.subject, services, NOW)


def test_image_text_becomes_a_labelled_claim(server: FakeServer, tmp_path: Path) -> None:
    output = run(server, tmp_path, FakeOcr("Container traffic at Halden harbor fell 12% in October", 0.98))
    image_claims = [c for c in output.result["claims"] if "text read from image" in c["caveats"]]
    assert image_claims, output.result["claims"]
    assert image_claims[0]["label"] == "supported"


def test_G2_a_second_reading_that_disagrees_on_a_figure_abstains(server: FakeServer, tmp_path: Path) -> None:
    output = run(
        server,
        tmp_path,
        FakeOcr("Container traffic at Halden harbor fell 12% in October", 0.98),
        FakeOcr("Container traffic at Halden harbor fell 2% in October", 0.98),
    )
    claim = next(c for c in output.result["claims"] if "text read from image" in c["caveats"])
    assert claim["label"] == "unverifiable"
    assert any(r["code"] == "G2@1" for r in claim["reasons"])


def test_without_ocr_the_image_is_noted_not_read(server: FakeServer, tmp_path: Path) -> None:
    server.reply("/img.png", Reply(200, PNG, {"Content-Type": "image/png"}))
    outcome = capture_x_mention(post_with_image(server.url("/img.png")), NOW)
    assert outcome.subject is not None
    services = CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[],
        registry=load_registry(),
        snapshots=SnapshotStore(tmp_path / "s"),
        policy=load_policy("icarus@1.1"),
    )
    output = run_check(outcome.subject, services, NOW)
    assert any("image not read" in note for note in output.link_notes)
