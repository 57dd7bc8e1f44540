"""OCR of attached images: RapidOCR readings, exact token offsets, a second pass, hostile input, and G2.

Images are drawn here with OpenCV; nothing is downloaded. Tests that run the OCR model are marked
``needs_model`` (skipped when rapidocr_onnxruntime is missing, or with ``ICARUS_SKIP_OCR_MODEL=1``); the
model loads once per module. The rest use fake engines and run in milliseconds.
"""

from __future__ import annotations

import importlib.util
import os
import stat
import struct
import zlib
from decimal import Decimal
from pathlib import Path

import cv2
import numpy as np
import pytest

from icarus.capture import CaptureError
from icarus.capture.ocr import (
    IMAGE_SEPARATOR,
    OcrEngineError,
    OcrLine,
    OcrReading,
    RapidOcrEngine,
    TesseractEngine,
    _second_pass,
    _unit,
    _Word,
    attach_image_text,
    decode_image,
    image_size,
    read_image,
)
from icarus.ledger import CapturedImage, FieldName, Subject
from icarus.scoring.icarus.config import load_policy
from icarus.scoring.icarus.engine import score_ledger
from tests.builders import claim, item, ledger, subject

SENTENCE = "Inflation hit 1.8% last year"

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("rapidocr_onnxruntime") is None
    or os.environ.get("ICARUS_SKIP_OCR_MODEL") == "1",
    reason="needs the RapidOCR model (rapidocr_onnxruntime), or ICARUS_SKIP_OCR_MODEL=1 is set",
)


# --- images and fake engines ---------------------------------------------------------------------------


def render(text: str = SENTENCE, *, width: int = 1000, height: int = 300) -> np.ndarray:
    image = np.full((height, width, 3), 255, np.uint8)
    # Scale 1.3, stroke 2: every character of SENTENCE reads at 0.97 or more. At heavier strokes the
    # "l" of "Inflation" sits near a tie with "I", and on some CPUs it reads at under 0.6.
    cv2.putText(image, text, (30, height // 2 + 20), cv2.FONT_HERSHEY_SIMPLEX, 1.3, (0, 0, 0), 2, cv2.LINE_AA)
    return image


def encode(image: np.ndarray, ext: str = ".png", params: list[int] | None = None) -> bytes:
    ok, buffer = cv2.imencode(ext, image, params or [])
    assert ok
    return buffer.tobytes()


def degrade(image: np.ndarray) -> np.ndarray:
    """Blur and heavy noise: still legible to a person, read with visibly lower confidence."""
    blurred = cv2.GaussianBlur(image, (0, 0), 3.0)
    noise = np.random.default_rng(7).normal(0, 45, blurred.shape)
    degraded: np.ndarray = np.clip(blurred.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    return degraded


def box(left: float, top: float, right: float, bottom: float) -> tuple[tuple[float, float], ...]:
    return ((left, top), (right, top), (right, bottom), (left, bottom))


class FakeEngine:
    """Returns fixed lines; counts reads. ``lines`` may be given as plain strings (one row each)."""

    def __init__(self, *lines: OcrLine | str, name: str = "fake", available: bool = True) -> None:
        self.name = name
        self.version = "1"
        self._available = available
        self.reads = 0
        self.lines = [
            line
            if isinstance(line, OcrLine)
            else OcrLine(text=line, confidence=0.97, box=box(10, 40 * i, 500, 40 * i + 30))
            for i, line in enumerate(lines)
        ]

    def available(self) -> bool:
        return self._available

    def read(self, image_bytes: bytes) -> OcrReading:
        self.reads += 1
        return OcrReading(lines=list(self.lines))


class BrokenEngine(FakeEngine):
    def read(self, image_bytes: bytes) -> OcrReading:
        raise OcrEngineError("boom")


def assert_exact(image: CapturedImage, text: str | None = None) -> None:
    text = image.ocr_text if text is None else text
    for token in image.tokens:
        assert text[token.span.start : token.span.end] == token.text
        assert Decimal(0) <= token.confidence <= Decimal(1)


@pytest.fixture(scope="module")
def png() -> bytes:
    return encode(render())


@pytest.fixture(scope="module")
def engine() -> RapidOcrEngine:
    return RapidOcrEngine()


@pytest.fixture(scope="module")
def clear_reading(engine: RapidOcrEngine, png: bytes) -> CapturedImage:
    return read_image(png, "img-clear", "https://pbs.twimg.com/media/clear.png", engine)


# --- RapidOCR on real pixels ---------------------------------------------------------------------------


@needs_model
def test_rapidocr_reads_a_clear_screenshot(clear_reading: CapturedImage, png: bytes) -> None:
    import hashlib

    words = [token.text for token in clear_reading.tokens]
    assert "1.8%" in words
    assert "Inflation" in clear_reading.ocr_text
    assert clear_reading.sha256 == hashlib.sha256(png).hexdigest()
    assert_exact(clear_reading)
    figure = next(token for token in clear_reading.tokens if token.text == "1.8%")
    assert figure.confidence >= Decimal("0.90")
    assert figure.second_pass_text is None
    # The G2 tests below take this image as clear; say so here first if the model reads it otherwise.
    weakest = min(clear_reading.tokens, key=lambda token: token.confidence)
    assert weakest.confidence >= Decimal("0.90"), f"{weakest.text!r} read at {weakest.confidence}"


@needs_model
def test_a_blurred_noisy_screenshot_reads_with_lower_confidence(
    engine: RapidOcrEngine, clear_reading: CapturedImage
) -> None:
    noisy = read_image(encode(degrade(render())), "img-noisy", None, engine)
    assert_exact(noisy)
    assert noisy.tokens
    clear = [token.confidence for token in clear_reading.tokens]
    blurred = [token.confidence for token in noisy.tokens]
    assert min(blurred) < min(clear)
    assert sum(blurred) / len(blurred) < sum(clear) / len(clear)


@needs_model
def test_second_engine_reading_18_percent_marks_that_token(engine: RapidOcrEngine, png: bytes) -> None:
    second = FakeEngine("Inflation hit 18% last year", name="second")
    image = read_image(png, "img-1", None, engine, second)
    assert second.reads == 1
    marked = {token.text: token.second_pass_text for token in image.tokens}
    assert marked["1.8%"] == "18%"
    assert [text for word, text in marked.items() if word != "1.8%"] == [None] * (len(marked) - 1)


@needs_model
def test_rapidocr_refuses_non_images_itself(engine: RapidOcrEngine) -> None:
    with pytest.raises(CaptureError):
        engine.read(b"GIF89a not supported")


# --- G2 on a scored ledger ------------------------------------------------------------------------------


def scored_image_claim(image: CapturedImage) -> tuple[dict[str, object], str]:
    subj = attach_image_text(subject(), [image])
    field = subj.field_text(FieldName.IMAGE_TEXT)
    assert field is not None
    c = claim(text=field, source=field, field=FieldName.IMAGE_TEXT)
    led = ledger([item("a"), item("b")], claims=[c], subject=subj)
    result = score_ledger(led, load_policy("icarus@1.1"))
    return result, field


def claim_gates(result: dict[str, object]) -> list[tuple[str, str]]:
    trace = result["trace"]
    assert isinstance(trace, dict)
    return [(g["gate"], g["effect"]) for g in trace["claims"][0]["gates"]]


def claim_label(result: dict[str, object]) -> str:
    claims = result["claims"]
    assert isinstance(claims, list)
    label = claims[0]["label"]
    assert isinstance(label, str)
    return label


@needs_model
def test_G2_fires_when_a_second_pass_reads_the_figure_differently(engine: RapidOcrEngine, png: bytes) -> None:
    disputed = read_image(png, "img-1", None, engine, FakeEngine("Inflation hit 18% last year"))
    result, _ = scored_image_claim(disputed)
    assert claim_label(result) == "unverifiable"
    assert ("G2", "unverifiable") in claim_gates(result)
    claims = result["claims"]
    assert isinstance(claims, list)
    messages = " ".join(reason["message"] for reason in claims[0]["reasons"])
    assert "1.8%" in messages and "18%" in messages


@needs_model
def test_G2_stays_quiet_on_a_clear_undisputed_reading(clear_reading: CapturedImage) -> None:
    result, _ = scored_image_claim(clear_reading)
    assert "G2" not in [gate for gate, _ in claim_gates(result)]
    assert claim_label(result) == "supported"


@needs_model
def test_G2_fires_on_a_low_confidence_reading(engine: RapidOcrEngine) -> None:
    noisy = read_image(encode(degrade(render())), "img-noisy", None, engine)
    if all(token.confidence >= Decimal("0.90") for token in noisy.tokens):
        pytest.skip("this onnxruntime build read the degraded image confidently")
    result, _ = scored_image_claim(noisy)
    assert ("G2", "unverifiable") in claim_gates(result)


def test_G2_fires_for_a_disagreeing_token_with_fake_engines(png: bytes) -> None:
    image = read_image(png, "img-1", None, FakeEngine(SENTENCE), FakeEngine("Inflation hit 18% last year"))
    result, field = scored_image_claim(image)
    assert field == SENTENCE
    assert claim_label(result) == "unverifiable"
    assert ("G2", "unverifiable") in claim_gates(result)
    agreed = read_image(png, "img-1", None, FakeEngine(SENTENCE), FakeEngine(SENTENCE))
    assert claim_label(scored_image_claim(agreed)[0]) == "supported"


# --- reading order, tokens, confidences -------------------------------------------------------------------


def test_lines_are_read_top_to_bottom_then_left_to_right(png: bytes) -> None:
    engine = FakeEngine(
        OcrLine("Bottom row", 0.99, box(20, 200, 400, 240)),
        OcrLine("right box", 0.99, box(520, 22, 900, 58)),
        OcrLine("Left box", 0.99, box(20, 20, 400, 60)),
    )
    image = read_image(png, "i", None, engine)
    assert image.ocr_text == "Left box right box\nBottom row"
    assert [t.text for t in image.tokens] == ["Left", "box", "right", "box", "Bottom", "row"]
    assert_exact(image)


def test_token_confidence_is_its_weakest_character_and_lines_are_stripped(png: bytes) -> None:
    text = " hit 1.8% "
    chars = (0.5, 0.99, 0.98, 0.97, 0.2, 0.99, 0.95, 0.91, 0.99, 0.4)
    image = read_image(png, "i", None, FakeEngine(OcrLine(text, 0.8, box(0, 0, 10, 10), chars)))
    assert image.ocr_text == "hit 1.8%"
    assert [(t.text, t.confidence) for t in image.tokens] == [
        ("hit", Decimal("0.97")),
        ("1.8%", Decimal("0.91")),
    ]
    without = read_image(png, "i", None, FakeEngine(OcrLine("hit 1.8%", 0.8, box(0, 0, 10, 10))))
    assert [t.confidence for t in without.tokens] == [Decimal("0.8"), Decimal("0.8")]


def test_confidences_are_cut_down_never_rounded_up() -> None:
    assert _unit(0.89996) == Decimal("0.8999")
    assert _unit(1.0000001) == Decimal("1")
    assert _unit(-0.1) == Decimal("0")
    assert _unit(float("nan")) == Decimal("0")


def test_an_empty_reading_gives_no_text_and_no_tokens(png: bytes) -> None:
    image = read_image(png, "i", None, FakeEngine())
    assert image.ocr_text == "" and image.tokens == []


def words(*texts: str) -> list[_Word]:
    return [_Word(text, 0, len(text), 0.99) for text in texts]


@pytest.mark.parametrize(
    ("second", "expected"),
    [
        (["Inflation", "hit", "1.8%", "last", "year"], [None] * 5),
        (["Inflation", "hit", "18%", "last", "year"], [None, None, "18%", None, None]),
        # Only the spacing differs: the same characters were read.
        (["Inflation", "hit", "1.8", "%", "last", "year"], [None] * 5),
        # Split differently and read differently: the whole run is on record.
        (["Inflation", "hit", "1", "8%", "last", "year"], [None, None, "1 8%", None, None]),
        # The second pass did not read the figure at all.
        (["Inflation", "hit", "last", "year"], [None, None, "", None, None]),
        # The second pass read an extra word: recorded on the word before it.
        (["Inflation", "hit", "not", "1.8%", "last", "year"], [None, "hit not", None, None, None]),
        (["Only", "Inflation", "hit", "1.8%", "last", "year"], ["Only Inflation", None, None, None, None]),
    ],
)
def test_second_pass_alignment(second: list[str], expected: list[str | None]) -> None:
    assert _second_pass(words(*SENTENCE.split()), words(*second)) == expected


def test_second_pass_is_skipped_when_unavailable_or_broken(png: bytes) -> None:
    absent = FakeEngine("Inflation hit 18% last year", available=False)
    for second in (absent, BrokenEngine("x"), None):
        image = read_image(png, "i", None, FakeEngine(SENTENCE), second)
        assert all(token.second_pass_text is None for token in image.tokens)
    assert absent.reads == 0


# --- Tesseract adapter ------------------------------------------------------------------------------------


def test_tesseract_without_a_binary_reports_not_run(png: bytes) -> None:
    tesseract = TesseractEngine(binary="icarus-no-such-tesseract-binary")
    assert not tesseract.available()
    assert tesseract.version.startswith("not run")
    with pytest.raises(OcrEngineError, match="not run"):
        tesseract.read(png)
    image = read_image(png, "i", None, FakeEngine(SENTENCE), tesseract)
    assert all(token.second_pass_text is None for token in image.tokens)


TSV = (
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    "1\t1\t0\t0\t0\t0\t0\t0\t1000\t300\t-1\t\n"
    "4\t1\t1\t1\t1\t0\t30\t130\t600\t40\t-1\t\n"
    "5\t1\t1\t1\t1\t1\t30\t130\t180\t40\t96.5\tInflation\n"
    "5\t1\t1\t1\t1\t2\t220\t130\t50\t40\t95.1\thit\n"
    "5\t1\t1\t1\t1\t3\t280\t130\t90\t40\t61.25\t18%\n"
    "5\t1\t1\t1\t1\t4\t380\t130\t70\t40\t93.0\tlast\n"
    "5\t1\t1\t1\t1\t5\t460\t130\t80\t40\t94.0\tyear\n"
)


@pytest.mark.skipif(os.name != "posix", reason="fake tesseract is a shell script")
def test_tesseract_adapter_parses_tsv_from_a_fake_binary(png: bytes, tmp_path: Path) -> None:
    (tmp_path / "out.tsv").write_text(TSV, encoding="utf-8")
    script = tmp_path / "tesseract"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "tesseract 5.3.0"; exit 0; fi\n'
        "cat > /dev/null\n"
        f"cat '{tmp_path / 'out.tsv'}'\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    tesseract = TesseractEngine(binary=str(script))
    assert tesseract.available() and tesseract.version == "tesseract 5.3.0"
    reading = tesseract.read(png)
    assert [line.text for line in reading.lines] == ["Inflation hit 18% last year"]
    image = read_image(png, "i", None, tesseract)
    assert [(t.text, t.confidence) for t in image.tokens][2] == ("18%", Decimal("0.6125"))
    disputed = read_image(png, "i", None, FakeEngine(SENTENCE), tesseract)
    assert [t.second_pass_text for t in disputed.tokens] == [None, None, "18%", None, None]


# --- attach_image_text ------------------------------------------------------------------------------------


def test_attach_image_text_shifts_spans_to_index_the_field(png: bytes) -> None:
    first = read_image(png, "3_111", None, FakeEngine("MARROW JOBLESS RATE", "hit 3.1% in January"))
    second = read_image(png, "3_222", "https://pbs.twimg.com/media/b.png", FakeEngine(SENTENCE))
    blank = read_image(png, "3_333", None, FakeEngine())
    base = subject().model_copy(
        update={
            "images": [
                CapturedImage(image_id="3_222", url="https://x/b.png"),
                CapturedImage(image_id="3_444"),
            ]
        }
    )
    subj = attach_image_text(base, [first, second, blank])
    field = subj.field_text(FieldName.IMAGE_TEXT)
    # The subject's own images come first, in its order; new readings follow.
    assert field == SENTENCE + IMAGE_SEPARATOR + "MARROW JOBLESS RATE\nhit 3.1% in January"
    image_field = next(f for f in subj.fields if f.name is FieldName.IMAGE_TEXT)
    assert image_field.artifact_id == "3_222"
    assert subj.field_text(FieldName.POST_TEXT) == base.field_text(FieldName.POST_TEXT)
    assert [i.image_id for i in subj.images] == ["3_222", "3_444", "3_111", "3_333"]
    assert subj.images[0].url == "https://pbs.twimg.com/media/b.png"
    tokens = [token for image in subj.images for token in image.tokens]
    assert len(tokens) == 5 + 7
    for token in tokens:
        assert field[token.span.start : token.span.end] == token.text
    # Each image keeps its own text; the originals passed in are untouched.
    assert subj.images[2].ocr_text == first.ocr_text
    assert_exact(first)
    # Attaching again replaces the field rather than adding a second one.
    again = attach_image_text(subj.model_copy(update={"images": []}), [first])
    assert [f.name for f in again.fields].count(FieldName.IMAGE_TEXT) == 1
    assert again.field_text(FieldName.IMAGE_TEXT) == first.ocr_text
    Subject.model_validate(subj.model_dump())


def test_attach_image_text_keeps_the_subject_image_url_and_skips_the_field_when_nothing_was_read(
    png: bytes,
) -> None:
    base = subject().model_copy(update={"images": [CapturedImage(image_id="m1", url="https://x/m1.jpg")]})
    subj = attach_image_text(base, [read_image(png, "m1", None, FakeEngine())])
    assert subj.images[0].url == "https://x/m1.jpg"
    assert subj.field_text(FieldName.IMAGE_TEXT) is None


def test_attach_image_text_refuses_inconsistent_readings(png: bytes) -> None:
    image = read_image(png, "i", None, FakeEngine(SENTENCE))
    with pytest.raises(CaptureError, match="twice"):
        attach_image_text(subject(), [image, image])
    shifted = image.model_copy(update={"ocr_text": "x" + image.ocr_text})
    with pytest.raises(CaptureError, match="does not match"):
        attach_image_text(subject(), [shifted])
    attached = attach_image_text(subject(), [image])
    with pytest.raises(CaptureError, match="already carries"):
        attach_image_text(attached, [])


# --- hostile input ----------------------------------------------------------------------------------------


def png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    crc = struct.pack(">I", zlib.crc32(chunk) & 0xFFFFFFFF)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + crc


def test_a_decompression_bomb_is_refused_from_its_header_before_decoding() -> None:
    bomb = png_header(60_000, 60_000) + zlib.compress(b"\x00" * 100_000)
    engine = FakeEngine(SENTENCE)
    with pytest.raises(CaptureError, match="pixels"):
        read_image(bomb, "i", None, engine)
    assert engine.reads == 0
    with pytest.raises(CaptureError, match="pixels"):
        decode_image(bomb)


def test_a_jpeg_declaring_a_huge_frame_is_refused() -> None:
    jpeg = bytearray(encode(render(), ".jpg"))
    sof = next(i for i in range(2, len(jpeg) - 1) if jpeg[i] == 0xFF and jpeg[i + 1] in (0xC0, 0xC2))
    jpeg[sof + 5 : sof + 9] = struct.pack(">HH", 65_000, 65_000)
    with pytest.raises(CaptureError, match="pixels"):
        read_image(bytes(jpeg), "i", None, FakeEngine(SENTENCE))


def test_oversized_files_are_refused() -> None:
    big = png_header(100, 100) + b"\x00" * (20 * 1024 * 1024)
    with pytest.raises(CaptureError, match="limit"):
        read_image(big, "i", None, FakeEngine(SENTENCE))
    with pytest.raises(CaptureError, match="limit"):
        read_image(encode(render()), "i", None, FakeEngine(SENTENCE), max_bytes=1_000)
    with pytest.raises(CaptureError, match="pixels"):
        read_image(encode(render()), "i", None, FakeEngine(SENTENCE), max_pixels=1_000)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"hello, world",
        b"<!doctype html><html></html>",
        b"%PDF-1.7\n",
        b"GIF89a\x01\x00\x01\x00",
        b"\x89PNG",
    ],
)
def test_non_images_raise_capture_error(data: bytes) -> None:
    with pytest.raises(CaptureError):
        read_image(data, "i", None, FakeEngine(SENTENCE))


def test_wrong_types_and_ids_raise_capture_error(png: bytes) -> None:
    with pytest.raises(CaptureError, match="bytes"):
        read_image("not bytes", "i", None, FakeEngine(SENTENCE))  # type: ignore[arg-type]
    with pytest.raises(CaptureError, match="image_id"):
        read_image(png, " ", None, FakeEngine(SENTENCE))


def test_a_truncated_image_fails_to_decode_cleanly(png: bytes) -> None:
    with pytest.raises(CaptureError, match="decoded"):
        decode_image(png[:200])


@pytest.mark.parametrize(
    ("ext", "params"),
    [
        (".png", []),
        (".jpg", [cv2.IMWRITE_JPEG_QUALITY, 90]),
        (".jpg", [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]),
        (".webp", [cv2.IMWRITE_WEBP_QUALITY, 80]),
        (".webp", [cv2.IMWRITE_WEBP_QUALITY, 101]),  # lossless: VP8L
        (".bmp", []),
    ],
)
def test_header_sizes_match_the_pixels(ext: str, params: list[int]) -> None:
    image = render(width=640, height=200)
    data = encode(image, ext, params)
    _, width, height = image_size(data)
    assert (width, height) == (640, 200)
    assert decode_image(data).shape == (200, 640, 3)


def test_transparent_and_grey_images_decode_to_bgr_on_white() -> None:
    rgba = np.zeros((50, 80, 4), np.uint8)  # fully transparent black
    assert decode_image(encode(rgba)).min() == 255
    grey = np.full((50, 80), 128, np.uint8)
    assert decode_image(encode(grey)).shape == (50, 80, 3)
