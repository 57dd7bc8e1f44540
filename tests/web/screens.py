"""Screenshots of the pages, kept as test artifacts: every browser test of a page writes one per width.

They go to ``$ICARUS_SCREENSHOT_DIR`` when set, else ``.artifacts/screenshots/`` at the repository root
(ignored by git), named ``<page>-<width>.png``, so a person (or CI, as an uploaded artifact) can look at
what each page looked like at phone and desktop widths after the run."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any, Final

from PIL import Image, ImageStat

WIDTHS: Final = (375, 1280)
SCREENSHOT_DIR: Final = Path(
    os.environ.get("ICARUS_SCREENSHOT_DIR") or Path(__file__).parents[2] / ".artifacts" / "screenshots"
)


def is_drawn(png: bytes) -> bool:
    """Not a blank page: enough distinct tones and real contrast."""
    image = Image.open(io.BytesIO(png)).convert("L")
    extrema = image.getextrema()
    return ImageStat.Stat(image).stddev[0] > 10 and extrema[1] - extrema[0] > 150


def fits(page: Any) -> bool:
    """Nothing scrolls sideways: the document is no wider than the window."""
    width: int = page.evaluate("document.documentElement.scrollWidth")
    viewport: int = page.evaluate("window.innerWidth")
    return width <= viewport


def screenshot(page: Any, name: str) -> bytes:
    """The whole page as a PNG, saved as ``<name>-<viewport width>.png`` in ``SCREENSHOT_DIR``."""
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"]
    png: bytes = page.screenshot(full_page=True, path=str(SCREENSHOT_DIR / f"{name}-{width}.png"))
    return png


def check_page(page: Any, name: str) -> None:
    """The checks every page gets at every width: no sideways scrolling, and a drawn screenshot kept."""
    assert fits(page), f"{name} scrolls sideways at {page.viewport_size['width']} px"
    assert is_drawn(screenshot(page, name)), f"{name} is blank"
