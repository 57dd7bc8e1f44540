"""Perceptual hashes of images and the index of dated copies that H23 (recycled media) looks in.

An image's pHash (``imagehash.phash``: 64 bits from the low frequencies of a 32x32 greyscale DCT) survives
re-encoding, resizing and small crops; two hashes within ``policy.media.phash_max_distance`` bits are the
same picture. Each indexed copy keeps where it was seen (the image's and the page's address) and when:
the page's publication time, which is what can show that a picture circulated before the event a post
says it shows. Copies with no date are not indexed: they cannot show that.

Decoding is bounded: at most ``MAX_IMAGE_BYTES`` of input and ``MAX_IMAGE_PIXELS`` pixels (checked from
the header, before any pixel is decoded), so a decompression bomb is refused rather than expanded.
"""

from __future__ import annotations

import io
import sqlite3
import warnings
from dataclasses import dataclass
from datetime import datetime

import lxml.etree
import lxml.html
import numpy as np

__all__ = [
    "MAX_IMAGES_PER_PAGE",
    "MAX_IMAGE_BYTES",
    "MAX_IMAGE_PIXELS",
    "ImageCopy",
    "ImageError",
    "ImageIndex",
    "hamming",
    "image_sources",
    "perceptual_hash",
]

MAX_IMAGE_BYTES = 16 * 1024 * 1024
"""Images larger than this (16 MiB) are not hashed."""

MAX_IMAGE_PIXELS = 40_000_000
"""Images with more pixels than this are refused before decoding (decompression-bomb protection)."""

MAX_IMAGES_PER_PAGE = 16
"""At most this many images of one page are hashed (the first in document order)."""

_SIGN = 1 << 63  # SQLite integers are signed 64-bit: hashes are stored shifted into that range


class ImageError(Exception):
    """The bytes are not an image that can be hashed safely (unreadable, too large, too many pixels)."""


def perceptual_hash(data: bytes) -> int:
    """The 64-bit pHash of an image, as an integer. Raises ``ImageError``."""
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageError(f"image larger than {MAX_IMAGE_BYTES} bytes")
    # Imported here: Pillow, imagehash and SciPy are loaded only when an image is hashed.
    import imagehash
    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                if width * height > MAX_IMAGE_PIXELS:
                    raise ImageError(f"image of {width}x{height} pixels is over {MAX_IMAGE_PIXELS}")
                image.draft("L", (256, 256))  # JPEG: decode at a reduced scale, enough for a 32x32 DCT
                bits = imagehash.phash(image.convert("L")).hash.flatten()
        except ImageError:
            raise
        except (OSError, ValueError, SyntaxError, Image.DecompressionBombError, Warning) as exc:
            raise ImageError(f"not a readable image: {exc}") from None
    return int("".join("1" if bit else "0" for bit in bits), 2)


def image_sources(html: bytes, limit: int = MAX_IMAGES_PER_PAGE) -> list[str]:
    """The ``src`` of each ``<img>`` in a page, as written, first ``limit`` distinct ones in order."""
    parser = lxml.html.HTMLParser(recover=True, no_network=True, huge_tree=False, remove_pis=True)
    try:
        root = lxml.html.document_fromstring(html, parser=parser)
    except (lxml.etree.ParserError, ValueError):
        return []
    found: list[str] = []
    for element in root.iter("img"):
        source = (element.get("src") or "").strip()
        if source and not source.startswith("data:") and source not in found:
            found.append(source)
            if len(found) == limit:
                break
    return found


def hamming(left: int, right: int) -> int:
    """Bits that differ between two 64-bit hashes."""
    return (left ^ right).bit_count()


@dataclass(frozen=True, slots=True)
class ImageCopy:
    """A dated copy of an image somewhere: on a page of the local corpus or on a fetched page."""

    phash: int
    first_seen_at: datetime
    image_url: str
    page_url: str
    doc_id: str  # the corpus document (its content hash), or "" for a page outside the corpus
    distance: int = 0  # bits from the hash looked up, when returned by ``ImageIndex.near``


_SCHEMA = """
CREATE TABLE IF NOT EXISTS image_hashes (
    phash INTEGER NOT NULL,               -- pHash minus 2**63 (SQLite integers are signed)
    image_sha256 TEXT NOT NULL,
    image_url TEXT NOT NULL,
    page_url TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    first_seen_at TEXT NOT NULL,          -- ISO 8601, UTC
    UNIQUE (image_sha256, page_url)
);
"""


class ImageIndex:
    """Dated image copies in an SQLite table (in the corpus file when the corpus owns it).

    Not locked: the caller serialises access to the connection (``LocalCorpus`` holds its lock).
    """

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._conn = connection
        self._conn.executescript(_SCHEMA)

    @classmethod
    def in_memory(cls) -> ImageIndex:
        return cls(sqlite3.connect(":memory:", check_same_thread=False))

    def add(self, copy: ImageCopy, image_sha256: str) -> bool:
        """Record one copy; False when this image was already recorded for this page."""
        cursor = self._conn.execute(
            "INSERT OR IGNORE INTO image_hashes (phash, image_sha256, image_url, page_url, doc_id, "
            "first_seen_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                copy.phash - _SIGN,
                image_sha256,
                copy.image_url,
                copy.page_url,
                copy.doc_id,
                copy.first_seen_at.isoformat(),
            ),
        )
        return cursor.rowcount == 1

    def __len__(self) -> int:
        count: int = self._conn.execute("SELECT count(*) FROM image_hashes").fetchone()[0]
        return count

    def near(self, phash: int, max_distance: int) -> list[ImageCopy]:
        """Copies within ``max_distance`` bits of ``phash``, earliest first (ties by page, then image)."""
        rows = self._conn.execute(
            "SELECT phash, first_seen_at, image_url, page_url, doc_id FROM image_hashes ORDER BY rowid"
        ).fetchall()
        if not rows:
            return []
        stored = np.array([row[0] for row in rows], dtype=np.int64).view(np.uint64) ^ np.uint64(_SIGN)
        differing = np.unpackbits((stored ^ np.uint64(phash)).view(np.uint8).reshape(-1, 8), axis=1)
        distances = differing.sum(axis=1)
        found = [
            ImageCopy(
                phash=int(stored[position]),
                first_seen_at=datetime.fromisoformat(rows[position][1]),
                image_url=rows[position][2],
                page_url=rows[position][3],
                doc_id=rows[position][4],
                distance=int(distances[position]),
            )
            for position in np.flatnonzero(distances <= max_distance).tolist()
        ]
        return sorted(found, key=lambda copy: (copy.first_seen_at, copy.page_url, copy.image_url))
