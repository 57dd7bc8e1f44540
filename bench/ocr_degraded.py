"""Figures read from degraded screenshots: how often OCR misreads one, and how often G2 lets it through.

Text with known figures is drawn with Pillow (its bundled font, so no system font is needed), then
degraded reproducibly: Gaussian blur, JPEG at quality 10 to 30, downscaling, skew, and downscaling with
recompression. Nothing is stored; every image is made here. Each image is read the way a check reads an
attached image: RapidOCR, then the second reading at another scale (``RescaledEngine``), aligned by
``read_image``. Each line is one claim from image text, and G2 decides it under the current policy, once
with the first reading alone and once with both.

A line is misread when it reads a figure that was not drawn (a number with any currency sign before it
or percent sign after it, commas and spaces ignored): "1.8%" read as "18%", "$41,000" as "S41000", "862"
as "882". A line whose figures were all lost (read as letters, no number left) states no figure, so it
cannot publish a wrong one; it is counted apart as lost. "Published" means G2 let the claim through. The
target is no misread line published; coverage is the share of clean lines published.

    .venv/bin/python -m bench.ocr_degraded [--quick]

``make bench`` (``python -m bench``) skips it unless given ``--ocr``.
``--quick`` reads two of the four cards. A full run reads 60 images twice (about 15 minutes on two
loaded cores); the figures in docs/checking.md come from a full run.
"""

from __future__ import annotations

import io
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from icarus.capture.ocr import RapidOcrEngine, attach_image_text, read_image
from icarus.capture.ocr_scale import RescaledEngine
from icarus.ledger import CapturedImage, Claim, FieldName, Ledger, Span, Subject, SubjectKind
from icarus.scoring.icarus.config import PolicyConfig, load_policy
from icarus.scoring.icarus.gates import g2_unreliable_image_text

POLICY = "icarus@1.2"
FONT_SIZE = 36
LINE_HEIGHT = 60
MARGIN = 30
WHEN = datetime(2026, 1, 1, tzinfo=UTC)

CARDS: tuple[tuple[str, ...], ...] = (
    ("Inflation hit 1.8% last year", "Unemployment fell to 3.7% in May", "The fund paid $41,000 to 862 families"),
    ("Turnout was 67.4% in 2019, up from 61.2%", "Only 3 of 58 schools met the 2024 target", "Exports rose 12% to 4.6 billion"),
    ("Prices up 0.9% since March", "A deficit of $1,250 million in 2023", "Crime fell 18% over 5 years"),
    ("Wages grew 2.4% while rents rose 7.1%", "The new line cost 96 million", "Only 1 in 40 homes had power"),
)  # fmt: skip

# A figure as a reader would take it: an optional currency sign (or the S OCR reads in its place), digits
# with any commas and a decimal part, an optional percent sign.
FIGURE = re.compile(r"[$£€S]?\d[\d,]*(?:\.\d+)?%?")


def figures(text: str) -> Counter[str]:
    return Counter(match.group().replace(",", "") for match in FIGURE.finditer(text.replace(" ", "")))


def render(lines: tuple[str, ...]) -> Image.Image:
    font = ImageFont.load_default(size=FONT_SIZE)
    width = int(max(font.getlength(line) for line in lines)) + 2 * MARGIN
    image = Image.new("RGB", (width, LINE_HEIGHT * len(lines) + 2 * MARGIN - 20), "white")
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(lines):
        draw.text((MARGIN, MARGIN - 10 + LINE_HEIGHT * row), line, font=font, fill="black")
    return image


def _encode(image: Image.Image, kind: str = "PNG", **options: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, kind, **options)
    return out.getvalue()


def _down(image: Image.Image, factor: int) -> Image.Image:
    size = (round(image.width / factor), round(image.height / factor))
    return image.resize(size, Image.Resampling.BILINEAR)


def _skew(image: Image.Image, degrees: float) -> Image.Image:
    return image.rotate(degrees, expand=True, fillcolor="white", resample=Image.Resampling.BICUBIC)


DEGRADATIONS: dict[str, Callable[[Image.Image], bytes]] = {
    "clean": lambda image: _encode(image),
    "blur 1.5 px": lambda image: _encode(image.filter(ImageFilter.GaussianBlur(1.5))),
    "blur 2.5 px": lambda image: _encode(image.filter(ImageFilter.GaussianBlur(2.5))),
    "JPEG q10": lambda image: _encode(image, "JPEG", quality=10),
    "JPEG q20": lambda image: _encode(image, "JPEG", quality=20),
    "JPEG q30": lambda image: _encode(image, "JPEG", quality=30),
    "1/3 size": lambda image: _encode(_down(image, 3)),
    "1/4 size": lambda image: _encode(_down(image, 4)),
    "skew 3°": lambda image: _encode(_skew(image, 3)),
    "skew 7°": lambda image: _encode(_skew(image, 7)),
    "1/3 size, JPEG q20": lambda image: _encode(_down(image, 3), "JPEG", quality=20),
    "blur 3 px": lambda image: _encode(image.filter(ImageFilter.GaussianBlur(3.0))),
    "1/5 size": lambda image: _encode(_down(image, 5)),
    "1/4 size, JPEG q30": lambda image: _encode(_down(image, 4), "JPEG", quality=30),
    "1/3 size, JPEG q10": lambda image: _encode(_down(image, 3), "JPEG", quality=10),
}


@dataclass(frozen=True)
class Decision:
    degradation: str
    truth: str
    read: str
    misread: bool
    lost: bool
    published_first_only: bool
    published: bool
    held: str | None = None


def line_claims(image: CapturedImage, truth: tuple[str, ...]) -> list[tuple[str, Claim]]:
    """One claim per drawn line. When OCR found as many rows as were drawn, each claim is its row;
    otherwise every line's claim is the whole text (a misread anywhere then counts against each)."""
    rows = image.ocr_text.split("\n")
    if len(rows) != len(truth):
        whole = Span(start=0, end=len(image.ocr_text))
        return [(line, Claim(claim_id="c", source_field=FieldName.IMAGE_TEXT, span=whole, text=image.ocr_text))
                for line in truth]  # fmt: skip
    claims = []
    offset = 0
    for line, row in zip(truth, rows, strict=True):
        span = Span(start=offset, end=offset + len(row))
        claims.append((line, Claim(claim_id="c", source_field=FieldName.IMAGE_TEXT, span=span, text=row)))
        offset += len(row) + 1
    return claims


def held_because(image: CapturedImage, claim: Claim, policy: PolicyConfig) -> str | None:
    """G2's reason for holding this claim, or None when it lets the claim through."""
    subject = attach_image_text(
        Subject(kind=SubjectKind.X_POST, subject_id="bench", captured_at=WHEN), [image]
    )
    ledger = Ledger(ledger_id="bench", as_of=WHEN, subject=subject, claims=[claim], evidence=[])
    return g2_unreliable_image_text(claim, ledger, policy)


def published(image: CapturedImage, claim: Claim, policy: PolicyConfig) -> bool:
    return held_because(image, claim, policy) is None


def first_only(image: CapturedImage) -> CapturedImage:
    tokens = [token.model_copy(update={"second_pass_text": None}) for token in image.tokens]
    return image.model_copy(update={"tokens": tokens})


def decide(
    image: CapturedImage, truth: tuple[str, ...], degradation: str, policy: PolicyConfig
) -> list[Decision]:
    if not image.ocr_text:
        return [Decision(degradation, line, "", False, bool(figures(line)), False, False) for line in truth]
    decisions = []
    whole = len(image.ocr_text.split("\n")) != len(truth)
    for line, claim in line_claims(image, truth):
        drawn = figures(" ".join(truth)) if whole else figures(line)
        read = figures(claim.text)
        decisions.append(
            Decision(
                degradation=degradation,
                truth=line,
                read=claim.text,
                misread=bool(read - drawn),
                lost=not read and bool(drawn),
                published_first_only=published(first_only(image), claim, policy),
                published=published(image, claim, policy),
                held=held_because(image, claim, policy),
            )
        )
    return decisions


def run(cards: tuple[tuple[str, ...], ...] = CARDS) -> tuple[list[Decision], float]:
    primary = RapidOcrEngine()
    second = RescaledEngine(primary)
    policy = load_policy(POLICY)
    decisions: list[Decision] = []
    started = time.perf_counter()
    reads = 0
    for number, card in enumerate(cards):
        drawn = render(card)
        for name, degrade in DEGRADATIONS.items():
            image = read_image(degrade(drawn), f"card{number}", None, primary, second)
            reads += 2
            decisions.extend(decide(image, card, name, policy))
    return decisions, (time.perf_counter() - started) / max(reads, 1)


def summary(decisions: list[Decision]) -> list[dict[str, Any]]:
    rows = []
    for name in [*DEGRADATIONS, "all"]:
        chosen = [d for d in decisions if name in ("all", d.degradation)]
        rows.append(
            {
                "rendering": name,
                "lines": len(chosen),
                "misread": sum(d.misread for d in chosen),
                "misread_published_first_reading": sum(d.misread and d.published_first_only for d in chosen),
                "misread_published": sum(d.misread and d.published for d in chosen),
                "lost": sum(d.lost for d in chosen),
                "lost_published": sum(d.lost and d.published for d in chosen),
                "published": sum(d.published for d in chosen),
            }
        )
    return rows


def main(argv: list[str]) -> dict[str, Any]:
    if "--ocr" not in argv:  # `make bench` runs every module; this one alone takes a quarter of an hour
        return {"runs": [], "skipped": "run on its own: python -m bench.ocr_degraded (or pass --ocr)"}
    cards = CARDS[:2] if "--quick" in argv else CARDS
    decisions, per_read = run(cards)
    clean = [d for d in decisions if d.degradation == "clean"]
    return {
        "runs": summary(decisions),
        "policy": POLICY,
        "second_reading": RescaledEngine(RapidOcrEngine()).name,
        "clean_lines_published": f"{sum(d.published for d in clean)} of {len(clean)}",
        "clean_lines_published_first_reading": f"{sum(d.published_first_only for d in clean)} of {len(clean)}",
        "clean_lines_held": [f"{d.truth!r}: {d.held}" for d in clean if d.held],
        "seconds_per_read": round(per_read, 2),
        "misreads": [
            f"{d.degradation}: {d.truth!r} read {d.read!r}, {'misread' if d.misread else 'lost'}, "
            f"published={d.published}"
            for d in decisions
            if d.misread or d.lost
        ],
    }


if __name__ == "__main__":
    result = main([*sys.argv[1:], "--ocr"])
    for row in result.pop("runs"):
        print(row)
    for key, value in result.items():
        print(f"{key}: {value}")
