"""Find the checkable claims each speaker makes in a debate, reusing ``icarus.claims``.

Consecutive segments by the same speaker are read together as one turn, because captions cut sentences
across cues; ``extract_claims`` then cuts the turn into atomic claims, each the exact slice of the turn's
text, and gives each its disposition and claim type. Its checkworthiness is the learned ranker's score
(``icarus.claims.ranking.load_ranker``, trained on real debate transcripts) for the sentence the claim sits in. A
claim is kept when it is checkable (not an opinion, prediction, joke or advice), is neither a question
nor debate courtesy ("Thank you, Ruth."), and scores at least ``min_checkworthiness``; each segment contributes at most
``max_claims_per_segment`` claims, the most checkworthy first. Patterns and fixed weights decide every
step, so the same transcript always gives the same claims in the same order.

A claim in the first person ("I voted for…", "my administration…") can only be checked once its
speaker is known: while the speaker's label has no name it is marked ``needs_speaker``.

``LiveDetector`` reads a live stream batch by batch with the same rules, holding back a sentence the
captions have not finished so that no claim is cut at a batch boundary.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from functools import lru_cache
from typing import Final

from icarus.claims import extract_claims
from icarus.claims.ranking import load_ranker
from icarus.claims.segment import split_sentences
from icarus.debates.model import DetectedClaim, Segment
from icarus.ledger.claims import Disposition, NotAssessedReason
from icarus.ledger.subject import CapturedField, FieldName, Subject, SubjectKind

__all__ = [
    "DEFAULT_MAX_CLAIMS_PER_SEGMENT",
    "DEFAULT_MIN_CHECKWORTHINESS",
    "MAX_TURN_CHARS",
    "LiveDetector",
    "detect_claims",
    "is_small_talk",
    "name_speakers",
    "needs_identity",
]

DEFAULT_MIN_CHECKWORTHINESS: Final = 0.4
"""The least checkworthiness (0–1) a claim needs; the same bar as ``icarus.claims.RELEVANCE_THRESHOLD``."""

DEFAULT_MAX_CLAIMS_PER_SEGMENT: Final = 3
"""Most claims one segment contributes: a caption cue rarely holds more than two sentences."""

MAX_TURN_CHARS: Final = 4_000
"""A speaker's turn is read in pieces about this long, cut where a segment ends a sentence."""

_TURN_HARD_LIMIT: Final = 3 * MAX_TURN_CHARS
"""Past this a turn is cut at the next segment even mid-sentence, so one monologue stays cheap to read."""

_EXTRACTION_BUDGET: Final = 10_000
"""``extract_claims``' own budget, set out of reach: the per-segment budget is applied here instead."""

# Courtesy and floor management: "Thank you, Ruth.", "Good evening, everyone.", "Let me finish."
_SMALL_TALK = re.compile(
    r"^\W*(?:thank(?:s(?!\s+to\b)|\s+you)|good\s+(?:evening|morning|afternoon|night)|welcome|hello|hi\b|"
    r"(?:it(?:'s|’s|\s+is)\s+)?(?:good|great|a\s+pleasure|an\s+honou?r)\s+to\s+be\s+here|"
    r"let\s+me\s+(?:finish|respond|answer|be\s+clear)|may\s+i\s+(?:respond|finish)|"
    r"(?:your|the)\s+time\s+is\s+up|we(?:'ll|’ll|\s+will)\s+(?:take\s+a\s+(?:short\s+)?break|be\s+right\s+back)|"
    r"(?:ok(?:ay)?|well|look|yes|no|right|sure|excuse\s+me|please)\b[\s,.!]*$)",
    re.IGNORECASE,
)
# Who said it decides what is claimed: "I voted…", "my administration…", "we cut taxes…", "our government…".
_FIRST_PERSON = re.compile(
    r"\b(?:I|I'm|I’m|I've|I’ve|I'd|I’d|I'll|I’ll|me|my|mine|myself)\b"
    r"|\bour\s+(?:administration|government|party|campaign|office|ministry|term|record|budget|bill|plan)\b"
    r"|\bwe\s+(?:voted|passed|cut|raised|signed|introduced|built|created|hired|funded|delivered|balanced|"
    r"opened|closed|approved|reduced|increased|lowered|added|spent|invested)\b",
    re.IGNORECASE,
)
# A question asks; it claims nothing to check, whatever figures it quotes.
_QUESTION = re.compile(r"[?？][\"'”’)\]]*\s*$")
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*\s*$")


@dataclass(frozen=True, slots=True)
class _Turn:
    """Consecutive segments by one speaker, their texts joined by single spaces."""

    speaker_label: str | None
    text: str
    pieces: tuple[tuple[int, int, str], ...]  # (start, end, segment_id) of each segment in ``text``


def is_small_talk(text: str) -> bool:
    """Debate courtesy and floor management, which is never a claim however many names it holds.

    A figure keeps the sentence in play: "Thank you, and unemployment fell to 4 percent." is a claim.
    """
    return bool(_SMALL_TALK.search(text)) and not any(char.isdigit() for char in text)


def needs_identity(text: str) -> bool:
    """Whether checking ``text`` depends on who said it (first-person wording)."""
    return bool(_FIRST_PERSON.search(text))


def detect_claims(
    segments: Sequence[Segment],
    speaker_names: Mapping[str, str],
    *,
    max_claims_per_segment: int = DEFAULT_MAX_CLAIMS_PER_SEGMENT,
    min_checkworthiness: float = DEFAULT_MIN_CHECKWORTHINESS,
    as_of: date | None = None,
    language: str = "en",
) -> list[DetectedClaim]:
    """The checkable claims in ``segments``, in the order spoken.

    ``speaker_names`` maps diarization labels to names; an unnamed speaker's first-person claims come
    back with ``needs_speaker``. ``as_of`` is the debate's date (today, UTC, when absent): a year after it
    marks a prediction. ``language`` is the transcript's language; the claim cues read English only.
    """
    if max_claims_per_segment < 0:
        raise ValueError(f"max_claims_per_segment must be non-negative, not {max_claims_per_segment}")
    if not 0.0 <= min_checkworthiness <= 1.0:
        raise ValueError(f"min_checkworthiness must be within [0, 1], not {min_checkworthiness}")
    day = as_of or datetime.now(UTC).date()
    captured_at = datetime.combine(day, time(12), tzinfo=UTC)
    found: list[tuple[int, int, DetectedClaim]] = []
    for turn_number, turn in enumerate(_turns(segments)):
        for start, claim in _turn_claims(turn, speaker_names, min_checkworthiness, captured_at, language):
            found.append((turn_number, start, claim))
    return _apply_budget(found, max_claims_per_segment)


def name_speakers(claims: Sequence[DetectedClaim], speaker_names: Mapping[str, str]) -> list[DetectedClaim]:
    """The claims again with their speakers' current names; a claim that waited for a name stops waiting
    once its speaker has one."""
    named: list[DetectedClaim] = []
    for claim in claims:
        name = speaker_names.get(claim.speaker_label, "").strip() if claim.speaker_label else ""
        if name:
            named.append(claim.model_copy(update={"speaker_name": name, "needs_speaker": False}))
        else:
            named.append(claim)
    return named


@dataclass(slots=True)
class LiveDetector:
    """Detection over a live stream of segments, batch by batch, each claim reported once.

    A sentence the captioner has not finished yet (the last segment does not end one) is held back until
    a later batch completes it, so a claim is never cut at a batch boundary. A segment id seen before is
    ignored, so a batch sent twice adds nothing. ``flush`` reports what is held when the stream ends.
    """

    max_claims_per_segment: int = DEFAULT_MAX_CLAIMS_PER_SEGMENT
    min_checkworthiness: float = DEFAULT_MIN_CHECKWORTHINESS
    as_of: date | None = None
    language: str = "en"
    _pending: list[Segment] = field(default_factory=list)
    _seen_ids: set[str] = field(default_factory=set)
    _reported: set[tuple[tuple[str, ...], str]] = field(default_factory=set)

    def feed(self, segments: Sequence[Segment], speaker_names: Mapping[str, str]) -> list[DetectedClaim]:
        """The claims the new segments complete, in the order spoken."""
        for segment in segments:
            if segment.segment_id not in self._seen_ids:
                self._seen_ids.add(segment.segment_id)
                self._pending.append(segment)
        return self._report(speaker_names, final=False)

    def flush(self, speaker_names: Mapping[str, str]) -> list[DetectedClaim]:
        """Everything still held back: the stream has ended."""
        return self._report(speaker_names, final=True)

    def _report(self, speaker_names: Mapping[str, str], *, final: bool) -> list[DetectedClaim]:
        if not self._pending:
            return []
        claims = detect_claims(
            self._pending,
            speaker_names,
            max_claims_per_segment=self.max_claims_per_segment,
            min_checkworthiness=self.min_checkworthiness,
            as_of=self.as_of,
            language=self.language,
        )
        turns = _turns(self._pending)
        last = turns[-1] if turns else None
        finished = (
            final
            or last is None
            or bool(_SENTENCE_END.search(last.text))
            or len(last.text) >= MAX_TURN_CHARS  # no punctuation to wait for: read it as it stands
        )
        held = set() if finished or last is None else {piece[2] for piece in last.pieces[-1:]}
        fresh: list[DetectedClaim] = []
        for claim in claims:
            key = (tuple(claim.segment_ids), claim.text)
            if held.intersection(claim.segment_ids) or key in self._reported:
                continue
            self._reported.add(key)
            fresh.append(claim)
        if finished or last is None:
            self._pending.clear()
            self._reported.clear()
        else:
            # Earlier turns are done; the open turn is read again with the next batch.
            keep = {piece[2] for piece in last.pieces}
            self._pending = [segment for segment in self._pending if segment.segment_id in keep]
            self._reported = {key for key in self._reported if keep.issuperset(key[0])}
        return fresh


def _turns(segments: Sequence[Segment]) -> list[_Turn]:
    turns: list[_Turn] = []
    label: str | None = None
    parts: list[str] = []
    pieces: list[tuple[int, int, str]] = []
    length = 0

    def close() -> None:
        nonlocal parts, pieces, length
        if pieces:
            turns.append(_Turn(label, " ".join(parts), tuple(pieces)))
        parts, pieces, length = [], [], 0

    for segment in segments:
        text = segment.text
        if not text.strip():
            continue
        ends_sentence = bool(parts) and bool(_SENTENCE_END.search(parts[-1]))
        if pieces and (
            segment.speaker_label != label
            or (length >= MAX_TURN_CHARS and ends_sentence)
            or length >= _TURN_HARD_LIMIT
        ):
            close()
        label = segment.speaker_label
        start = length + (1 if parts else 0)
        parts.append(text)
        pieces.append((start, start + len(text), segment.segment_id))
        length = start + len(text)
    close()
    return turns


def _turn_claims(
    turn: _Turn,
    speaker_names: Mapping[str, str],
    min_checkworthiness: float,
    captured_at: datetime,
    language: str,
) -> list[tuple[int, DetectedClaim]]:
    first_id = turn.pieces[0][2]
    subject = Subject(
        kind=SubjectKind.TRANSCRIPT,
        subject_id=f"turn:{first_id}",
        captured_at=captured_at,
        language=language,
        fields=[CapturedField(name=FieldName.TRANSCRIPT, text=turn.text, artifact_id=first_id)],
    )
    label = turn.speaker_label
    name = speaker_names.get(label, "").strip() if label else ""
    kept: list[tuple[int, DetectedClaim]] = []
    sentences = split_sentences(turn.text)
    for claim in extract_claims(subject, _EXTRACTION_BUDGET).all:
        if claim.disposition is not Disposition.CHECKABLE or claim.not_assessed is NotAssessedReason.SCOPE:
            continue
        if is_small_talk(claim.text) or _QUESTION.search(claim.text):
            continue
        # The ranker learned from whole sentences, so a clause is ranked by the sentence it belongs to.
        score = round(_rank(_sentence_of(turn.text, sentences, claim.span.start, claim.text), claim.text), 4)
        if score < min_checkworthiness:
            continue
        start, end = claim.span.start, claim.span.end
        segment_ids = [
            piece_id
            for piece_start, piece_end, piece_id in turn.pieces
            if piece_start < end and start < piece_end
        ]
        detected = DetectedClaim(
            text=claim.text,
            speaker_label=label,
            speaker_name=name or None,
            segment_ids=segment_ids,
            checkworthiness=score,
            claim_type=claim.claim_type.value,
            needs_speaker=bool(label) and not name and needs_identity(claim.text),
        )
        kept.append((start, detected))
    return kept


def _rank(sentence: str, claim_text: str) -> float:
    """A claim's checkworthiness: the ranker's score for its sentence (``claim_text`` is unused here; an
    evaluation may swap in a ranker that reads the clause alone, as the cue points did)."""
    return _sentence_score(sentence)


@lru_cache(maxsize=8192)
def _sentence_score(sentence: str) -> float:
    """The ranker runs the encoder once a sentence; a sentence with several claims, or a live stream read
    again as it grows, asks again."""
    return load_ranker().score(sentence)


def _sentence_of(text: str, sentences: Sequence[tuple[int, int]], start: int, fallback: str) -> str:
    for sentence_start, sentence_end in sentences:
        if sentence_start <= start < sentence_end:
            return text[sentence_start:sentence_end]
    return fallback


def _apply_budget(found: list[tuple[int, int, DetectedClaim]], per_segment: int) -> list[DetectedClaim]:
    by_segment: dict[str, list[tuple[int, int, DetectedClaim]]] = {}
    for entry in found:
        by_segment.setdefault(entry[2].segment_ids[0], []).append(entry)
    kept: set[tuple[int, int]] = set()
    for entries in by_segment.values():
        ranked = sorted(entries, key=lambda entry: (-entry[2].checkworthiness, entry[0], entry[1]))
        kept.update((turn, start) for turn, start, _ in ranked[:per_segment])
    return [claim for turn, start, claim in found if (turn, start) in kept]
