"""Read a debate transcript (plain text, WebVTT or SRT) into speaker-labelled segments.

WebVTT is read by ``webvtt-py`` and SRT by ``srt``; this module only decodes the bytes, finds speakers
(``<v Name>`` voice tags, ``NAME:`` or ``[NAME]`` at the start of a line), and says exactly where a file
is wrong. A line or cue without a speaker continues the one before, as broadcast captions name a speaker
only when the voice changes.

Segment ids come from the file itself (the cue's identifier or index, the turn's position in plain text),
so reading the same file again gives the same ids and storing its segments twice stores them once.
"""

from __future__ import annotations

import codecs
import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Any, Final

import srt
import webvtt
import webvtt.vtt
from webvtt.errors import MalformedCaptionError, MalformedFileError

from icarus.debates.cue_timing import ARROW, SRT, VTT, looks_like_timing, timing_problem
from icarus.debates.errors import DebateError
from icarus.debates.model import Segment

__all__ = [
    "MAX_LINES",
    "MAX_SEGMENTS",
    "MAX_SEGMENT_CHARS",
    "MAX_TRANSCRIPT_BYTES",
    "TranscriptError",
    "TranscriptFormat",
    "TranscriptTooLarge",
    "decode_transcript",
    "detect_format",
    "parse_transcript",
    "split_speaker",
]

MAX_TRANSCRIPT_BYTES: Final = 5 * 1024 * 1024
"""Largest transcript accepted, in bytes as uploaded: a three-hour debate as captions is under 1 MB."""

MAX_SEGMENTS: Final = 20_000
"""Most segments one transcript may hold; a three-hour debate has about 5,000 cues."""

MAX_SEGMENT_CHARS: Final = 20_000
"""Longest text of one segment (``Segment.text``); a longer plain-text turn is cut at a line break."""

MAX_LABEL_CHARS: Final = 60
"""Longest speaker label read from the start of a line; anything longer is taken as speech."""

MAX_LINES: Final = 200_000
"""Most lines a transcript may have: ten per cue at the segment cap, so a caption library is never handed
millions of one-character lines to read."""

MAX_NUMBER_RUN: Final = 16
"""Most digits and separators a caption line may open with ("00:00:01,000" has twelve)."""

_FORMAT_SNIFF_LINES: Final = 5
"""Non-blank lines read to tell SRT (a cue timing line among them) from plain text."""


class TranscriptFormat(StrEnum):
    TEXT = "text"
    VTT = "vtt"
    SRT = "srt"


_FORMAT_ALIASES: Final = {
    "text": TranscriptFormat.TEXT,
    "txt": TranscriptFormat.TEXT,
    "plain": TranscriptFormat.TEXT,
    "vtt": TranscriptFormat.VTT,
    "webvtt": TranscriptFormat.VTT,
    "srt": TranscriptFormat.SRT,
}


class TranscriptError(DebateError, ValueError):
    """The transcript cannot be read: ``line`` (1-based, when known) and ``reason`` say where and why."""

    http_status = 422

    def __init__(self, reason: str, line: int | None = None) -> None:
        self.reason = reason
        self.line = line
        super().__init__(f"line {line}: {reason}" if line is not None else reason)

    def members(self) -> dict[str, Any]:
        return {"line": self.line, "reason": self.reason}


class TranscriptTooLarge(DebateError, ValueError):
    """The transcript is over ``MAX_TRANSCRIPT_BYTES``; not a ``TranscriptError``: a 413, not a 422."""

    http_status = 413

    def __init__(self, size: int, limit: int = MAX_TRANSCRIPT_BYTES) -> None:
        self.size = size
        self.limit = limit
        super().__init__(f"the transcript is {size:,} bytes; the limit is {limit:,} bytes")


# Speaker labels. A label is a short name made of capitalised words (or a diarization label such as
# SPEAKER_1), so that "Here's the thing: ..." stays speech.
_LABEL_WORD = r"(?:[^\W\d_][\w.'’-]*|\d+)"
_NAME_LABEL = re.compile(
    rf"(?P<label>{_LABEL_WORD}(?:[ \t]+{_LABEL_WORD}){{0,4}})[ \t]*:(?:[ \t]+|$)",
)
_BRACKET_LABEL = re.compile(r"[\[(](?P<label>[^\])\n]{1,60})[\])][ \t]*:?(?:[ \t]+|$)")
_LINE_LEAD = re.compile(r"[ \t]*(?:>>+[ \t]*)?(?:-[ \t]+)?")
_NAME_PARTICLES: Final = frozenset("de da del der di du la le van von bin al y el dos das".split())
# Words a speaker opens a sentence with before a colon ("Look: rents doubled."), never a speaker.
_NOT_LABELS: Final = frozenset(
    """look listen note fact facts question yes no well okay ok so now again first second third finally
    remember update breaking warning correction example translation summary result results point truth
    reality""".split()
) | {"bottom line", "the truth", "the point", "the fact"}
_SOUND_CUES: Final = frozenset(
    """applause laughter laughs laughing crosstalk inaudible unintelligible indistinct music cheering cheers
    booing boos silence noise overlapping background coughs coughing pause sighs chuckles beep bell gavel
    no audio""".split()
)
_TAG = re.compile(r"<[^<>\n]*>")  # stops at the next "<": linear on "<<<<…"
_ASS_OVERRIDE = re.compile(r"\{\\[^}\n]*\}")


def split_speaker(line: str) -> tuple[str | None, str]:
    """The speaker label at the start of ``line`` (``NAME:``, ``[NAME]``, ``(NAME):``) and the rest.

    A bracketed sound description ("[APPLAUSE]") is no speaker: it is dropped from the text. A broadcast
    change-of-speaker mark (``>>``) and a dialogue dash are read past.
    """
    lead = _LINE_LEAD.match(line)
    start = lead.end() if lead else 0
    bracket = _BRACKET_LABEL.match(line, start)
    if bracket:
        label = bracket.group("label").strip()
        if label.lower() in _SOUND_CUES:
            return None, line[bracket.end() :].strip()
        if label and len(label) <= MAX_LABEL_CHARS:
            return label, line[bracket.end() :].strip()
    named = _NAME_LABEL.match(line, start)
    if named:
        label = named.group("label").strip()
        words = label.split()
        titled = all(w[0].isupper() or w[0].isdigit() or w in _NAME_PARTICLES for w in words)
        if titled and len(label) <= MAX_LABEL_CHARS and label.lower() not in _NOT_LABELS:
            return label, line[named.end() :].strip()
    return None, line[start:].strip()


def decode_transcript(data: bytes) -> str:
    """The transcript's text: UTF-8 (with or without a byte-order mark) or UTF-16 with one.

    Line ends are normalised to ``\\n`` so every line number this module reports counts the same lines.
    """
    if len(data) > MAX_TRANSCRIPT_BYTES:
        raise TranscriptTooLarge(len(data))
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as error:
            raise TranscriptError(
                f"not valid UTF-16 at byte {error.start} (the file starts with a UTF-16 byte-order mark)"
            ) from None
    else:
        if data.startswith(codecs.BOM_UTF8):
            data = data[len(codecs.BOM_UTF8) :]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            raise TranscriptError(
                f"not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start}); "
                "save the transcript as UTF-8",
                line,
            ) from None
    return _checked_text(text)


def _checked_text(text: str) -> str:
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    nul = text.find("\x00")
    if nul >= 0:
        raise TranscriptError(
            "contains a NUL character: this is binary data (or UTF-16 without a byte-order mark), "
            "not a transcript",
            text.count("\n", 0, nul) + 1,
        )
    return text


def detect_format(text: str) -> TranscriptFormat:
    """WebVTT when the first line says ``WEBVTT``; SRT when a cue timing line (``-->``) comes early on;
    otherwise plain text."""
    lines = [line.strip() for line in text.lstrip("\ufeff \t\n\r").split("\n", 64)[:64]]
    non_blank = [line for line in lines if line][:_FORMAT_SNIFF_LINES]
    if non_blank and non_blank[0].startswith("WEBVTT"):
        return TranscriptFormat.VTT
    if any("-->" in line for line in non_blank):
        return TranscriptFormat.SRT
    return TranscriptFormat.TEXT


def parse_transcript(data: bytes | str, fmt: TranscriptFormat | str | None = None) -> list[Segment]:
    """Read a transcript into segments, in the order spoken.

    ``fmt`` is ``text``/``txt``, ``vtt``/``webvtt`` or ``srt``; when absent it is told from the content.
    Raises ``TranscriptTooLarge`` over ``MAX_TRANSCRIPT_BYTES`` and ``TranscriptError`` (with the line)
    for anything it cannot read: a bad encoding, a malformed cue timing, a cue that ends before it
    starts, a line or cue longer than ``MAX_SEGMENT_CHARS``, more than ``MAX_SEGMENTS`` segments, or no
    speech at all.
    """
    if isinstance(data, str):
        size = len(data.encode("utf-8", errors="surrogatepass"))
        if size > MAX_TRANSCRIPT_BYTES:
            raise TranscriptTooLarge(size)
        text = _checked_text(data)
    else:
        text = decode_transcript(data)
    if text.count("\n") >= MAX_LINES:
        raise TranscriptError(f"more than {MAX_LINES:,} lines in one transcript", MAX_LINES + 1)
    chosen = _format(fmt) if fmt is not None else detect_format(text)
    if chosen is not TranscriptFormat.TEXT:
        _refuse_too_many_cues(text)
        _refuse_runaway_numbers(text)
    if chosen is TranscriptFormat.VTT:
        segments = _parse_vtt(text)
    elif chosen is TranscriptFormat.SRT:
        segments = _parse_srt(text)
    else:
        segments = _parse_text(text)
    if not segments:
        raise TranscriptError(f"no speech found in this {chosen.value} transcript")
    return segments


def _refuse_too_many_cues(text: str) -> None:
    """Count cue timing lines before a caption library reads thousands of cues only to be refused."""
    position = -1
    for _ in range(MAX_SEGMENTS + 1):
        position = text.find("-->", position + 1)
        if position < 0:
            return
    line = text.count("\n", 0, position) + 1
    raise TranscriptError(f"more than {MAX_SEGMENTS:,} cues in one transcript", line)


_RUNAWAY_NUMBER = re.compile(rf"^[^\S\n]*[\d.,:-]{{{MAX_NUMBER_RUN + 1}}}", re.MULTILINE)


def _refuse_runaway_numbers(text: str) -> None:
    """A line that opens with a long run of digits is neither a cue index nor a timing, and the caption
    libraries' index and timestamp patterns take quadratic time to give up on one."""
    found = _RUNAWAY_NUMBER.search(text)
    if found:
        line = text.count("\n", 0, found.start()) + 1
        raise TranscriptError(
            f"the line opens with more than {MAX_NUMBER_RUN} digits: neither a cue number nor a cue timing",
            line,
        )


def _format(fmt: TranscriptFormat | str) -> TranscriptFormat:
    if isinstance(fmt, TranscriptFormat):
        return fmt
    found = _FORMAT_ALIASES.get(fmt.strip().lower().lstrip("."))
    if found is None:
        raise TranscriptError(f"unknown transcript format {fmt!r}; expected text, vtt or srt")
    return found


@dataclass(slots=True)
class _Cue:
    """One timed cue as a caption library read it, with the line its timing is on."""

    base_id: str
    line: int | None
    start_s: float
    end_s: float
    lines: list[tuple[str | None, str]]  # (voice tag, text) per line of the cue


class _SegmentBuilder:
    """Turns cues or turns into segments: carries the speaker over and enforces the caps."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.speaker: str | None = None

    def add(
        self,
        segment_id: str,
        text: str,
        line: int | None,
        start_s: float | None = None,
        end_s: float | None = None,
    ) -> None:
        if len(text) > MAX_SEGMENT_CHARS:
            raise TranscriptError(f"text longer than {MAX_SEGMENT_CHARS:,} characters", line)
        if len(self.segments) >= MAX_SEGMENTS:
            raise TranscriptError(f"more than {MAX_SEGMENTS:,} segments in one transcript", line)
        self.segments.append(
            Segment(
                segment_id=segment_id, speaker_label=self.speaker, start_s=start_s, end_s=end_s, text=text
            )
        )

    def add_cue(self, cue: _Cue) -> None:
        if cue.end_s < cue.start_s:
            raise TranscriptError("the cue ends before it starts", cue.line)
        spoken = [text for _, text in cue.lines if text.strip()]
        if sum(map(len, spoken)) + len(spoken) - 1 > MAX_SEGMENT_CHARS:
            raise TranscriptError(f"cue text longer than {MAX_SEGMENT_CHARS:,} characters", cue.line)
        parts: list[tuple[str | None, list[str]]] = []
        for voice, raw in cue.lines:
            label, rest = split_speaker(raw) if voice is None else (voice, raw.strip())
            if label is not None or not parts:
                parts.append((label, []))
            if rest:
                parts[-1][1].append(rest)
        emitted = 0
        for label, texts in parts:
            if label is not None:
                self.speaker = label
            if texts:
                emitted += 1
                segment_id = cue.base_id if emitted == 1 else f"{cue.base_id}.{emitted}"
                self.add(segment_id, " ".join(texts), cue.line, cue.start_s, cue.end_s)


# WebVTT --------------------------------------------------------------------------------------------------


def _parse_vtt(text: str) -> list[Segment]:
    first = text.split("\n", 1)[0]
    if not first.startswith("WEBVTT"):
        raise TranscriptError("a WebVTT file must start with a line that says WEBVTT", 1)
    try:
        captions = webvtt.from_string(text, strict=True).captions
    except (MalformedCaptionError, MalformedFileError) as error:
        line, what = _locate_vtt_error(text)
        raise TranscriptError(what or f"malformed WebVTT: {error}", line) from None
    _refuse_stray_vtt_text(text)
    timing_lines = [number for number, line in enumerate(text.split("\n"), start=1) if "-->" in line]
    if len(timing_lines) != len(captions):
        timing_lines = []
    identifiers = [caption.identifier for caption in captions]
    usable = all(identifiers) and len(set(identifiers)) == len(identifiers)
    builder = _SegmentBuilder()
    for position, caption in enumerate(captions, start=1):
        identifier = caption.identifier if usable else None
        builder.add_cue(
            _Cue(
                base_id=_vtt_id(identifier, position),
                line=timing_lines[position - 1] if timing_lines else None,
                start_s=caption.start_time.in_milliseconds() / 1000,
                end_s=caption.end_time.in_milliseconds() / 1000,
                lines=[_vtt_line(raw) for raw in caption.lines],
            )
        )
    return builder.segments


def _vtt_id(identifier: str | None, position: int) -> str:
    if identifier and len(identifier) <= 100 and identifier.strip() == identifier:
        return f"vtt-{identifier}"
    return f"vtt-{position}"


def _vtt_line(raw: str) -> tuple[str | None, str]:
    voice = webvtt.Caption.VOICE_SPAN_PATTERN.match(raw.lstrip())
    label = voice.group(1).strip()[:MAX_LABEL_CHARS] if voice else None
    return label or None, html.unescape(_TAG.sub("", raw))


def _locate_vtt_error(text: str) -> tuple[int | None, str | None]:
    """The line of the first cue block the WebVTT library refuses, and what is wrong with it."""
    for first_line, block in _blocks(text):
        timing = [(offset, line) for offset, line in enumerate(block) if "-->" in line]
        if not timing:
            continue
        offset, line = timing[0]
        if not webvtt.vtt.WebVTTCueBlock.STRICT_CUE_TIMINGS_PATTERN.match(line):
            return first_line + offset, timing_problem(line, VTT) or (
                f"malformed cue timing {line.strip()[:80]!r} (expected HH:MM:SS.mmm --> HH:MM:SS.mmm)"
            )
        if len(timing) > 1:
            second = first_line + timing[1][0]
            return second, "a cue timing line needs a blank line before it"
        if offset > 1:
            return (
                first_line + offset,
                "a cue timing line must be the first line of its block or follow the cue id",
            )
        try:
            webvtt.vtt.parse_item(block, strict=True)
        except MalformedCaptionError as error:
            what = "malformed cue timing" if "timestamp" in str(error).lower() else "malformed cue"
            return first_line + offset, f"{what}: {error}"
    return None, None


_NON_CUE_BLOCKS: Final = ("NOTE", "STYLE", "REGION")


def _refuse_stray_vtt_text(text: str) -> None:
    """Text in a block with no cue timing would be dropped silently by a WebVTT reader: refuse it, so
    nothing said in the debate is lost without a word."""
    blocks = _blocks(text)
    next(blocks, None)  # the WEBVTT header and its metadata
    for first_line, block in blocks:
        if not any("-->" in line for line in block) and not block[0].startswith(_NON_CUE_BLOCKS):
            # A timing line with a mistyped arrow, as the block's first line or after its cue id.
            for offset, line in enumerate(block[:2]):
                if looks_like_timing(line, where_a_timing_goes=True):
                    problem = timing_problem(line, VTT) or "malformed cue timing"
                    raise TranscriptError(problem, first_line + offset)
            raise TranscriptError(
                f"text outside a cue (no timing line): {block[0].strip()[:80]!r}", first_line
            )


def _blocks(text: str) -> Iterator[tuple[int, list[str]]]:
    """Blank-line separated blocks with the number of their first line."""
    block: list[str] = []
    start = 1
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


# SRT -----------------------------------------------------------------------------------------------------


def _parse_srt(text: str) -> list[Segment]:
    builder = _SegmentBuilder()
    cues = list(_srt_cue_blocks(text))
    subtitles = [(first, timing, _read_srt_cue(block, first, timing)) for first, timing, block in cues]
    indexes = [subtitle.index for _, _, subtitle in subtitles]
    usable = None not in indexes and len(set(indexes)) == len(indexes)
    for position, (_, timing, subtitle) in enumerate(subtitles, start=1):
        content: str = subtitle.content
        builder.add_cue(
            _Cue(
                base_id=f"srt-{subtitle.index if usable else position}",
                line=timing,
                start_s=_seconds(subtitle.start),
                end_s=_seconds(subtitle.end),
                lines=[
                    (None, html.unescape(_TAG.sub("", line)))
                    for line in _ASS_OVERRIDE.sub("", content).split("\n")
                ],
            )
        )
    return builder.segments


def _srt_cue_blocks(text: str) -> Iterator[tuple[int, int, str]]:
    """Each cue's text for ``srt`` to read on its own, with the numbers of its first and timing lines.

    A cue runs from its number line (or its timing line) to the next cue's. ``srt`` reads a whole file by
    trying its patterns at every position of any stretch it cannot read, which is cubic in a run of
    digits there; handed one cue at a time it never scans such a stretch.

    Every timing line is checked here, in file order, before ``srt`` sees any: a mistyped arrow would
    otherwise make ``srt`` fold the cue into the one before, and a bad timestamp can pass as position data.
    """
    lines = text.split("\n")
    starts: list[tuple[int, int]] = []  # (first line index, timing line index)
    opens_block = True  # the line follows a blank line or starts the file
    number_at: int | None = None  # index of the cue number just read at the start of a block
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            if number_at is not None:
                raise _no_timing(lines[number_at], number_at + 1)
            opens_block = True
            continue
        timing_slot = opens_block or number_at is not None
        if ARROW in line or looks_like_timing(line, where_a_timing_goes=timing_slot):
            problem = timing_problem(line, SRT)
            if problem is not None:
                raise TranscriptError(problem, index + 1)
            numbered = index > 0 and _SRT_INDEX.fullmatch(lines[index - 1].strip()) is not None
            starts.append((index - 1 if numbered else index, index))
            number_at = None
        elif number_at is not None:
            raise _no_timing(lines[number_at], index + 1, found=stripped)
        elif opens_block and _CUE_NUMBER.fullmatch(stripped):
            number_at = index
        elif not starts:
            raise TranscriptError(f"text outside a cue: {stripped[:80]!r}", index + 1)
        opens_block = False
    if number_at is not None:
        raise _no_timing(lines[number_at], number_at + 1)
    for number, (first, timing) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(lines)
        yield first + 1, timing + 1, "\n".join(lines[first:end]) + "\n"


def _no_timing(number_line: str, line: int, found: str | None = None) -> TranscriptError:
    what = f", found {found[:80]!r}" if found is not None else ""
    return TranscriptError(
        f"cue {number_line.strip()} has no timing line (expected HH:MM:SS,mmm {ARROW} HH:MM:SS,mmm "
        f"after its number{what})",
        line,
    )


def _read_srt_cue(block: str, first: int, timing: int) -> srt.Subtitle:
    lines = block.split("\n")
    header = "\n".join(lines[: timing - first + 1]) + "\n"
    # The number and timing are read first: a cue that does not start as srt expects would otherwise be
    # scanned position by position, text and all.
    for part in (header, block):
        try:
            subtitles = list(srt.parse(part))
        except srt.SRTParseError:
            subtitles = []
        except ValueError as error:  # srt.TimestampParseError
            raise TranscriptError(f"malformed cue timing: {error}", timing) from None
        if len(subtitles) != 1:
            raise TranscriptError(
                f"malformed cue timing {lines[timing - first].strip()[:80]!r} "
                "(expected HH:MM:SS,mmm --> HH:MM:SS,mmm)",
                timing,
            )
    return subtitles[0]


_SRT_INDEX = re.compile(srt.RGX_INDEX)
# A lone number opening a block is a cue number (srt would read it as text of the cue before).
_CUE_NUMBER = re.compile(r"\d+")


def _seconds(value: timedelta) -> float:
    return round(value.total_seconds(), 3)


# Plain text ----------------------------------------------------------------------------------------------

_TEXT_TIME = re.compile(r"[ \t]*[\[(]?(?P<time>(?:\d{1,2}:)?\d{1,2}:\d{2}(?:[.,]\d{1,3})?)[\])]?[ \t]+")


def _parse_text(text: str) -> list[Segment]:
    builder = _SegmentBuilder()
    pending: list[str] = []
    pending_chars = 0  # the joined length of ``pending``, kept as it grows: summing it each line is quadratic
    pending_line = 0
    pending_start: float | None = None

    def flush() -> None:
        nonlocal pending, pending_chars, pending_start
        if pending:
            builder.add(f"txt-{len(builder.segments) + 1}", " ".join(pending), pending_line, pending_start)
        pending = []
        pending_chars = 0
        pending_start = None

    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            flush()
            continue
        stamp = _TEXT_TIME.match(raw)
        start_s = _clock_seconds(stamp.group("time")) if stamp else None
        label, rest = split_speaker(raw[stamp.end() :] if stamp else raw)
        if len(rest) > MAX_SEGMENT_CHARS:
            raise TranscriptError(f"line longer than {MAX_SEGMENT_CHARS:,} characters", number)
        joined = pending_chars + (1 if pending else 0) + len(rest)  # with the space that joins the lines
        if label is not None or start_s is not None or joined > MAX_SEGMENT_CHARS:
            flush()
        if label is not None:
            builder.speaker = label
        if rest:
            if not pending:
                pending_line, pending_start = number, start_s
            pending_chars += len(rest) + (1 if pending else 0)
            pending.append(rest)
    flush()
    return builder.segments


def _clock_seconds(value: str) -> float:
    parts = value.replace(",", ".").split(":")
    seconds = 0.0
    for part in parts:
        seconds = seconds * 60 + float(part)
    return seconds
