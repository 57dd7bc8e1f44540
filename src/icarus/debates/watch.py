"""The watched folder: caption files dropped into it become debates, researched as the operator chose.

``scan_folder`` looks at the folder's own files (not its subfolders) once and says which caption files
are new or changed since the last look (by content hash), which are still being written (modified
within the settle delay), and which are refused and why (over the size cap, not a regular file, a
symbolic link that leaves the folder, unreadable). It reads but never writes; the caller keeps the
hashes it has ingested and passes them back in as ``seen``.

``watch_research_modes`` reads the ``WATCH_RESEARCH_MODE`` setting: a comma-separated list of research
methods, the debate default (agentic, decompose) when empty, ``none`` to detect and persist claims only.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from icarus.debates.model import DEFAULT_RESEARCH_MODES, ResearchMode
from icarus.debates.transcripts import MAX_TRANSCRIPT_BYTES, TranscriptFormat

__all__ = [
    "CAPTION_SUFFIXES",
    "DEFAULT_SETTLE_SECONDS",
    "NO_RESEARCH",
    "CaptionFile",
    "FolderScan",
    "RejectedFile",
    "UnknownResearchMode",
    "scan_folder",
    "watch_research_modes",
]

CAPTION_SUFFIXES: Final = {
    ".vtt": TranscriptFormat.VTT,
    ".srt": TranscriptFormat.SRT,
    ".txt": TranscriptFormat.TEXT,
}
"""The files the folder watch reads, and the transcript format each suffix means."""

DEFAULT_SETTLE_SECONDS: Final = 5.0
"""A file modified more recently than this may still be being copied in: it waits for a later scan."""

NO_RESEARCH: Final = "none"
"""``WATCH_RESEARCH_MODE=none``: watched captions are detected and persisted, nothing researched."""


@dataclass(frozen=True, slots=True)
class CaptionFile:
    """A caption file to ingest: its name in the folder, format, content hash and the bytes hashed."""

    name: str
    path: Path
    fmt: TranscriptFormat
    sha256: str
    data: bytes
    changed: bool  # True when a file of this name was ingested before with other content


@dataclass(frozen=True, slots=True)
class RejectedFile:
    """A caption file the watch will not read, and why; reported on every scan while it stays."""

    name: str
    reason: str
    size: int | None = None


@dataclass(frozen=True, slots=True)
class FolderScan:
    """One look at the folder: what to ingest now, what to leave for the next look, what is refused."""

    ready: list[CaptionFile]
    settling: list[str]
    rejected: list[RejectedFile]


class UnknownResearchMode(ValueError):
    """``WATCH_RESEARCH_MODE`` names a method that does not exist."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        supported = ", ".join(mode.value for mode in ResearchMode)
        super().__init__(
            f"WATCH_RESEARCH_MODE: unknown research method {', '.join(map(repr, names))}; "
            f"supported: {supported}, or {NO_RESEARCH!r}"
        )


def scan_folder(
    path: str | os.PathLike[str],
    seen: Mapping[str, str],
    *,
    settle_seconds: float = DEFAULT_SETTLE_SECONDS,
    now: float | None = None,
    max_bytes: int = MAX_TRANSCRIPT_BYTES,
) -> FolderScan:
    """The caption files in ``path`` that are new or changed since ``seen`` (name -> SHA-256 ingested).

    Hidden files and other suffixes are not looked at. ``now`` (seconds since the epoch) is the clock the
    settle delay is measured against; the current time when absent.
    """
    root = Path(path).resolve(strict=True)
    clock = time.time() if now is None else now
    ready: list[CaptionFile] = []
    settling: list[str] = []
    rejected: list[RejectedFile] = []
    for entry in sorted(os.scandir(root), key=lambda item: item.name):
        name = entry.name
        fmt = CAPTION_SUFFIXES.get(Path(name).suffix.lower())
        if fmt is None or name.startswith("."):
            continue
        outcome = _look_at(root, Path(entry.path), clock, settle_seconds, max_bytes)
        if isinstance(outcome, RejectedFile):
            rejected.append(outcome)
        elif outcome is None:
            settling.append(name)
        else:
            digest = hashlib.sha256(outcome).hexdigest()
            previous = seen.get(name)
            if previous != digest:
                ready.append(
                    CaptionFile(
                        name=name,
                        path=Path(entry.path),
                        fmt=fmt,
                        sha256=digest,
                        data=outcome,
                        changed=previous is not None,
                    )
                )
    return FolderScan(ready=ready, settling=settling, rejected=rejected)


def _look_at(
    root: Path, path: Path, clock: float, settle_seconds: float, max_bytes: int
) -> bytes | RejectedFile | None:
    """The file's bytes; None while it may still be being written; or why it is refused."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return RejectedFile(path.name, "a broken symbolic link")
    if target.parent != root and root not in target.parents:
        return RejectedFile(path.name, "a symbolic link that leads outside the watched folder")
    try:
        # O_NOFOLLOW refuses a link swapped in after the path was resolved; O_NONBLOCK keeps a FIFO
        # (the same race) from blocking the scan.
        descriptor = os.open(target, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as error:
        return RejectedFile(path.name, f"cannot be opened: {os.strerror(error.errno or errno.EIO)}")
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            return RejectedFile(path.name, "not a regular file")
        if info.st_size > max_bytes:
            return RejectedFile(
                path.name, f"{info.st_size:,} bytes, over the {max_bytes:,}-byte limit", info.st_size
            )
        if clock - info.st_mtime < settle_seconds:
            return None
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    finally:
        os.close(descriptor)
    if len(data) > max_bytes:  # it grew while being read: still being written
        return None
    return data


def watch_research_modes(value: str | None) -> list[ResearchMode]:
    """The research methods for watched captions from ``WATCH_RESEARCH_MODE``.

    Empty or absent: the debate default (agentic, decompose). ``none``: no research (claims are still
    detected and persisted). Otherwise a comma-separated list, case and spaces ignored, repeats kept once;
    an unknown name raises ``UnknownResearchMode``.
    """
    names = [part.strip().lower() for part in (value or "").split(",") if part.strip()]
    if not names:
        return list(DEFAULT_RESEARCH_MODES)
    if names == [NO_RESEARCH]:
        return []
    known = {mode.value: mode for mode in ResearchMode}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise UnknownResearchMode(unknown)
    return list(dict.fromkeys(known[name] for name in names))
