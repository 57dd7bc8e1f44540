"""Perceptual hashes survive what reposting does to a picture, and the index finds copies within 8 bits."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest
from PIL import Image

from icarus.lookups import image_index
from icarus.lookups.image_index import (
    MAX_IMAGE_BYTES,
    ImageCopy,
    ImageError,
    ImageIndex,
    hamming,
    image_sources,
    perceptual_hash,
)
from icarus.scoring.icarus.config import load_policy
from tests.lookups.images import encoded, other_scene, recycled, scene

SEEN = datetime(2024, 5, 1, 9, 30, tzinfo=UTC)
LIMIT = load_policy("icarus@1.1").media.phash_max_distance


def test_the_policy_counts_eight_bits_as_the_same_image() -> None:
    assert LIMIT == 8


def _distance(copy: bytes) -> int:
    return hamming(perceptual_hash(encoded(scene())), perceptual_hash(copy))


def test_a_cropped_resized_low_quality_copy_is_the_same_image() -> None:
    assert _distance(recycled(scene())) <= LIMIT


@pytest.mark.parametrize(
    "change",
    [
        lambda image: encoded(image.crop((25, 20, 615, 460))),
        lambda image: encoded(image, "JPEG", quality=10),
        lambda image: encoded(image.resize((320, 240))),
        lambda image: encoded(image.resize((1280, 960)), "JPEG", quality=40),
    ],
    ids=["crop", "jpeg-q10", "half-size", "double-size-jpeg"],
)
def test_each_reposting_change_keeps_the_image_within_the_limit(change) -> None:  # type: ignore[no-untyped-def]
    assert _distance(change(scene())) <= LIMIT


def test_a_different_picture_is_not_matched() -> None:
    assert _distance(encoded(other_scene())) > LIMIT
    assert _distance(encoded(scene(seed=2))) > LIMIT  # the same kind of scene, arranged differently


def test_hashing_is_deterministic_and_64_bits() -> None:
    first = perceptual_hash(encoded(scene()))
    assert first == perceptual_hash(encoded(scene()))
    assert 0 <= first < 1 << 64


def _flipped(phash: int, bits: int) -> int:
    return phash ^ ((1 << bits) - 1)


def test_the_index_finds_copies_at_eight_bits_and_not_at_nine() -> None:
    index = ImageIndex.in_memory()
    base = perceptual_hash(encoded(scene()))
    index.add(ImageCopy(_flipped(base, 8), SEEN, "file:///a.jpg", "https://a.example/p", "doc-a"), "a" * 64)
    index.add(ImageCopy(_flipped(base, 9), SEEN, "file:///b.jpg", "https://b.example/p", "doc-b"), "b" * 64)
    found = index.near(base, LIMIT)
    assert [(copy.doc_id, copy.distance) for copy in found] == [("doc-a", 8)]
    assert [copy.doc_id for copy in index.near(base, 9)] == ["doc-a", "doc-b"]


def test_the_index_keeps_the_highest_hashes_exactly() -> None:
    index = ImageIndex.in_memory()
    top = (1 << 64) - 1
    index.add(ImageCopy(top, SEEN, "file:///t.jpg", "https://t.example/p", "doc-t"), "t" * 64)
    assert [(copy.phash, copy.distance) for copy in index.near(top, 0)] == [(top, 0)]
    assert index.near(0, LIMIT) == []


def test_copies_come_back_earliest_first_and_are_recorded_once() -> None:
    index = ImageIndex(sqlite3.connect(":memory:"))
    later = datetime(2025, 1, 1, tzinfo=UTC)
    assert index.add(ImageCopy(7, later, "file:///x.jpg", "https://late.example/p", "doc-late"), "x" * 64)
    assert index.add(ImageCopy(7, SEEN, "file:///x.jpg", "https://early.example/p", "doc-early"), "x" * 64)
    assert not index.add(
        ImageCopy(7, SEEN, "file:///x.jpg", "https://early.example/p", "doc-early"), "x" * 64
    )
    assert [copy.doc_id for copy in index.near(7, 0)] == ["doc-early", "doc-late"]
    assert len(index) == 2


def test_an_image_over_the_pixel_cap_is_refused_before_decoding() -> None:
    bomb = encoded(Image.new("1", (8000, 6000)))  # 48 megapixels in a few kilobytes
    assert len(bomb) < 100_000
    with pytest.raises(ImageError, match="pixels"):
        perceptual_hash(bomb)


def test_pillow_refuses_what_the_header_check_lets_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(image_index, "MAX_IMAGE_PIXELS", 10**12)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1_000_000)
    with pytest.raises(ImageError):
        perceptual_hash(encoded(Image.new("1", (2000, 1000))))  # over Pillow's own bomb warning


def test_an_image_over_the_byte_cap_is_refused() -> None:
    with pytest.raises(ImageError, match="larger than"):
        perceptual_hash(b"\x89PNG" + bytes(MAX_IMAGE_BYTES))


def test_bytes_that_are_not_an_image_are_refused() -> None:
    with pytest.raises(ImageError, match="not a readable image"):
        perceptual_hash(b"<html>not a picture</html>")
    with pytest.raises(ImageError):
        perceptual_hash(encoded(scene())[:200])  # truncated


def test_image_sources_in_document_order_without_inline_data() -> None:
    page = b"""<html><body><img src="a.jpg"><p>text</p><img src=" b/c.png ">
    <img src="data:image/png;base64,AAAA"><img src="a.jpg"><img alt="no source"></body></html>"""
    assert image_sources(page) == ["a.jpg", "b/c.png"]
    many = b"".join(b'<img src="%d.jpg">' % n for n in range(40))
    assert image_sources(many, limit=3) == ["0.jpg", "1.jpg", "2.jpg"]
    assert image_sources(b"") == []
