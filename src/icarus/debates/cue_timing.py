"""Read one caption timing line ("00:00:01,000 --> 00:00:04,000") and say exactly what is wrong with it.

The caption libraries are lenient where a desk needs a reason. ``srt`` reads ``00:29:5X,000`` as 00:29:05
and keeps ``X,000`` as position data, so the fault surfaces later as "ends before it starts"; a line whose
arrow is mistyped is no timing line to it at all, so the cue is swallowed by the one before and the error
lands on that cue's (valid) timing. Reading the line here first lets an error name the faulty line and
the actual fault: the arrow, the start or end time with its text, or an end truly before the start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["ARROW", "SRT", "VTT", "TimingGrammar", "looks_like_timing", "timing_problem"]

ARROW: Final = "-->"

_QUOTED_CHARS: Final = 80
"""Longest excerpt of a faulty line quoted back in a reason."""

_ARROWISH: Final = r"\-–—=~>→⟶"
"""Characters a mistyped arrow is made of ("->", "==>", "—>", "→")."""

_SHAPE: Final = re.compile(
    rf"(?P<start>[^\s{_ARROWISH}]*)[ \t]*(?P<arrow>[{_ARROWISH}](?:[ \t]*[{_ARROWISH}])*)?[ \t]*"
    r"(?P<end>\S*)(?P<rest>.*)"
)
# Bounded repeats only: these run on lines of any length, and an unbounded digit run would backtrack.
_STAMP_START: Final = re.compile(r"[ \t]*\d{1,3}[,.:，．。：]\d{1,2}[,.:，．。：]\d{1,2}")
_STAMP_ANYWHERE: Final = re.compile(r"(?<!\d)\d{1,3}[,.:，．。：]\d{1,2}[,.:，．。：]\d{1,2}")


@dataclass(frozen=True)
class TimingGrammar:
    """One format's timestamp: its pattern (groups hours, minutes, seconds, milliseconds) and its name."""

    name: str
    stamp: re.Pattern[str]
    example: str

    def expected(self) -> str:
        return f"expected {self.example} {ARROW} {self.example}"


SRT: Final = TimingGrammar(
    "SRT",
    # The separators ``srt`` itself accepts; fields must be whole numbers of the usual width.
    re.compile(r"(\d{1,3})[,.:，．。：](\d{1,2})[,.:，．。：](\d{1,2})(?:[,.:，．。：](\d{1,3}))?"),
    "HH:MM:SS,mmm",
)
VTT: Final = TimingGrammar("WebVTT", re.compile(r"(?:(\d{2,3}):)?(\d{2}):(\d{2})\.(\d{3})"), "HH:MM:SS.mmm")


def looks_like_timing(line: str, *, where_a_timing_goes: bool) -> bool:
    """Whether a line without ``-->`` was meant as a timing line: it opens with a timestamp and sits where
    a timing goes (after a cue number or a blank line), or holds a second timestamp as well."""
    opening = _STAMP_START.match(line)
    if opening is None:
        return False
    return where_a_timing_goes or _STAMP_ANYWHERE.search(line, opening.end()) is not None


def timing_problem(line: str, grammar: TimingGrammar) -> str | None:
    """What is wrong with ``line`` as a cue timing line in ``grammar``; None when it reads correctly.

    Settings after the end time (SRT position data, WebVTT cue settings) are not checked here."""
    quoted = repr(line.strip()[:_QUOTED_CHARS])
    shape = _SHAPE.fullmatch(line.strip())
    if shape is None:  # unreachable in practice: every group may be empty
        return f"malformed cue timing {quoted} ({grammar.expected()})"
    start, arrow, end, rest = shape.group("start", "arrow", "end", "rest")
    if arrow is None:
        return f"malformed cue timing {quoted}: no {ARROW!r} between the start and end times"
    if arrow != ARROW:
        return f"malformed cue timing {quoted}: {arrow!r} where the arrow must be {ARROW!r}"
    if rest and not rest[0].isspace():
        end += rest.split(maxsplit=1)[0]
    start_ms = _milliseconds(start, grammar)
    if isinstance(start_ms, str):
        return f"malformed cue timing {quoted}: start time {start_ms}"
    end_ms = _milliseconds(end, grammar)
    if isinstance(end_ms, str):
        return f"malformed cue timing {quoted}: end time {end_ms}"
    if end_ms < start_ms:
        return f"the cue ends before it starts ({end} is earlier than {start})"
    return None


def _milliseconds(stamp: str, grammar: TimingGrammar) -> int | str:
    """The stamp in milliseconds, or why it is not a timestamp (a phrase that follows "start time")."""
    if not stamp:
        return f"missing ({grammar.expected()})"
    found = grammar.stamp.fullmatch(stamp)
    if found is None:
        return f"{stamp[:_QUOTED_CHARS]!r} is not a timestamp ({grammar.expected()})"
    hours, minutes, seconds, millis = (int(part) if part else 0 for part in found.groups())
    if minutes > 59 or seconds > 59:
        return f"{stamp!r} is not a timestamp (minutes and seconds run from 00 to 59)"
    return ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
