"""Transcripts in: plain text, WebVTT and SRT read into speaker-labelled segments, and every way a file
can be wrong named by its line."""

from __future__ import annotations

import codecs
import time  # the time bounds here are CPU seconds of this process, so a busy machine cannot fail them
from pathlib import Path

import pytest

from icarus.debates.errors import DebateError
from icarus.debates.transcripts import (
    MAX_LINES,
    MAX_NUMBER_RUN,
    MAX_SEGMENT_CHARS,
    MAX_SEGMENTS,
    MAX_TRANSCRIPT_BYTES,
    TranscriptError,
    TranscriptFormat,
    TranscriptTooLarge,
    detect_format,
    parse_transcript,
    split_speaker,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "debates"

VTT = """WEBVTT

intro
00:00:01.000 --> 00:00:04.000
<v Ruth Calloway>Good evening and welcome.

00:00:04.500 --> 00:00:08.000
<v.loud Helena Marsh>Unemployment fell to 4.2 percent
in 2024.

00:00:08.500 --> 00:00:10.000
MARSH: Thank you, Ruth.

00:00:10.500 --> 00:00:12.000
<v Helena Marsh>That is not true.</v>
<v Daniel Okoro>Let me finish.
"""

SRT = """1
00:00:01,000 --> 00:00:04,000
MODERATOR: Good evening.

2
00:00:04,500 --> 00:00:08,000
[SPEAKER_2] Rents rose 14 percent
<i>in 2024.</i>

3
00:00:08,500 --> 00:00:10,000
and they are still rising.

4
00:00:10,500 --> 00:00:12,000
[APPLAUSE]
- SPEAKER_3: Thanks.
- SPEAKER_2: Sure.
"""

TEXT = """SPEAKER_1: Good evening.
Welcome to the debate.

Our first topic is housing.
Jane Doe: Here's the thing: rents rose 14 percent.
[00:01:02] SPEAKER_2: A timed line.
"""


def _error(data: bytes | str, fmt: str | None = None) -> TranscriptError:
    with pytest.raises(TranscriptError) as caught:
        parse_transcript(data, fmt)
    return caught.value


# Formats and speakers ------------------------------------------------------------------------------------


def test_webvtt_speakers_come_from_voice_tags_and_name_prefixes() -> None:
    segments = parse_transcript(VTT)
    assert [(s.segment_id, s.speaker_label, s.text) for s in segments] == [
        ("vtt-1", "Ruth Calloway", "Good evening and welcome."),
        ("vtt-2", "Helena Marsh", "Unemployment fell to 4.2 percent in 2024."),
        ("vtt-3", "MARSH", "Thank you, Ruth."),
        ("vtt-4", "Helena Marsh", "That is not true."),
        ("vtt-4.2", "Daniel Okoro", "Let me finish."),
    ]
    assert (segments[1].start_s, segments[1].end_s) == (4.5, 8.0)


def test_webvtt_cue_identifiers_become_ids_when_every_cue_has_a_unique_one() -> None:
    text = "WEBVTT\n\na\n00:00:01.000 --> 00:00:02.000\nOne.\n\nb\n00:00:02.000 --> 00:00:03.000\nTwo.\n"
    assert [s.segment_id for s in parse_transcript(text)] == ["vtt-a", "vtt-b"]


def test_srt_speakers_from_prefixes_carry_over_to_unlabelled_cues() -> None:
    segments = parse_transcript(SRT.encode())
    assert [(s.segment_id, s.speaker_label, s.text) for s in segments] == [
        ("srt-1", "MODERATOR", "Good evening."),
        ("srt-2", "SPEAKER_2", "Rents rose 14 percent in 2024."),
        ("srt-3", "SPEAKER_2", "and they are still rising."),
        ("srt-4", "SPEAKER_3", "Thanks."),
        ("srt-4.2", "SPEAKER_2", "Sure."),
    ]
    assert (segments[0].start_s, segments[0].end_s) == (1.0, 4.0)


def test_plain_text_labels_continuations_blank_lines_and_timestamps() -> None:
    segments = parse_transcript(TEXT)
    assert [(s.segment_id, s.speaker_label, s.text, s.start_s) for s in segments] == [
        ("txt-1", "SPEAKER_1", "Good evening. Welcome to the debate.", None),
        ("txt-2", "SPEAKER_1", "Our first topic is housing.", None),
        ("txt-3", "Jane Doe", "Here's the thing: rents rose 14 percent.", None),
        ("txt-4", "SPEAKER_2", "A timed line.", 62.0),
    ]


def test_plain_text_without_labels_has_no_speaker() -> None:
    segments = parse_transcript("Rents rose 14 percent in 2024.\n\nPrices fell.\n")
    assert [s.speaker_label for s in segments] == [None, None]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("SPEAKER_1: Hello", ("SPEAKER_1", "Hello")),
        ("Speaker 2: Hello", ("Speaker 2", "Hello")),
        ("Dr. Jane van Dyke: Hello", ("Dr. Jane van Dyke", "Hello")),
        ("[MODERATOR] Hello", ("MODERATOR", "Hello")),
        (">> OKORO: Hello", ("OKORO", "Hello")),
        ("- MARSH: Hello", ("MARSH", "Hello")),
        ("[APPLAUSE] Hello", (None, "Hello")),
        ("Here's the thing: taxes rose", (None, "Here's the thing: taxes rose")),
        ("At 10:30 the vote began", (None, "At 10:30 the vote began")),
        ("Look: rents doubled", (None, "Look: rents doubled")),
        ("Q: Why?", ("Q", "Why?")),
        ("See https://example.org: it", (None, "See https://example.org: it")),
    ],
)
def test_split_speaker(line: str, expected: tuple[str | None, str]) -> None:
    assert split_speaker(line) == expected


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        (VTT, TranscriptFormat.VTT),
        ("\ufeffWEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi.\n", TranscriptFormat.VTT),
        (SRT, TranscriptFormat.SRT),
        ("\n\n00:00:01,000 --> 00:00:02,000\nHi.\n", TranscriptFormat.SRT),
        (TEXT, TranscriptFormat.TEXT),
    ],
)
def test_format_is_told_from_content(text: str, fmt: TranscriptFormat) -> None:
    assert detect_format(text) is fmt


def test_a_named_format_overrides_detection() -> None:
    segments = parse_transcript(SRT, "txt")
    assert all(s.segment_id.startswith("txt-") for s in segments)
    assert any("-->" in s.text for s in segments)


def test_an_unknown_format_name_is_refused() -> None:
    assert "unknown transcript format" in str(_error(TEXT, "docx"))


def test_the_examples_parse() -> None:
    vtt = parse_transcript((EXAMPLES / "debate-excerpt.vtt").read_bytes())
    assert {s.speaker_label for s in vtt} == {"Ruth Calloway", "Helena Marsh", "Daniel Okoro"}
    text = parse_transcript((EXAMPLES / "debate-excerpt.txt").read_bytes())
    assert {s.speaker_label for s in text} == {"SPEAKER_1", "SPEAKER_2", "SPEAKER_3"}
    debate = parse_transcript((EXAMPLES / "debate-90min.srt").read_bytes())
    assert len(debate) >= 1_400
    assert {s.speaker_label for s in debate} == {"SPEAKER_1", "SPEAKER_2", "SPEAKER_3"}
    assert debate[-1].end_s is not None and 85 * 60 <= debate[-1].end_s <= 95 * 60


# Ids ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [VTT, SRT, TEXT])
def test_reading_the_same_file_again_gives_the_same_ids(text: str) -> None:
    first = parse_transcript(text.encode())
    again = parse_transcript(text.encode())
    assert first == again
    ids = [s.segment_id for s in first]
    assert len(set(ids)) == len(ids)


def test_duplicate_srt_indexes_fall_back_to_positions() -> None:
    text = "1\n00:00:01,000 --> 00:00:02,000\nOne.\n\n1\n00:00:02,000 --> 00:00:03,000\nTwo.\n"
    assert [s.segment_id for s in parse_transcript(text)] == ["srt-1", "srt-2"]


# Malformed files ----------------------------------------------------------------------------------------


def test_a_malformed_srt_timestamp_names_its_line() -> None:
    error = _error(SRT.replace("00:00:04,500 --> 00:00:08,000", "00:00:0x,500 --> 00:00:08,000"))
    assert error.line == 6
    assert "malformed cue timing" in error.reason
    assert str(error).startswith("line 6: ")


def test_an_srt_cue_without_timing_names_its_line() -> None:
    error = _error(SRT.replace("00:00:08,500 --> 00:00:10,000\n", ""))
    assert error.line is not None and 9 <= error.line <= 11


def test_an_srt_cue_ending_before_it_starts_names_its_line() -> None:
    error = _error(SRT.replace("00:00:08,500 --> 00:00:10,000", "00:00:10,500 --> 00:00:10,000"))
    assert error.line == 11
    assert error.reason == "the cue ends before it starts (00:00:10,000 is earlier than 00:00:10,500)"


def _long_srt(cues: int, broken: dict[int, str] | None = None) -> str:
    """``cues`` numbered cues two seconds apart; ``broken`` replaces the timing line of some cues."""
    blocks = []
    for number in range(1, cues + 1):
        start = number * 2
        timing = f"00:{start // 60:02}:{start % 60:02},000 --> 00:{start // 60:02}:{start % 60:02},900"
        timing = (broken or {}).get(number, timing)
        blocks.append(f"{number}\n{timing}\nSPEAKER_1: Taxes rose {number} percent.\n")
    return "\n".join(blocks)


def _timing_line(cue: int) -> int:
    return 4 * (cue - 1) + 2  # four lines a cue: number, timing, text, blank


@pytest.mark.parametrize(
    ("timing", "named"),
    [
        ("00:04:58,000 -> 00:04:59,000", "'->' where the arrow must be '-->'"),
        ("00:04:58,000 ==> 00:04:59,000", "'==>' where the arrow must be '-->'"),
        ("00:04:58,000 00:04:59,000", "no '-->' between the start and end times"),
        ("00:04:58,000", "no '-->' between the start and end times"),
    ],
)
def test_a_mistyped_srt_arrow_names_its_own_line_in_a_long_file(timing: str, named: str) -> None:
    # srt reads a line without "-->" as text of the cue before, whose valid timing used to be blamed.
    error = _error(_long_srt(300, {150: timing}), "srt")
    assert error.line == _timing_line(150)
    assert error.reason == f"malformed cue timing {timing!r}: {named}"


@pytest.mark.parametrize("side", ["start", "end"])
def test_a_timestamp_with_a_letter_is_a_bad_timestamp_not_an_early_end(side: str) -> None:
    # srt reads "00:29:5X,000" as 00:29:05 and keeps "X,000" as position data.
    timing = "00:29:5X,000 --> 00:29:59,000" if side == "start" else "00:29:58,000 --> 00:29:5X,000"
    error = _error(_long_srt(300, {150: timing}), "srt")
    assert error.line == _timing_line(150)
    assert f"{side} time '00:29:5X,000' is not a timestamp (expected HH:MM:SS,mmm" in error.reason
    assert "before it starts" not in error.reason


@pytest.mark.parametrize(
    ("timing", "why"),
    [
        ("00:04:58,000 --> 00:61:00,000", "minutes and seconds run from 00 to 59"),
        ("00:04:58,0000 --> 00:04:59,000", "is not a timestamp"),
        ("00:04:58,000x --> 00:04:59,000", "is not a timestamp"),
        ("--> 00:04:59,000", "start time missing"),
    ],
)
def test_each_bad_srt_timestamp_is_named(timing: str, why: str) -> None:
    error = _error(_long_srt(20, {10: timing}), "srt")
    assert (error.line, error.reason[:20]) == (_timing_line(10), "malformed cue timing")
    assert why in error.reason


def test_a_cue_truly_ending_before_it_starts_is_named_as_such() -> None:
    error = _error(_long_srt(300, {150: "00:29:58,000 --> 00:29:05,000"}), "srt")
    assert error.line == _timing_line(150)
    assert error.reason == "the cue ends before it starts (00:29:05,000 is earlier than 00:29:58,000)"


def test_the_first_fault_in_the_file_is_the_one_named() -> None:
    broken = {40: "00:01:21,000 --> 00:01:20,000", 200: "00:06:40,000 -> 00:06:41,000"}
    assert _error(_long_srt(300, broken), "srt").line == _timing_line(40)


def test_a_cue_number_without_its_timing_line_names_the_line_where_the_timing_belongs() -> None:
    error = _error(_long_srt(300, {150: "and then the timing went missing"}), "srt")
    assert error.line == _timing_line(150)
    assert error.reason.startswith("cue 150 has no timing line")
    assert "found 'and then the timing went missing'" in error.reason
    at_the_end = _error(_long_srt(3) + "\n4\n", "srt")
    assert (at_the_end.line, at_the_end.reason[:18]) == (13, "cue 4 has no timin")


def test_cue_numbers_may_be_left_out() -> None:
    lines = _long_srt(300).split("\n")
    del lines[_timing_line(150) - 2]  # cue 150's number line
    segments = parse_transcript("\n".join(lines), "srt")
    assert len(segments) == 300 and segments[149].text == "Taxes rose 150 percent."


def test_a_mistyped_arrow_in_the_first_cue_or_without_blank_lines_is_named() -> None:
    first = _error(_long_srt(5, {1: "00:00:02,000 -> 00:00:02,900"}), "srt")
    assert (first.line, "'->'" in first.reason) == (2, True)
    packed = "1\n00:00:01,000 --> 00:00:02,000\nOne.\n2\n00:00:03,000 - > 00:00:04,000\nTwo.\n"
    error = _error(packed, "srt")
    assert (error.line, "'- >' where the arrow must be '-->'" in error.reason) == (5, True)


def test_speech_opening_with_a_clock_time_stays_speech() -> None:
    text = "1\n00:00:01,000 --> 00:00:04,000\nSPEAKER_1: Polls closed at\n10:30:00 sharp last night.\n"
    (segment,) = parse_transcript(text, "srt")
    assert segment.text == "Polls closed at 10:30:00 sharp last night."


def test_a_mistyped_webvtt_arrow_names_its_timing_line() -> None:
    error = _error(VTT.replace("00:00:04.500 --> 00:00:08.000", "00:00:04.500 -> 00:00:08.000"), "vtt")
    assert error.line == 7
    assert (
        error.reason
        == "malformed cue timing '00:00:04.500 -> 00:00:08.000': '->' where the arrow must be '-->'"
    )
    bad_stamp = _error(VTT.replace("00:00:04.500 --> 00:00:08.000", "00:00:04.500 --> 00:00:0X.000"), "vtt")
    assert (bad_stamp.line, "end time '00:00:0X.000' is not a timestamp" in bad_stamp.reason) == (7, True)


@pytest.mark.parametrize(
    ("bad_timing", "expected"),
    [
        ("00:00:04.5000 --> 00:00:08.000", "malformed cue timing"),
        ("00:00:04,500 --> 00:00:08.000", "malformed cue timing"),
        ("00:00:04.500 --> 00:00:08.000 foo:bar", "malformed cue"),
        ("00:00:04.500 --> 00:61:08.000", "malformed cue timing"),
    ],
)
def test_a_malformed_webvtt_cue_names_its_line(bad_timing: str, expected: str) -> None:
    error = _error(VTT.replace("00:00:04.500 --> 00:00:08.000", bad_timing))
    assert error.line == 7
    assert expected in error.reason


def test_a_webvtt_file_needs_its_header() -> None:
    error = _error(VTT.replace("WEBVTT", "WEBVTX"), "vtt")
    assert error.line == 1


def test_a_webvtt_timing_line_without_a_blank_line_before_it_names_its_line() -> None:
    error = _error(VTT.replace("in 2024.\n\n00:00:08.500", "in 2024.\n00:00:08.500"))
    assert error.line == 10


def test_webvtt_text_outside_any_cue_is_refused_not_dropped() -> None:
    error = _error(VTT + "\nA stray paragraph of speech.\n")
    assert error.line == 18
    assert "outside a cue" in error.reason


def test_transcript_errors_are_422_and_too_large_is_413() -> None:
    error = _error(SRT.replace("00:00:04,500 --> 00:00:08,000", "00:00:0x,500 --> 00:00:08,000"))
    assert isinstance(error, DebateError) and error.http_status == 422
    assert error.members()["line"] == 6 and str(error).startswith("line 6: ")
    assert TranscriptTooLarge(10).http_status == 413
    assert not issubclass(TranscriptTooLarge, TranscriptError)


def test_no_speech_is_an_error() -> None:
    assert "no speech" in _error(b"").reason
    assert "no speech" in _error("WEBVTT\n\n").reason


# Encodings -----------------------------------------------------------------------------------------------


def test_utf8_with_bom_and_utf16_with_bom_are_read() -> None:
    assert parse_transcript(codecs.BOM_UTF8 + TEXT.encode()) == parse_transcript(TEXT)
    assert parse_transcript(TEXT.encode("utf-16")) == parse_transcript(TEXT)


def test_windows_line_ends_read_like_unix_ones() -> None:
    assert parse_transcript(SRT.replace("\n", "\r\n").encode()) == parse_transcript(SRT)


def test_a_bad_encoding_names_its_line() -> None:
    error = _error("SPEAKER_1: hi\ncafé\n".encode("latin-1"))
    assert error.line == 2
    assert "not valid UTF-8" in error.reason


def test_a_nul_byte_names_its_line() -> None:
    error = _error(b"SPEAKER_1: hi\nthere\x00\n")
    assert error.line == 2
    assert "NUL" in error.reason


def test_utf16_without_a_byte_order_mark_is_called_out() -> None:
    assert "UTF-16" in _error(TEXT.encode("utf-16-le")).reason


# Size and hostile input -------------------------------------------------------------------------------------


def _padded(size: int) -> bytes:
    head = b"SPEAKER_1: hello\n"
    filler = b"x" * 79 + b"\n"
    body = head + filler * ((size - len(head)) // len(filler))
    return body + b"\n" * (size - len(body))


def test_exactly_the_size_cap_is_accepted() -> None:
    data = _padded(MAX_TRANSCRIPT_BYTES)
    assert len(data) == MAX_TRANSCRIPT_BYTES
    assert parse_transcript(data)


def test_one_byte_over_the_size_cap_is_refused() -> None:
    data = _padded(MAX_TRANSCRIPT_BYTES + 1)
    with pytest.raises(TranscriptTooLarge) as caught:
        parse_transcript(data)
    assert (caught.value.size, caught.value.limit) == (MAX_TRANSCRIPT_BYTES + 1, MAX_TRANSCRIPT_BYTES)
    with pytest.raises(TranscriptTooLarge):
        parse_transcript(data.decode())


def test_a_huge_single_line_is_refused_quickly() -> None:
    started = time.process_time()
    assert _error(b"a" * (MAX_TRANSCRIPT_BYTES - 1)).line == 1
    assert _error(b"1\n00:00:01,000 --> 00:00:02,000\n" + b"a" * (MAX_SEGMENT_CHARS + 1)).line == 2
    assert "longer than" in _error(b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n" + b"<" * 3_000_000).reason
    assert time.process_time() - started < 5


def test_a_line_just_within_the_segment_cap_is_accepted() -> None:
    (segment,) = parse_transcript(b"SPEAKER_1: " + b"a" * (MAX_SEGMENT_CHARS - 1))
    assert len(segment.text) == MAX_SEGMENT_CHARS - 1


def test_too_many_cues_are_refused_before_they_are_read() -> None:
    cue = b"00:00:01.000 --> 00:00:02.000\nx\n\n"
    started = time.process_time()
    error = _error(b"WEBVTT\n\n" + cue * (MAX_SEGMENTS + 1))
    assert "more than" in error.reason
    assert error.line == 3 + 3 * MAX_SEGMENTS
    assert time.process_time() - started < 2


def test_exactly_the_segment_cap_is_accepted() -> None:
    segments = parse_transcript(b"SPEAKER_1: x\n\n" * MAX_SEGMENTS)
    assert len(segments) == MAX_SEGMENTS
    assert "more than" in _error(b"SPEAKER_1: x\n\n" * (MAX_SEGMENTS + 1)).reason


def test_exactly_the_line_cap_is_accepted_and_one_more_line_is_refused() -> None:
    at_cap = b"SPEAKER_1: x\n" + b"y\n" * (MAX_LINES - 1)
    assert at_cap.count(b"\n") == MAX_LINES
    assert parse_transcript(at_cap[:-1])
    error = _error(at_cap)
    assert (error.line, "more than") == (MAX_LINES + 1, error.reason[:9])


@pytest.mark.parametrize("fmt", ["srt", "vtt"])
def test_a_line_of_digits_is_refused_before_the_caption_library_sees_it(fmt: str) -> None:
    # The libraries' cue-number and timestamp patterns take quadratic time on such a line.
    head, mark = (b"WEBVTT\n\n", b".") if fmt == "vtt" else (b"", b",")
    cue = head + b"1\n00:00:01" + mark + b"000 --> 00:00:02" + mark + b"000\nHello.\n"
    (segment,) = parse_transcript(cue + b"2" * MAX_NUMBER_RUN + b" people voted.\n", fmt)
    assert segment.text.endswith(" people voted.")
    started = time.process_time()
    error = _error(cue + b"\f" + b"1" * 1_000_000, fmt)
    assert error.line == (6 if fmt == "vtt" else 4)
    assert "digits" in error.reason
    assert time.process_time() - started < 1


def test_stray_text_with_a_long_number_is_named_without_scanning_it() -> None:
    # Read whole, srt tries its patterns at every position of a stretch it cannot read: cubic in digits.
    cue = b"1\n00:00:01,000 --> 00:00:02,000\nHello.\n"
    started = time.process_time()
    before = _error(b"x " + b"1" * 5_000 + b"\n\n" + cue)
    bad_timing = _error(cue.replace(b"00:00:01,000", b"00:00:0x,000") + b"x " + b"1" * 5_000 + b"\n")
    assert time.process_time() - started < 1
    assert (before.line, before.reason[:16]) == (1, "text outside a c")
    assert (bad_timing.line, bad_timing.reason[:20]) == (2, "malformed cue timing")
