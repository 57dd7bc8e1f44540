"""The watched folder: new and changed caption files by content hash, files still being written left for
the next look, links out of the folder and oversized files refused; WATCH_RESEARCH_MODE read."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from icarus.debates.model import DEFAULT_RESEARCH_MODES, ResearchMode
from icarus.debates.transcripts import TranscriptFormat, parse_transcript
from icarus.debates.watch import (
    DEFAULT_SETTLE_SECONDS,
    UnknownResearchMode,
    scan_folder,
    watch_research_modes,
)

SRT = b"1\n00:00:01,000 --> 00:00:02,000\nSPEAKER_1: Rents rose 14 percent in 2024.\n"
LONG_AGO = 1_000_000.0
NOW = LONG_AGO + 3_600


def _write(path: Path, data: bytes, mtime: float = LONG_AGO) -> Path:
    path.write_bytes(data)
    os.utime(path, (mtime, mtime))
    return path


def test_new_caption_files_are_ready_with_their_format_hash_and_bytes(tmp_path: Path) -> None:
    _write(tmp_path / "b.srt", SRT)
    _write(tmp_path / "a.VTT", b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi.\n")
    _write(tmp_path / "c.txt", b"SPEAKER_1: Hello.\n")
    _write(tmp_path / "notes.docx", b"ignored")
    _write(tmp_path / ".hidden.srt", SRT)
    scan = scan_folder(tmp_path, {}, now=NOW)
    assert [(f.name, f.fmt, f.changed) for f in scan.ready] == [
        ("a.VTT", TranscriptFormat.VTT, False),
        ("b.srt", TranscriptFormat.SRT, False),
        ("c.txt", TranscriptFormat.TEXT, False),
    ]
    srt_file = scan.ready[1]
    assert srt_file.sha256 == hashlib.sha256(SRT).hexdigest()
    assert parse_transcript(srt_file.data, srt_file.fmt)[0].speaker_label == "SPEAKER_1"
    assert scan.rejected == [] and scan.settling == []


def test_files_already_ingested_are_not_offered_again_and_changed_ones_are(tmp_path: Path) -> None:
    _write(tmp_path / "debate.srt", SRT)
    first = scan_folder(tmp_path, {}, now=NOW)
    seen = {f.name: f.sha256 for f in first.ready}
    assert scan_folder(tmp_path, seen, now=NOW).ready == []
    _write(tmp_path / "debate.srt", SRT + b"\n2\n00:00:02,000 --> 00:00:03,000\nMore.\n")
    (changed,) = scan_folder(tmp_path, seen, now=NOW).ready
    assert changed.changed and changed.sha256 != seen["debate.srt"]


def test_a_file_still_being_written_waits_for_the_settle_delay(tmp_path: Path) -> None:
    written = time.time()
    _write(tmp_path / "live.srt", SRT, mtime=written)
    scan = scan_folder(tmp_path, {}, now=written + DEFAULT_SETTLE_SECONDS - 0.5)
    assert scan.ready == [] and scan.settling == ["live.srt"]
    later = scan_folder(tmp_path, {}, now=written + DEFAULT_SETTLE_SECONDS + 0.5)
    assert [f.name for f in later.ready] == ["live.srt"]


def test_the_settle_delay_can_be_turned_off(tmp_path: Path) -> None:
    _write(tmp_path / "live.srt", SRT, mtime=time.time())
    assert [f.name for f in scan_folder(tmp_path, {}, settle_seconds=0, now=time.time() + 1).ready] == [
        "live.srt"
    ]


def test_a_symbolic_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "watched"
    folder.mkdir()
    outside = _write(tmp_path / "secret.srt", SRT)
    (folder / "escape.srt").symlink_to(outside)
    (folder / "dangling.srt").symlink_to(tmp_path / "missing.srt")
    inside = _write(folder / "real.srt", SRT)
    (folder / "alias.srt").symlink_to(inside)
    scan = scan_folder(folder, {}, now=NOW)
    assert sorted(f.name for f in scan.ready) == ["alias.srt", "real.srt"]
    reasons = {r.name: r.reason for r in scan.rejected}
    assert "outside the watched folder" in reasons["escape.srt"]
    assert "broken symbolic link" in reasons["dangling.srt"]


def test_an_oversized_file_is_refused_with_its_size_and_the_cap_is_inclusive(tmp_path: Path) -> None:
    _write(tmp_path / "at-cap.srt", SRT)
    _write(tmp_path / "over.srt", SRT + b"x")
    scan = scan_folder(tmp_path, {}, now=NOW, max_bytes=len(SRT))
    assert [f.name for f in scan.ready] == ["at-cap.srt"]
    (rejected,) = scan.rejected
    assert (rejected.name, rejected.size) == ("over.srt", len(SRT) + 1)
    assert "over the" in rejected.reason


def test_a_folder_or_fifo_with_a_caption_name_is_refused_without_blocking(tmp_path: Path) -> None:
    (tmp_path / "folder.srt").mkdir()
    os.mkfifo(tmp_path / "pipe.srt")
    scan = scan_folder(tmp_path, {}, now=NOW)
    assert {r.name: r.reason for r in scan.rejected} == {
        "folder.srt": "not a regular file",
        "pipe.srt": "not a regular file",
    }


def test_a_missing_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        scan_folder(tmp_path / "missing", {})


# WATCH_RESEARCH_MODE ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [None, "", "  ", " , "])
def test_no_setting_means_the_debate_default(value: str | None) -> None:
    assert watch_research_modes(value) == list(DEFAULT_RESEARCH_MODES)
    assert watch_research_modes(value) == [ResearchMode.AGENTIC, ResearchMode.DECOMPOSE]


def test_a_list_is_read_in_order_case_and_spaces_ignored_repeats_once() -> None:
    assert watch_research_modes(" Two_Step, local ,two_step,RICOCHET") == [
        ResearchMode.TWO_STEP,
        ResearchMode.LOCAL,
        ResearchMode.RICOCHET,
    ]


def test_none_means_detect_and_persist_only() -> None:
    assert watch_research_modes("none") == []


def test_an_unknown_method_is_a_clear_error() -> None:
    with pytest.raises(UnknownResearchMode) as caught:
        watch_research_modes("two_step,deep_think,none")
    assert caught.value.names == ["deep_think", "none"]
    assert "WATCH_RESEARCH_MODE" in str(caught.value) and "decompose_invest" in str(caught.value)
