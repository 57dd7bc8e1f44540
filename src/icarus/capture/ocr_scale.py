"""A second OCR reading of the same image redrawn at another scale: where the two disagree on a word, G2
sees two passes disagreeing and the claim abstains.

Why a second scale as well as the confidence floor: a figure misread on a blurred, recompressed or
downscaled screenshot usually reads well below the floor, but not always, and character scores near the
floor vary between runs and CPUs ("Exports" read as "Exp0rts" passed the floor in one run and not in
another). The recogniser sees other pixels when the image is redrawn at another scale, so a reading that
holds at both scales is kept and one that changes is not trusted.
``bench/ocr_degraded.py`` measures this on degraded renderings of text with known figures
(docs/checking.md, "Figures read from images").
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np
import numpy.typing as npt

from icarus.capture.ocr import MAX_IMAGE_PIXELS, OcrLine, OcrReading, decode_image

__all__ = ["SECOND_READING_SCALE", "PixelEngine", "RescaledEngine"]

SECOND_READING_SCALE = 1.5
"""The second reading redraws the image at this many times its size (bench/ocr_degraded.py chose it)."""


class PixelEngine(Protocol):
    """An engine that can read decoded BGR pixels as well as image bytes (``RapidOcrEngine``)."""

    name: str
    version: str

    def available(self) -> bool: ...

    def read_pixels(self, image: npt.NDArray[np.uint8]) -> OcrReading: ...


class RescaledEngine:
    """The same engine reading the image redrawn at ``scale`` (bicubic up, area down). Boxes come back in
    the original image's pixels. The scale is lowered where the redrawn image would pass
    ``MAX_IMAGE_PIXELS``, so a large screenshot is read at the largest scale allowed, never refused."""

    def __init__(self, engine: PixelEngine, *, scale: float = SECOND_READING_SCALE) -> None:
        if not scale > 0 or scale == 1:
            raise ValueError(f"a second reading needs another scale than 1, not {scale}")
        self.engine = engine
        self.scale = scale
        self.name = f"{engine.name} at {scale:g}\u00d7"
        self.version = f"{engine.version}; image redrawn at {scale:g}\u00d7"

    def available(self) -> bool:
        return self.engine.available()

    def effective_scale(self, width: int, height: int) -> float:
        """``scale``, lowered so that the redrawn image stays within ``MAX_IMAGE_PIXELS``."""
        most = math.sqrt(MAX_IMAGE_PIXELS / (width * height))
        return min(self.scale, most)

    def read(self, image_bytes: bytes) -> OcrReading:
        import cv2

        image = decode_image(image_bytes)
        height, width = image.shape[:2]
        scale = self.effective_scale(width, height)
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        interpolation = cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA
        redrawn = np.ascontiguousarray(cv2.resize(image, size, interpolation=interpolation), dtype=np.uint8)
        reading = self.engine.read_pixels(redrawn)
        back = (width / size[0], height / size[1])
        return OcrReading(
            lines=[
                OcrLine(
                    text=line.text,
                    confidence=line.confidence,
                    box=tuple((x * back[0], y * back[1]) for x, y in line.box),
                    char_confidences=line.char_confidences,
                )
                for line in reading.lines
            ]
        )
