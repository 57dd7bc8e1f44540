"""The debate pages in words: method names, confidence bands, what the panels found, when a claim was said
and where a debate stands. Pure functions of what the service and ``page_reads`` return.

Numbers are never typed into this prose: a confidence becomes a band by the default policy's own band
edges (``icarus.scoring.icarus.confidence.band_for``), and counts come from the panels themselves.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from decimal import Decimal
from functools import cache
from typing import Any, Final

from icarus.debates.model import RESEARCH_MODE_NAMES, ResearchMode, Verdict
from icarus.debates.page_reads import UploadProblem
from icarus.scoring.icarus.confidence import band_for
from icarus.scoring.icarus.config import DEFAULT_POLICY, PolicyConfig, load_policy

__all__ = [
    "ESCALATED_WORDS",
    "FOUND_WORDS",
    "confidence_band",
    "debate_status",
    "method_name",
    "panels_found",
    "said_at",
]

FOUND_WORDS: Final = {
    Verdict.TRUE.value: "found support",
    Verdict.FALSE.value: "found it false",
    Verdict.PARTIALLY_TRUE.value: "found it partly true",
    Verdict.MISLEADING.value: "found it misleading",
    Verdict.UNVERIFIABLE.value: "found too little evidence to decide",
}
"""What one panel found, by its verdict, as the end of "2 of 3 methods …"."""

NOTHING_DECIDED: Final = "No method found enough evidence to decide"
ESCALATED_WORDS: Final = "added by escalation: the methods before it did not settle the claim"


def method_name(mode: str) -> str:
    """A research method in words (``two_step`` → "quick search"); an unknown id as it is."""
    try:
        return RESEARCH_MODE_NAMES[ResearchMode(mode)]
    except ValueError:
        return mode.replace("_", " ")


@cache
def _policy() -> PolicyConfig:
    return load_policy(DEFAULT_POLICY)


def confidence_band(confidence: float | None) -> str | None:
    """The band (high, medium, low) a confidence score falls in under the default policy's band edges."""
    if confidence is None:
        return None
    return band_for(Decimal(str(confidence)), _policy()).value


def panels_found(panels: Sequence[Mapping[str, Any]]) -> str:
    """What the research panels found, counted: "No method found enough evidence to decide", "2 of 3
    methods found support; 1 found it false", "The quick search found support"; the methods still
    researching are counted too."""
    done = [p for p in panels if p.get("verdict") not in (None, Verdict.PENDING.value)]
    waiting = len(panels) - len(done)
    still = f"{waiting} still researching" if waiting else ""
    if not done:
        return f"{waiting} method{'s' if waiting != 1 else ''} still researching" if waiting else ""
    counts = Counter(str(p["verdict"]) for p in done)
    if set(counts) == {Verdict.UNVERIFIABLE.value}:
        words = NOTHING_DECIDED
    elif len(panels) == 1:
        words = f"The {method_name(str(done[0].get('research_mode', '')))} {_found(str(done[0]['verdict']))}"
    else:
        order = sorted(counts, key=lambda verdict: (-counts[verdict], verdict))
        parts = [f"{counts[order[0]]} of {len(panels)} methods {_found(order[0])}"]
        parts += [f"{counts[v]} {_found(v)}" for v in order[1:]]
        words = "; ".join(parts)
    return f"{words}; {still}" if still else words


def _found(verdict: str) -> str:
    return FOUND_WORDS.get(verdict, verdict.replace("_", " "))


def said_at(seconds: float | None) -> str | None:
    """Seconds into the recording as a clock reading: ``754.2`` → "12:34", ``3723`` → "1:02:03"."""
    if seconds is None:
        return None
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def debate_status(
    mode: str, segment_count: int, detection_state: str, problem: UploadProblem | None
) -> tuple[str, str]:
    """Where a debate stands, as (tone, words): a refused upload is failed, never "live"."""
    if problem is not None and segment_count == 0:
        return "bad", "Upload failed"
    if mode == "file":
        if detection_state in ("requested", "running"):
            return "unk", "Transcript uploaded, finding claims"
        if detection_state == "deferred":
            return "warn", "Transcript uploaded, waiting for speakers to be named"
        return "ok", "Transcript uploaded"
    if segment_count == 0:
        return "unk", "Waiting for a transcript or live captions"
    return "ok", "Live"
