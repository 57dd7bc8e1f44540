"""OCR of attached still images: what text an image shows, token by token, with confidences (G2).

The primary engine is RapidOCR (PP-OCRv4 detection and recognition run by onnxruntime); its models ship
inside the ``rapidocr_onnxruntime`` wheel and are loaded from there, so nothing is downloaded at run time.
The second pass a check runs is the same engine on the image redrawn at another scale
(``capture/ocr_scale.RescaledEngine``). Tesseract can stand in as a second engine where a ``tesseract``
binary is on ``PATH``; otherwise ``TesseractEngine.available()`` is False and it is not run.

Flow: ``read_image`` checks the bytes (size, format and pixel count read from the header, before anything
is decoded), asks the primary engine for lines, orders them, joins them into ``ocr_text`` and splits
them into word tokens with exact offsets and conservative confidences; a second engine's reading is
aligned word by word and recorded where it differs. ``attach_image_text`` then puts the readings on a
subject, with the concatenated text as its ``image_text`` field and token spans shifted to index it,
which is what G2 reads.

Offsets: ``read_image`` returns tokens whose spans index that image's own ``ocr_text``;
``attach_image_text`` returns images whose token spans index the subject's ``image_text`` field.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import shutil
import struct
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from importlib import metadata
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from icarus.capture._common import MAX_TEXT_CHARS, CaptureError
from icarus.ledger.base import Span
from icarus.ledger.subject import CapturedField, CapturedImage, FieldName, OcrToken, Subject

__all__ = [
    "IMAGE_SEPARATOR",
    "MAX_IMAGE_BYTES",
    "MAX_IMAGE_PIXELS",
    "OcrEngine",
    "OcrEngineError",
    "OcrLine",
    "OcrReading",
    "RapidOcrEngine",
    "TesseractEngine",
    "attach_image_text",
    "decode_image",
    "image_size",
    "read_image",
]

MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""Largest image file accepted, in bytes (X serves photos of a few MB). Larger input is refused."""

MAX_IMAGE_PIXELS = 40_000_000
"""Most pixels (width × height, from the file header) accepted: decoded as BGR that is 120 MB. Checked
before decoding, so a decompression bomb (a small file declaring a huge canvas) is refused unread."""

IMAGE_SEPARATOR = "\n\n"
"""Between the texts of two images in the subject's ``image_text`` field."""

ROW_SEPARATOR = "\n"
"""Between two rows of text within one image."""

BOX_SEPARATOR = " "
"""Between two boxes read on the same row of one image."""

CONFIDENCE_STEP = Decimal("0.0001")
"""Confidences are cut (never rounded up) to this step, so 0.89996 stays below a 0.90 minimum."""

_TOKEN = re.compile(r"\S+")


class OcrEngineError(RuntimeError):
    """An OCR engine could not read an image it was given (crash, timeout, missing dependency)."""


# --- readings ------------------------------------------------------------------------------------------


Point = tuple[float, float]


@dataclass(frozen=True)
class OcrLine:
    """One line of text an engine read, with its score and where it sits in the image.

    ``box`` is the line's quadrilateral in image pixels, as the engine gives it (RapidOCR: top-left,
    top-right, bottom-right, bottom-left). ``char_confidences``, when the engine provides them, holds one
    score per character of ``text`` (same length); tokens then take the lowest score among their
    characters instead of the line's ``confidence``.
    """

    text: str
    confidence: float
    box: tuple[Point, ...]
    char_confidences: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if self.char_confidences is not None and len(self.char_confidences) != len(self.text):
            raise ValueError(
                f"{len(self.char_confidences)} character confidences for {len(self.text)} characters"
            )
        if not self.box:
            raise ValueError("an OCR line needs a box")

    @property
    def top(self) -> float:
        return min(y for _, y in self.box)

    @property
    def bottom(self) -> float:
        return max(y for _, y in self.box)

    @property
    def left(self) -> float:
        return min(x for x, _ in self.box)


@dataclass(frozen=True)
class OcrReading:
    """Every line one engine read from one image, in the engine's order."""

    lines: list[OcrLine]


class OcrEngine(Protocol):
    """An OCR engine: reads image bytes into lines. ``available()`` is False when it cannot run here."""

    name: str
    version: str

    def available(self) -> bool: ...

    def read(self, image_bytes: bytes) -> OcrReading: ...


# --- hostile input ---------------------------------------------------------------------------------------


def image_size(image_bytes: bytes) -> tuple[str, int, int]:
    """``(format, width, height)`` read from the file header alone, without decoding any pixels.

    Accepts PNG, JPEG, WebP and BMP. Raises ``CaptureError`` for anything else or a malformed header.
    """
    data = image_bytes
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise CaptureError("image is a malformed PNG (no IHDR header)")
        width, height = struct.unpack(">II", data[16:24])
        return "png", width, height
    if data.startswith(b"\xff\xd8"):
        width, height = _jpeg_size(data)
        return "jpeg", width, height
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        width, height = _webp_size(data)
        return "webp", width, height
    if data.startswith(b"BM") and len(data) >= 26:
        (header_size,) = struct.unpack("<I", data[14:18])
        if header_size == 12:
            width, height = struct.unpack("<HH", data[18:22])
        elif header_size >= 40:
            width, height = struct.unpack("<ii", data[18:26])
        else:
            raise CaptureError("image is a malformed BMP header")
        return "bmp", abs(width), abs(height)
    raise CaptureError("not a supported image: expected PNG, JPEG, WebP or BMP data")


# Start-of-frame markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
_JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
# Markers without a length field.
_JPEG_STANDALONE = frozenset({0x01, *range(0xD0, 0xD9)})


def _jpeg_size(data: bytes) -> tuple[int, int]:
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise CaptureError("image is a malformed JPEG (bad marker)")
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in _JPEG_STANDALONE:
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if length < 2:
            raise CaptureError("image is a malformed JPEG (bad segment length)")
        if marker in _JPEG_SOF:
            if pos + 9 > len(data):
                break
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        if marker == 0xDA:  # start of scan before any frame header
            break
        pos += 2 + length
    raise CaptureError("image is a malformed JPEG (no frame header)")


def _webp_size(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
        return width, height
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    raise CaptureError("image is a malformed WebP header")


def check_image(
    image_bytes: bytes, *, max_bytes: int = MAX_IMAGE_BYTES, max_pixels: int = MAX_IMAGE_PIXELS
) -> tuple[str, int, int]:
    """Refuse what must not be decoded: non-bytes, empty, over ``max_bytes``, not an image, or a header
    declaring more than ``max_pixels``. Returns ``(format, width, height)``."""
    if not isinstance(image_bytes, bytes | bytearray | memoryview):
        raise CaptureError(f"image must be bytes, not {type(image_bytes).__name__}")
    data = bytes(image_bytes)
    if not data:
        raise CaptureError("image is empty")
    if len(data) > max_bytes:
        raise CaptureError(f"image is {len(data):,} bytes; the limit is {max_bytes:,}")
    kind, width, height = image_size(data)
    if width <= 0 or height <= 0:
        raise CaptureError(f"image declares an empty canvas ({width}×{height})")
    if width * height > max_pixels:
        raise CaptureError(
            f"image declares {width}×{height} = {width * height:,} pixels; the limit is {max_pixels:,}"
        )
    return kind, width, height


def decode_image(
    image_bytes: bytes, *, max_bytes: int = MAX_IMAGE_BYTES, max_pixels: int = MAX_IMAGE_PIXELS
) -> npt.NDArray[np.uint8]:
    """Checked bytes → a BGR ``uint8`` array. Transparent pixels are flattened onto white, so dark text
    on a transparent background stays readable. Raises ``CaptureError`` for input ``check_image``
    refuses or that does not decode."""
    check_image(image_bytes, max_bytes=max_bytes, max_pixels=max_pixels)
    import cv2

    buffer = np.frombuffer(bytes(image_bytes), dtype=np.uint8)
    image = cv2.imdecode(buffer, cv2.IMREAD_UNCHANGED)
    if image is None or image.size == 0:
        raise CaptureError("image could not be decoded (truncated or corrupt)")
    height, width = image.shape[:2]
    if width * height > max_pixels:  # the decoder disagreed with the header
        raise CaptureError(f"image decodes to {width}×{height} pixels; the limit is {max_pixels:,}")
    if image.dtype != np.uint8:  # 16-bit PNG
        image = (image // 257).astype(np.uint8)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        alpha = image[:, :, 3:4].astype(np.float32) / 255.0
        flat = image[:, :, :3].astype(np.float32) * alpha + 255.0 * (1.0 - alpha)
        image = flat.astype(np.uint8)
    elif image.shape[2] != 3:
        raise CaptureError(f"image has {image.shape[2]} channels; expected 1, 3 or 4")
    return np.ascontiguousarray(image, dtype=np.uint8)


# --- engines -------------------------------------------------------------------------------------------


def _dist_version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


class RapidOcrEngine:
    """RapidOCR with its bundled PP-OCRv4 models on onnxruntime (CPU). No network access.

    The model loads once, on first ``read`` (about 0.2 s), and is shared by later reads; loading is
    guarded by a lock. ``text_score`` is RapidOCR's own floor: lines scored below it are not returned.
    Per-character scores are requested (``return_word_box``), so a token's confidence is its weakest
    character's; if that part of RapidOCR fails, the line score is used instead.
    """

    name = "rapidocr"

    def __init__(self, *, text_score: float = 0.5) -> None:
        self.text_score = text_score
        self.version = (
            f"rapidocr_onnxruntime {_dist_version('rapidocr_onnxruntime')} (PP-OCRv4); "
            f"onnxruntime {_dist_version('onnxruntime')}"
        )
        self._model: Any = None
        self._lock = threading.Lock()

    def available(self) -> bool:
        return _dist_version("rapidocr_onnxruntime") != "not installed"

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from rapidocr_onnxruntime import RapidOCR
                except ImportError as exc:  # pragma: no cover - depends on the install
                    raise OcrEngineError(f"rapidocr_onnxruntime is not installed: {exc}") from exc
                self._model = RapidOCR()
            return self._model

    def read(self, image_bytes: bytes) -> OcrReading:
        return self.read_pixels(decode_image(image_bytes))

    def read_pixels(self, image: npt.NDArray[np.uint8]) -> OcrReading:
        """Read an already decoded BGR image (what a second reading at another scale passes)."""
        model = self._load()
        # Passing any keyword resets RapidOCR's thresholds to its defaults, so all are given.
        options = {"box_thresh": 0.5, "unclip_ratio": 1.6, "text_score": self.text_score}
        try:
            result, _ = model(image, return_word_box=True, **options)
        except Exception:
            try:
                result, _ = model(image, return_word_box=False, **options)
            except Exception as exc:
                raise OcrEngineError(f"RapidOCR failed: {type(exc).__name__}: {exc}") from exc
        return OcrReading(lines=[_rapid_line(row) for row in result or []])


def _rapid_line(row: Sequence[Any]) -> OcrLine:
    """A RapidOCR result row: ``[box, text, score]``, plus with word boxes
    ``[word_boxes, word_texts, char_scores]`` where ``char_scores`` has one score per character."""
    box = tuple((float(x), float(y)) for x, y in row[0])
    text = str(row[1])
    score = float(row[2])
    chars: tuple[float, ...] | None = None
    if len(row) >= 6 and isinstance(row[5], list | tuple) and len(row[5]) == len(text):
        chars = tuple(float(value) for value in row[5])
    return OcrLine(text=text, confidence=score, box=box, char_confidences=chars)


class TesseractEngine:
    """Tesseract as an optional second pass, run as a subprocess (TSV output, word confidences).

    Used only when a ``tesseract`` binary is found on ``PATH``; otherwise ``available()`` is False,
    ``version`` is ``"not run: no tesseract binary found"`` and ``read`` raises ``OcrEngineError``.
    """

    name = "tesseract"

    def __init__(self, *, binary: str = "tesseract", language: str = "eng", timeout_s: float = 60.0) -> None:
        self.binary = shutil.which(binary)
        self.language = language
        self.timeout_s = timeout_s
        self.version = self._detect_version() if self.binary else "not run: no tesseract binary found"

    def available(self) -> bool:
        return self.binary is not None

    def _detect_version(self) -> str:
        assert self.binary is not None
        try:
            done = subprocess.run(
                [self.binary, "--version"], capture_output=True, timeout=10, check=False, text=True
            )
        except (OSError, subprocess.TimeoutExpired):
            return "unknown"
        first = (done.stdout or done.stderr).strip().splitlines()
        return first[0] if first else "unknown"

    def read(self, image_bytes: bytes) -> OcrReading:
        if self.binary is None:
            raise OcrEngineError("tesseract is not installed: second OCR pass not run")
        check_image(image_bytes)
        command = [self.binary, "stdin", "stdout", "-l", self.language, "--psm", "3", "tsv"]
        env = os.environ | {"OMP_THREAD_LIMIT": "1"}
        try:
            done = subprocess.run(
                command, input=bytes(image_bytes), capture_output=True, timeout=self.timeout_s, env=env
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise OcrEngineError(f"tesseract failed: {exc}") from exc
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip()[:300]
            raise OcrEngineError(f"tesseract exited with {done.returncode}: {message}")
        return parse_tesseract_tsv(done.stdout.decode("utf-8", "replace"))


def parse_tesseract_tsv(tsv: str) -> OcrReading:
    """Tesseract's TSV (one row per word, ``conf`` 0-100) → lines of words joined by single spaces.

    Each character of a word carries the word's confidence; a space carries the lower of its neighbours'.
    """
    rows = tsv.splitlines()
    if not rows:
        return OcrReading(lines=[])
    header = rows[0].split("\t")
    try:
        col = {name: header.index(name) for name in ("level", "block_num", "par_num", "line_num")}
        col |= {name: header.index(name) for name in ("left", "top", "width", "height", "conf", "text")}
    except ValueError as exc:
        raise OcrEngineError(f"unexpected tesseract TSV header: {rows[0][:200]!r}") from exc
    lines: dict[tuple[str, str, str], list[tuple[str, float, float, float, float, float]]] = {}
    for row in rows[1:]:
        cells = row.split("\t")
        if len(cells) < len(header) or cells[col["level"]] != "5":
            continue
        text = cells[col["text"]].strip()
        if not text:
            continue
        try:
            conf = min(max(float(cells[col["conf"]]) / 100.0, 0.0), 1.0)
            left, top = float(cells[col["left"]]), float(cells[col["top"]])
            width, height = float(cells[col["width"]]), float(cells[col["height"]])
        except ValueError:
            continue
        key = (cells[col["block_num"]], cells[col["par_num"]], cells[col["line_num"]])
        lines.setdefault(key, []).append((text, conf, left, top, width, height))
    out: list[OcrLine] = []
    for words in lines.values():
        text = " ".join(word for word, *_ in words)
        chars: list[float] = []
        for index, (word, conf, *_) in enumerate(words):
            if index:
                chars.append(min(conf, words[index - 1][1]))
            chars.extend([conf] * len(word))
        x0 = min(w[2] for w in words)
        y0 = min(w[3] for w in words)
        x1 = max(w[2] + w[4] for w in words)
        y1 = max(w[3] + w[5] for w in words)
        box = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
        line_conf = sum(w[1] for w in words) / len(words)
        out.append(OcrLine(text=text, confidence=line_conf, box=box, char_confidences=tuple(chars)))
    return OcrReading(lines=out)


# --- reading order and tokens ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Word:
    text: str
    start: int
    end: int
    confidence: float


def _rows(lines: Sequence[OcrLine]) -> list[list[OcrLine]]:
    """Reading order: top to bottom, then left to right. A line joins the current row when its vertical
    centre lies within the row's first line's top..bottom band; rows are then ordered left to right."""
    rows: list[list[OcrLine]] = []
    for line in sorted(lines, key=lambda item: (item.top, item.left)):
        centre = (line.top + line.bottom) / 2
        if rows and rows[-1][0].top <= centre <= rows[-1][0].bottom:
            rows[-1].append(line)
        else:
            rows.append([line])
    return [sorted(row, key=lambda item: item.left) for row in rows]


def _layout(reading: OcrReading) -> tuple[str, list[_Word]]:
    """Join a reading's lines into one text (rows by newline, boxes in a row by a space) and split it into
    whitespace-separated words with exact offsets and confidences (weakest character, else the line's)."""
    parts: list[str] = []
    words: list[_Word] = []
    offset = 0
    for row in _rows(reading.lines):
        placed = 0
        for line in row:
            lead = len(line.text) - len(line.text.lstrip())
            text = line.text.strip()
            if not text:
                continue
            if parts:
                separator = BOX_SEPARATOR if placed else ROW_SEPARATOR
                parts.append(separator)
                offset += len(separator)
            placed += 1
            for match in _TOKEN.finditer(text):
                if line.char_confidences is not None:
                    scores = line.char_confidences[lead + match.start() : lead + match.end()]
                    confidence = min(scores)
                else:
                    confidence = line.confidence
                words.append(_Word(match.group(), offset + match.start(), offset + match.end(), confidence))
            parts.append(text)
            offset += len(text)
    return "".join(parts), words


def _unit(value: float) -> Decimal:
    """A float score as a ledger ``Unit``: clamped to [0, 1], cut down (never up) to 4 decimals."""
    if value != value:  # NaN
        return Decimal(0)
    clamped = min(max(value, 0.0), 1.0)
    return Decimal(repr(clamped)).quantize(CONFIDENCE_STEP, rounding=ROUND_DOWN)


def _second_pass(first: list[_Word], second: list[_Word]) -> list[str | None]:
    """For each first-pass word, what the second pass read there, or None where both agree.

    Alignment: the two word sequences (each in reading order) are matched with ``difflib``'s
    ``SequenceMatcher`` on exact word text. Matched words agree (None). In a replaced run of equal length
    the words pair one to one. In a replaced run of unequal length the texts are compared with whitespace
    removed: equal means only the spacing differs (agree); otherwise every first-pass word of the run gets
    the second pass's whole run, space-joined. A first-pass word the second pass did not read at all gets
    ``""``. Words only the second pass read are appended to the preceding first-pass word's entry
    (or prepended to the following one at the start), so that disagreement is on record too.
    """
    a = [word.text for word in first]
    b = [word.text for word in second]
    out: list[str | None] = [None] * len(a)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "delete":
            for i in range(i1, i2):
                out[i] = ""
        elif tag == "replace":
            if i2 - i1 == j2 - j1:
                for offset in range(i2 - i1):
                    out[i1 + offset] = b[j1 + offset]
            elif "".join(a[i1:i2]) != "".join(b[j1:j2]):
                run = " ".join(b[j1:j2])
                for i in range(i1, i2):
                    out[i] = run
        elif tag == "insert" and a:
            extra = " ".join(b[j1:j2])
            if i1 > 0:
                previous = out[i1 - 1]
                out[i1 - 1] = f"{a[i1 - 1] if previous is None else previous} {extra}"
            else:
                following = out[0]
                out[0] = f"{extra} {a[0] if following is None else following}"
    return out


def read_image(
    image_bytes: bytes,
    image_id: str,
    url: str | None,
    primary: OcrEngine,
    second: OcrEngine | None = None,
    *,
    max_bytes: int = MAX_IMAGE_BYTES,
    max_pixels: int = MAX_IMAGE_PIXELS,
) -> CapturedImage:
    """OCR one image into a ``CapturedImage``: its SHA-256, ``ocr_text`` in reading order and one token
    per whitespace-separated word, with spans indexing ``ocr_text``.

    Reading order is top to bottom, then left to right; rows are joined by a newline and boxes on one row
    by a space, each line's text stripped of surrounding whitespace but otherwise verbatim. A token's
    confidence is the lowest per-character score in it when the engine gives them, else the line's score,
    cut down to 4 decimals. When ``second`` is given and ``available()``, its reading is aligned with the
    first (see ``_second_pass``) and ``second_pass_text`` is set on each token it read differently; if the
    second engine is unavailable or fails, the image is returned without a second pass.

    Raises ``CaptureError`` for input that must not be decoded (see ``check_image``; the limits given
    here can only tighten the engines' own, which are the module defaults) or that does not decode, and
    ``OcrEngineError`` if the primary engine fails.
    """
    if not isinstance(image_id, str) or not image_id.strip():
        raise CaptureError("image_id must be a non-empty string")
    check_image(image_bytes, max_bytes=max_bytes, max_pixels=max_pixels)
    data = bytes(image_bytes)
    text, words = _layout(primary.read(data))
    disagreements: list[str | None] = [None] * len(words)
    if second is not None and second.available() and words:
        try:
            _, second_words = _layout(second.read(data))
        except OcrEngineError:
            second_words = None
        if second_words is not None:
            disagreements = _second_pass(words, second_words)
    tokens = [
        OcrToken(
            text=word.text,
            span=Span(start=word.start, end=word.end),
            confidence=_unit(word.confidence),
            second_pass_text=other,
        )
        for word, other in zip(words, disagreements, strict=True)
    ]
    return CapturedImage(
        image_id=image_id, url=url, sha256=hashlib.sha256(data).hexdigest(), ocr_text=text, tokens=tokens
    )


def attach_image_text(subject: Subject, images: list[CapturedImage]) -> Subject:
    """A new subject carrying these OCR readings, with their text as its ``image_text`` field.

    ``images`` are ``read_image`` results (token spans index each image's own ``ocr_text``). A reading
    replaces the subject's image with the same ``image_id`` (keeping that image's URL when the reading has
    none); other readings are appended. The field is the images' non-empty texts in that order joined by
    ``IMAGE_SEPARATOR``; its ``artifact_id`` is the first such image's id. Every token span is shifted to
    index the field, so ``field[token.span.start:token.span.end] == token.text`` (what G2 relies on). Any
    earlier ``image_text`` field is replaced; with no text read, the subject has none.

    Raises ``CaptureError`` for duplicate image ids, tokens that do not match their image's text, an
    unread subject image that already carries tokens, or a field over ``MAX_TEXT_CHARS``.
    """
    readings: dict[str, CapturedImage] = {}
    for image in images:
        if image.image_id in readings:
            raise CaptureError(f"image {image.image_id!r} is given twice")
        for token in image.tokens:
            if token.span.slice(image.ocr_text) != token.text:
                raise CaptureError(
                    f"image {image.image_id!r}: token {token.text!r} does not match its span in ocr_text"
                )
        readings[image.image_id] = image
    merged: list[CapturedImage] = []
    for existing in subject.images:
        reading = readings.pop(existing.image_id, None)
        if reading is None:
            if existing.tokens:
                raise CaptureError(f"image {existing.image_id!r} already carries OCR tokens")
            merged.append(existing)
        else:
            merged.append(reading if reading.url else reading.model_copy(update={"url": existing.url}))
    merged.extend(readings.values())

    parts: list[str] = []
    placed: list[CapturedImage] = []
    artifact_id: str | None = None
    offset = 0
    for image in merged:
        if not image.ocr_text:
            placed.append(image)
            continue
        if parts:
            parts.append(IMAGE_SEPARATOR)
            offset += len(IMAGE_SEPARATOR)
        artifact_id = artifact_id or image.image_id
        shifted = [
            token.model_copy(
                update={"span": Span(start=token.span.start + offset, end=token.span.end + offset)}
            )
            for token in image.tokens
        ]
        placed.append(image.model_copy(update={"tokens": shifted}))
        parts.append(image.ocr_text)
        offset += len(image.ocr_text)
    field_text = "".join(parts)
    if len(field_text) > MAX_TEXT_CHARS:
        raise CaptureError(f"image text is {len(field_text):,} characters; the limit is {MAX_TEXT_CHARS:,}")

    fields = [field for field in subject.fields if field.name is not FieldName.IMAGE_TEXT]
    if artifact_id is not None:
        fields.append(CapturedField(name=FieldName.IMAGE_TEXT, text=field_text, artifact_id=artifact_id))
    return subject.model_copy(update={"images": placed, "fields": fields})
