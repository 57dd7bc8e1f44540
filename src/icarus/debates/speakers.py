"""The speaker gate: claim detection waits until every voice heard in the debate has a name.

Pure functions over what was heard (diarization labels in first-heard order) and the speaker map
(label -> name). Two modes follow the source:

* live stream: the detector runs, but its batches are withheld while any heard label is unnamed and the
  backlog is released in order once all are named (``release_backlog``, or ``LiveGate`` in memory);
* file ingest: detection does not run until every label is named, unless the caller skips the wait
  (``may_run_detection``). Unnamed voices are then shown as "Speaker N", N their first-heard position.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

from icarus.debates.errors import DebateError, UnknownSpeaker
from icarus.debates.model import Segment

__all__ = [
    "MAX_SPEAKER_NAME_CHARS",
    "InvalidSpeakerName",
    "LiveGate",
    "LiveRelease",
    "UnknownSpeaker",
    "heard_labels",
    "implicit_names",
    "is_diarization_label",
    "known_names",
    "may_run_detection",
    "release_backlog",
    "speaker_display_name",
    "speakers_waiting",
    "unnamed_voices",
    "validate_speaker_map",
]

MAX_SPEAKER_NAME_CHARS: Final = 120
"""Longest name a speaker map may give a voice."""

Batch = TypeVar("Batch")


class InvalidSpeakerName(DebateError, ValueError):
    """A name in the speaker map is empty, too long or holds control characters."""

    http_status = 422

    def __init__(self, label: str, reason: str) -> None:
        self.label = label
        self.reason = reason
        super().__init__(f"name for {label!r} {reason}")


_DIARIZATION_LABEL = re.compile(
    r"(?:speaker|spk|spkr|voice|unknown|guest)?[\s_-]*\d+|s\d+|[a-z]", re.IGNORECASE
)


def is_diarization_label(label: str) -> bool:
    """Whether ``label`` is a diarizer's placeholder (SPEAKER_1, Speaker 2, spk_0, S3, A) and not a name."""
    return bool(_DIARIZATION_LABEL.fullmatch(label.strip()))


def implicit_names(heard: Sequence[str]) -> dict[str, str]:
    """Labels that are names already ("Helena Marsh" from a ``<v Helena Marsh>`` voice tag, "MODERATOR"),
    each named as itself; merge the speaker map over them."""
    return {label: label.strip() for label in heard if label.strip() and not is_diarization_label(label)}


def known_names(heard: Sequence[str], names: Mapping[str, str]) -> dict[str, str]:
    """The names detection and the gate go by: voice-tag names heard (``implicit_names``), with the speaker
    map over them."""
    return {**implicit_names(heard), **names}


def heard_labels(segments: Iterable[Segment]) -> list[str]:
    """Every speaker label in ``segments``, once each, in the order first heard."""
    return list(dict.fromkeys(segment.speaker_label for segment in segments if segment.speaker_label))


def speakers_waiting(heard: Sequence[str], names: Mapping[str, str]) -> list[str]:
    """The heard labels that have no name yet, in first-heard order (``speakers_waiting`` on a debate)."""
    return [label for label in dict.fromkeys(heard) if not names.get(label, "").strip()]


def unnamed_voices(heard: Sequence[str], speakers: Mapping[str, str]) -> list[str]:
    """The heard labels still unnamed by the speaker map: a voice tag that is a name ("Helena Marsh") names
    itself."""
    return speakers_waiting(heard, known_names(heard, speakers))


def may_run_detection(heard: Sequence[str], names: Mapping[str, str], skip_speakers: bool) -> list[str]:
    """File mode: the labels deferred detection still waits for; empty means it may start now.

    ``skip_speakers`` starts it anyway: unnamed voices stay "Speaker N" and their identity-dependent
    claims wait for a name (``DetectedClaim.needs_speaker``).
    """
    return [] if skip_speakers else speakers_waiting(heard, names)


def speaker_display_name(label: str | None, heard: Sequence[str], names: Mapping[str, str]) -> str | None:
    """The name to show for ``label``: its mapped name, else "Speaker N" (N its first-heard position)."""
    if label is None:
        return None
    name = names.get(label, "").strip()
    if name:
        return name
    order = list(dict.fromkeys(heard))
    position = order.index(label) + 1 if label in order else len(order) + 1
    return f"Speaker {position}"


def validate_speaker_map(mapping: Mapping[str, str], heard: Sequence[str]) -> dict[str, str]:
    """The speaker map as stored: names stripped, every label checked against what was heard.

    Raises ``UnknownSpeaker`` listing every label not heard in this debate, and ``InvalidSpeakerName`` for
    an empty name, one longer than ``MAX_SPEAKER_NAME_CHARS`` or one holding control characters.
    """
    known = set(heard)
    unknown = [label for label in mapping if label not in known]
    if unknown:
        raise UnknownSpeaker(unknown)
    cleaned: dict[str, str] = {}
    for label, name in mapping.items():
        if not isinstance(name, str):
            raise InvalidSpeakerName(label, "must be text")
        stripped = name.strip()
        if not stripped:
            raise InvalidSpeakerName(label, "is empty")
        if len(stripped) > MAX_SPEAKER_NAME_CHARS:
            raise InvalidSpeakerName(label, f"is longer than {MAX_SPEAKER_NAME_CHARS} characters")
        if any(not char.isprintable() for char in stripped):
            raise InvalidSpeakerName(label, "holds control characters")
        cleaned[label] = stripped
    return cleaned


@dataclass(frozen=True, slots=True)
class LiveRelease(Generic[Batch]):
    """What the live gate lets through now (in arrival order), what it keeps, and who it waits for."""

    released: tuple[Batch, ...]
    withheld: tuple[Batch, ...]
    still_waiting: tuple[str, ...]


def release_backlog(
    backlog: Sequence[Batch],
    heard: Sequence[str],
    names: Mapping[str, str],
    *,
    gate_enabled: bool = True,
) -> LiveRelease[Batch]:
    """Live mode: the whole backlog in order once every heard label is named, else nothing.

    ``heard`` must include the labels of the batches in the backlog. Without the gate every batch goes
    through as it comes.
    """
    waiting = speakers_waiting(heard, names) if gate_enabled else []
    if waiting:
        return LiveRelease(released=(), withheld=tuple(backlog), still_waiting=tuple(waiting))
    return LiveRelease(released=tuple(backlog), withheld=(), still_waiting=())


@dataclass(slots=True)
class LiveGate(Generic[Batch]):
    """``release_backlog`` with its state kept in memory: offer batches and names as they come."""

    gate_enabled: bool = True
    heard: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    backlog: list[Batch] = field(default_factory=list)

    def offer(self, batch: Batch, labels: Iterable[str | None]) -> list[Batch]:
        """A detection batch and the labels heard in it: the batches released by it, in order."""
        for label in labels:
            if label and label not in self.heard:
                self.heard.append(label)
        self.backlog.append(batch)
        return self._release()

    def name(self, names: Mapping[str, str]) -> list[Batch]:
        """New or changed names: the batches they release, in order."""
        self.names.update(validate_speaker_map(names, self.heard))
        return self._release()

    @property
    def still_waiting(self) -> list[str]:
        return speakers_waiting(self.heard, self.names) if self.gate_enabled else []

    def _release(self) -> list[Batch]:
        decision = release_backlog(self.backlog, self.heard, self.names, gate_enabled=self.gate_enabled)
        self.backlog = list(decision.withheld)
        return list(decision.released)
