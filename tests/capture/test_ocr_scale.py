"""The second OCR reading at another scale (G2): what it reads, the pixel limit, and G2's decisions at
the confidence floor's boundary. Fake engines run in milliseconds; the model tests draw text with Pillow."""

from __future__ import annotations

import math
from decimal import Decimal
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from bench import ocr_degraded

from icarus.capture.ocr import MAX_IMAGE_PIXELS, OcrLine, OcrReading, RapidOcrEngine, read_image
from icarus.capture.ocr_scale import SECOND_READING_SCALE, RescaledEngine
from icarus.ledger import CapturedImage
from icarus.scoring.icarus.config import load_policy
from tests.capture.test_ocr import (
    SENTENCE,
    FakeEngine,
    box,
    claim_gates,
    claim_label,
    encode,
    needs_model,
    render,
    scored_image_claim,
)

FLOOR = load_policy("icarus@1.1").gates.ocr_min_confidence


class PixelEngine:
    """Reads decoded pixels: records their size and answers one line boxed in the pixels it was given."""

    name = "pixels"
    version = "1"

    def __init__(self, text: str = SENTENCE) -> None:
        self.text = text
        self.sizes: list[tuple[int, int]] = []

    def available(self) -> bool:
        return True

    def read_pixels(self, image: npt.NDArray[np.uint8]) -> OcrReading:
        height, width = image.shape[:2]
        self.sizes.append((width, height))
        return OcrReading(
            lines=[OcrLine(self.text, 0.99, box(0.1 * width, 0.2 * height, 0.9 * width, 0.8 * height))]
        )


@pytest.fixture(scope="module")
def png() -> bytes:
    return encode(render(width=400, height=100))


def test_the_second_reading_sees_the_image_redrawn_and_answers_in_its_pixels(png: bytes) -> None:
    inner = PixelEngine()
    reading = RescaledEngine(inner, scale=1.5).read(png)
    assert inner.sizes == [(600, 150)]
    (line,) = reading.lines
    assert (
        line.left == pytest.approx(40) and line.top == pytest.approx(20) and line.bottom == pytest.approx(80)
    )


def test_the_scale_is_lowered_to_stay_within_the_pixel_limit() -> None:
    engine = RescaledEngine(PixelEngine(), scale=1.5)
    # Exactly at the limit once redrawn: the full scale.
    side = int(math.sqrt(MAX_IMAGE_PIXELS) / 1.5)
    assert engine.effective_scale(side, side) == 1.5
    # Larger: lowered so that width x height x scale^2 stays within the limit.
    scale = engine.effective_scale(4000, 5000)
    assert scale < 1.5 and 4000 * 5000 * scale**2 <= MAX_IMAGE_PIXELS * (1 + 1e-9)


@pytest.mark.parametrize("scale", [1, 0, -2])
def test_a_second_reading_needs_another_scale(scale: float) -> None:
    with pytest.raises(ValueError, match="another scale"):
        RescaledEngine(PixelEngine(), scale=scale)


def test_the_default_second_reading_is_larger_and_named() -> None:
    engine = RescaledEngine(RapidOcrEngine())
    assert engine.scale == SECOND_READING_SCALE != 1
    assert engine.name.startswith("rapidocr at ")


def test_a_figure_the_second_reading_reads_otherwise_abstains(png: bytes) -> None:
    image = read_image(
        png, "img", None, FakeEngine(SENTENCE), RescaledEngine(PixelEngine("Inflation hit 18% last year"))
    )
    result, _ = scored_image_claim(image)
    assert claim_label(result) == "unverifiable" and ("G2", "unverifiable") in claim_gates(result)


def test_readings_that_differ_only_in_spacing_publish(png: bytes) -> None:
    second = RescaledEngine(PixelEngine("Inflationhit 1.8%last year"))
    image = read_image(png, "img", None, FakeEngine(SENTENCE), second)
    assert all(token.second_pass_text is None for token in image.tokens)
    assert claim_label(scored_image_claim(image)[0]) == "supported"


def figure_read_at(confidence: float, png: bytes) -> CapturedImage:
    chars = tuple(confidence if text in "1.8%" else 0.99 for text in SENTENCE)
    line = OcrLine(SENTENCE, 0.99, box(0, 0, 10, 10), chars)
    return read_image(png, "img", None, FakeEngine(line), RescaledEngine(PixelEngine()))


def test_the_confidence_floor_boundary(png: bytes) -> None:
    at_floor = figure_read_at(float(FLOOR), png)
    assert next(t for t in at_floor.tokens if t.text == "1.8%").confidence == FLOOR
    assert claim_label(scored_image_claim(at_floor)[0]) == "supported"
    below = figure_read_at(float(FLOOR - Decimal("0.0001")), png)
    result, _ = scored_image_claim(below)
    assert claim_label(result) == "unverifiable" and ("G2", "unverifiable") in claim_gates(result)


# --- the model, on Pillow renderings ----------------------------------------------------------------------


@needs_model
def test_a_clear_rendering_reads_alike_at_both_scales_and_publishes() -> None:
    engine = RapidOcrEngine()
    image = read_image(
        ocr_degraded.DEGRADATIONS["clean"](ocr_degraded.render(("Inflation hit 1.8% last year",))),
        "img",
        None,
        engine,
        RescaledEngine(engine),
    )
    figure = next(token for token in image.tokens if "1.8%" in token.text)
    assert figure.second_pass_text is None and figure.confidence >= FLOOR + Decimal("0.05")


@needs_model
def test_on_a_degraded_card_every_misread_figure_abstains() -> None:
    engine = RapidOcrEngine()
    card = ocr_degraded.CARDS[0]
    image = read_image(
        ocr_degraded.DEGRADATIONS["1/3 size, JPEG q20"](ocr_degraded.render(card)),
        "img",
        None,
        engine,
        RescaledEngine(engine),
    )
    decisions = ocr_degraded.decide(image, card, "1/3 size, JPEG q20", load_policy("icarus@1.2"))
    assert len(decisions) == len(card)
    assert [d.truth for d in decisions if d.misread and d.published] == []


def test_a_check_reads_images_twice_the_second_time_at_another_scale(tmp_path: Path) -> None:
    from icarus.pipeline.services import build_services
    from icarus.settings import Settings

    services = build_services(Settings(data_dir=tmp_path), record=False)
    assert isinstance(services.second_ocr, RescaledEngine)
    assert services.second_ocr.engine is services.ocr
