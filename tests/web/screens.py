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


# Chromium's console words for anything a page's Content-Security-Policy refused.
CSP_REFUSAL: Final = "Content Security Policy"
_refusals: dict[int, list[str]] = {}  # id(page): what its console said the policy refused


class WatchedBrowser:
    """A playwright browser whose pages (``new_page``, or a ``new_context``'s) note every refusal by the
    Content-Security-Policy their console reports; ``check_page`` fails a page with any."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def _watch(self, page: Any) -> Any:
        seen = _refusals.setdefault(id(page), [])
        page.on("console", lambda message: seen.append(message.text) if CSP_REFUSAL in message.text else None)
        return page

    def new_page(self, **options: Any) -> Any:
        return self._watch(self._browser.new_page(**options))

    def new_context(self, **options: Any) -> Any:
        context = self._browser.new_context(**options)
        context.on("page", self._watch)
        return context

    def forget(self, page: Any) -> None:
        """Drop what ``page`` had refused (a test that provoked the refusals on purpose)."""
        _refusals.pop(id(page), None)

    def refusals(self) -> list[str]:
        return [text for texts in _refusals.values() for text in texts]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


def policy_refusals(page: Any) -> list[str]:
    """What the page's Content-Security-Policy refused so far, as the console said it."""
    return list(_refusals.get(id(page), []))


def check_page(page: Any, name: str) -> None:
    """The checks every page gets at every width: no sideways scrolling, nothing refused by the page's
    Content-Security-Policy, and a drawn screenshot kept."""
    assert fits(page), f"{name} scrolls sideways at {page.viewport_size['width']} px"
    assert not policy_refusals(page), f"{name}: {policy_refusals(page)}"
    assert is_drawn(screenshot(page, name)), f"{name} is blank"
