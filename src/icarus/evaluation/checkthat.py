"""Check-worthiness on real debate transcripts: the CLEF 2019 CheckThat! task 1 training transcripts.

Every sentence of 19 transcripts (debates, speeches, a press conference) is labelled 1 when a
fact-checker chose to check it. The lab ranks sentences and scores the ranking by average precision per
transcript (MAP over transcripts); a desk also needs the share of check-worthy sentences a threshold keeps
(recall) and the share of all lines it flags.

**The split** is fixed by this rule, written down before any figure was read: the transcripts are sorted
by the SHA-256 of ``"checkthat-2019\\x00" + file name``; the first ``DEV_TRANSCRIPTS`` are dev (read once,
for the record), the next ``TUNE_TRANSCRIPTS`` are tune (model and threshold choices), the rest train.
The lab's own test transcripts are held back and never read here.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

__all__ = [
    "CHECKTHAT_FILE",
    "DEV_TRANSCRIPTS",
    "TUNE_TRANSCRIPTS",
    "Line",
    "Part",
    "Transcript",
    "average_precision",
    "load_transcripts",
    "mean_average_precision",
    "part_of",
    "threshold_figures",
    "to_srt",
]

CHECKTHAT_FILE: Final = "checkthat-2019/CT19-T1-Training.csv"
"""The training transcripts, relative to the datasets folder."""

DEV_TRANSCRIPTS: Final = 4
TUNE_TRANSCRIPTS: Final = 3
_SPLIT_SALT: Final = "checkthat-2019\x00"
SECONDS_PER_WORD: Final = 0.4
"""Cue length when a transcript is written as captions: about 150 words a minute, a debate's pace."""
_CUE_GAP_S: Final = 0.12


class Part(StrEnum):
    TRAIN = "train"
    TUNE = "tune"
    DEV = "dev"


@dataclass(frozen=True, slots=True)
class Line:
    """One sentence as the transcript gives it: its number, speaker, words and the lab's label."""

    number: int
    speaker: str
    text: str
    check_worthy: bool


@dataclass(frozen=True, slots=True)
class Transcript:
    name: str
    lines: tuple[Line, ...]

    @property
    def positives(self) -> int:
        return sum(line.check_worthy for line in self.lines)


def load_transcripts(datasets: Path) -> list[Transcript]:
    """The transcripts in file order, each with its lines in spoken order."""
    path = datasets / CHECKTHAT_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: the CheckThat! 2019 training transcripts")
    by_file: dict[str, list[Line]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["label"] not in {"0", "1"}:
                raise ValueError(f"{path}: line {row['line_number']} of {row['file_name']} has no 0/1 label")
            by_file.setdefault(row["file_name"], []).append(
                Line(
                    int(row["line_number"]), row["speaker"].strip(), row["text"].strip(), row["label"] == "1"
                )
            )
    return [
        Transcript(name, tuple(sorted(lines, key=lambda line: line.number)))
        for name, lines in by_file.items()
    ]


def _split_key(name: str) -> str:
    return hashlib.sha256(f"{_SPLIT_SALT}{name}".encode()).hexdigest()


def part_of(names: Iterable[str]) -> dict[str, Part]:
    """Each transcript's part under the module's split rule."""
    ordered = sorted(names, key=_split_key)
    parts: dict[str, Part] = {}
    for index, name in enumerate(ordered):
        if index < DEV_TRANSCRIPTS:
            parts[name] = Part.DEV
        elif index < DEV_TRANSCRIPTS + TUNE_TRANSCRIPTS:
            parts[name] = Part.TUNE
        else:
            parts[name] = Part.TRAIN
    return parts


def average_precision(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Average precision of the ranking by ``scores`` (highest first; ties keep the given order, as a
    stable sort does): the mean of precision at each check-worthy line's rank; 0 with none."""
    if len(scores) != len(labels):
        raise ValueError(f"{len(scores)} scores for {len(labels)} labels")
    order = sorted(range(len(scores)), key=lambda index: -scores[index])
    found = 0
    total = 0.0
    for rank, index in enumerate(order, start=1):
        if labels[index]:
            found += 1
            total += found / rank
    return total / found if found else 0.0


def mean_average_precision(rankings: Iterable[tuple[Sequence[float], Sequence[bool]]]) -> float:
    values = [average_precision(scores, labels) for scores, labels in rankings]
    return sum(values) / len(values) if values else 0.0


@dataclass(frozen=True, slots=True)
class ThresholdFigures:
    """What a threshold keeps over a set of lines."""

    lines: int
    check_worthy: int
    flagged: int
    found: int

    @property
    def recall(self) -> float:
        return self.found / self.check_worthy if self.check_worthy else 0.0

    @property
    def flagged_share(self) -> float:
        return self.flagged / self.lines if self.lines else 0.0

    @property
    def precision(self) -> float:
        return self.found / self.flagged if self.flagged else 0.0


def threshold_figures(
    scores: Sequence[float], labels: Sequence[bool], flagged: Callable[[float], bool]
) -> ThresholdFigures:
    """Recall, flagged share and precision of the lines ``flagged`` keeps."""
    kept = [flagged(score) for score in scores]
    return ThresholdFigures(
        lines=len(scores),
        check_worthy=sum(labels),
        flagged=sum(kept),
        found=sum(1 for keep, label in zip(kept, labels, strict=True) if keep and label),
    )


def _stamp(seconds: float) -> str:
    millis = round(seconds * 1000)
    hours, millis = divmod(millis, 3_600_000)
    minutes, millis = divmod(millis, 60_000)
    secs, millis = divmod(millis, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d},{millis:03d}"


def to_srt(transcript: Transcript, *, limit: int | None = None) -> bytes:
    """The transcript as an SRT caption file: one cue per sentence, opened with its speaker (``NAME:``),
    timed at ``SECONDS_PER_WORD``. Stage directions ("(APPLAUSE)") are left out, as captions leave out
    what nobody says. ``limit`` keeps the first sentences only."""
    cues: list[str] = []
    clock = 1.0
    for line in transcript.lines:
        if limit is not None and len(cues) >= limit:
            break
        text = " ".join(line.text.split())
        if not text or (text.startswith(("(", "[")) and text.endswith((")", "]"))):
            continue
        speaker = " ".join(line.speaker.split())[:40] or "SPEAKER"
        length = max(1.0, SECONDS_PER_WORD * len(text.split()))
        cues.append(f"{len(cues) + 1}\n{_stamp(clock)} --> {_stamp(clock + length)}\n{speaker}: {text}\n")
        clock += length + _CUE_GAP_S
    return "\n".join(cues).encode()
