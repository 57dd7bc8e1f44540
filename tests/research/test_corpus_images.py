"""``icarus corpus add`` indexes the images a dated HTML page shows, from files beside it only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from icarus.lookups.image_index import perceptual_hash
from icarus.research import corpus as corpus_module
from icarus.research.corpus import LocalCorpus
from tests.lookups.images import encoded, other_scene, recycled, scene

PARAGRAPHS = [
    "The old mill on the river was photographed from the meadow on a clear spring morning.",
    "The building has stood at the edge of the village for more than a century, locals said.",
]


def _page(images: str, published: str = "2024-05-01T09:30:00+00:00") -> bytes:
    head = f'<meta property="article:published_time" content="{published}">' if published else ""
    body = "".join(f"<p>{paragraph}</p>" for paragraph in PARAGRAPHS)
    return (
        f"<!doctype html><html><head><title>The old mill</title>{head}</head><body><article>"
        f"<h1>The old mill</h1>{images}{body}</article></body></html>"
    ).encode()


@pytest.fixture
def corpus(tmp_path: Path) -> LocalCorpus:
    return LocalCorpus(tmp_path / "corpus.db")


def test_a_dated_page_indexes_the_image_beside_it(tmp_path: Path, corpus: LocalCorpus) -> None:
    site = tmp_path / "site"
    (site / "media").mkdir(parents=True)
    (site / "media" / "mill.png").write_bytes(encoded(scene()))
    (site / "mill.html").write_bytes(_page('<img src="media/mill.png">'))
    report = corpus.add([site])
    assert (report.documents, report.images) == (1, 1)
    copies = corpus.image_copies(perceptual_hash(recycled(scene())), 8)
    assert len(copies) == 1
    copy = copies[0]
    assert copy.first_seen_at.date().isoformat() == "2024-05-01"
    assert copy.image_url == (site / "media" / "mill.png").resolve().as_uri()
    document = corpus.get(copy.doc_id)
    assert document is not None and document.title == "The old mill"
    assert corpus.image_copies(perceptual_hash(encoded(other_scene())), 8) == []
    assert corpus.add([site]).images == 0  # the same page again indexes nothing twice


def test_an_undated_page_cannot_date_its_images(tmp_path: Path, corpus: LocalCorpus) -> None:
    (tmp_path / "mill.png").write_bytes(encoded(scene()))
    (tmp_path / "mill.html").write_bytes(_page('<img src="mill.png">', published=""))
    report = corpus.add([tmp_path / "mill.html"])
    assert (report.documents, report.images) == (1, 0)


def _reasons(report_skipped: list[tuple[Path, str]]) -> list[str]:
    return [reason for _, reason in report_skipped]


def test_images_outside_the_page_folder_are_never_read(tmp_path: Path, corpus: LocalCorpus) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "outside.png").write_bytes(encoded(scene()))
    os.symlink(tmp_path / "outside.png", site / "linked.png")
    images = "".join(
        f'<img src="{source}">'
        for source in (
            "../outside.png",
            str(tmp_path / "outside.png"),
            "file:///etc/passwd",
            "http://127.0.0.1:9/mill.png",
            "//cdn.example/mill.png",
            "linked.png",
            "missing.png",
        )
    )
    (site / "mill.html").write_bytes(_page(images))
    report = corpus.add([site / "mill.html"])
    assert report.images == 0
    reasons = _reasons(report.skipped)
    assert sum("leads out of the page's folder" in reason for reason in reasons) == 2  # ../ and the link
    assert sum("never fetched" in reason for reason in reasons) == 4
    assert any("no such file" in reason for reason in reasons)


def test_oversized_and_unreadable_images_are_skipped_with_a_reason(
    tmp_path: Path, corpus: LocalCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(corpus_module, "MAX_IMAGE_BYTES", 1000)
    (tmp_path / "big.png").write_bytes(encoded(scene()))
    (tmp_path / "broken.png").write_bytes(b"not an image")
    (tmp_path / "mill.html").write_bytes(_page('<img src="big.png"><img src="broken.png">'))
    report = corpus.add([tmp_path / "mill.html"])
    assert report.images == 0
    reasons = _reasons(report.skipped)
    assert any("larger than 1000 bytes" in reason for reason in reasons)
    assert any("not a readable image" in reason for reason in reasons)
