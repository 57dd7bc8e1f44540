"""Find the atomic claims in a captured subject and decide which of them to check.

For each claim-bearing field (``note_tweet`` in preference to the truncated ``post_text``, then
``quoted_post`` when it is a field, ``plain_text``, ``page_text``, ``transcript``, ``image_text``) the text is
cut into sentences and safe clauses (``segment``), decoration is trimmed from the edges, and each claim
records the exact slice of its field. Only the first field of each name is read, as ``Subject.field_text``
and G0 read it. The same wording found again in a later field is kept once.

Each candidate then gets:

* a disposition: joke or satire markers anywhere in its sentence (or in a marker-only sentence right after
  it, "… lol."); otherwise personal advice, a private individual, opinion or prediction cues in the clause
  itself. Implied claims are not generated here (``claims.implied`` states them), so
  ``implied_needs_intent`` is never set here. A clause that credits its words to a source it calls
  satirical ("…, says satirical site The Onion") is a claim about what the satire published: checkable,
  of type ``quote`` (see ``cues.credits_satire``);
* a checkworthiness score (``cues.CHECKWORTHINESS_FEATURES``), temporal scope, claim type, event date,
  figures and normalized search text.

Selection, in this order:

1. the disposition itself (``opinion``, ``prediction``, ``satire``, ``joke``, ``personal_advice``,
   ``private_individual``) when it is not checkable: G0 gives those no verdict, and the reader is told
   which; ``scope`` for text from a video or audio subject's transcript and for any claim of a subject
   whose language is known and not English.
2. ``relevance``: checkworthiness below ``RELEVANCE_THRESHOLD``.
3. ``budget``: the rest are ranked by checkworthiness (ties by field preference, then position) and all
   but the first ``max_claims`` are not assessed.

Claim ids are ``c1``, ``c2``, … in field-preference and text order, so they do not depend on the budget.

``spans`` replaces the segmentation with proposed spans (``claims.proposals`` maps a model's quotes onto
the fields): every other step is the same, so dispositions, selection and the verbatim slice stay code's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from icarus.claims.cues import (
    Checkworthiness,
    checkworthiness,
    claim_type,
    clause_disposition,
    credits_satire,
    event_date,
    joke_marker,
    marker_only,
    normalize,
    temporal_scope,
)
from icarus.claims.figures import extract_figures
from icarus.claims.segment import has_letter, quote_regions, split_clauses, split_sentences, trim_span
from icarus.ledger.assistance import ModelStep
from icarus.ledger.base import Span
from icarus.ledger.claims import DISPOSITION_NOT_ASSESSED, Claim, ClaimType, Disposition, NotAssessedReason
from icarus.ledger.subject import UNDETERMINED_LANGUAGES, CapturedField, FieldName, Subject

__all__ = [
    "FIELD_PREFERENCE",
    "RELEVANCE_THRESHOLD",
    "UNDETERMINED_LANGUAGES",
    "ClaimSet",
    "ProposedSpan",
    "claim_fields",
    "extract_claims",
    "locate_quote",
]

RELEVANCE_THRESHOLD = 40
"""Checkworthiness points (0–100) below which a claim is listed as not assessed for relevance."""

FIELD_PREFERENCE: tuple[FieldName, ...] = (
    FieldName.NOTE_TWEET,
    FieldName.POST_TEXT,
    FieldName.QUOTED_POST,
    FieldName.PLAIN_TEXT,
    FieldName.PAGE_TEXT,
    FieldName.TRANSCRIPT,
    FieldName.IMAGE_TEXT,
)
"""Order fields are read in; when wording repeats, the earlier field's copy is the claim."""


@dataclass(frozen=True, slots=True)
class ClaimSet:
    """The claims selected for checking and those found but not assessed (each with its reason)."""

    claims: list[Claim]
    not_assessed: list[Claim]
    steps: tuple[ModelStep, ...] = ()
    """What each model-assisted step proposed and what validation made of it (empty offline)."""

    @property
    def all(self) -> list[Claim]:
        """Every claim found, in id order: what a ledger's ``claims`` list holds."""
        return sorted([*self.claims, *self.not_assessed], key=lambda claim: int(claim.claim_id[1:]))


@dataclass(frozen=True, slots=True)
class ProposedSpan:
    """A claim span proposed for one captured field: ``[start, end)`` of its text, with optional search
    text. ``claims.proposals`` builds these only from quotes found verbatim in the field."""

    field: FieldName
    start: int
    end: int
    normalized: str | None = None


def locate_quote(quote: str, text: str) -> tuple[int, int] | None:
    """Where ``quote`` occurs in ``text`` (first occurrence), allowing only whitespace to differ; None when
    it does not occur. The span is into ``text``, so a claim built on it is sliced from the record."""
    words = quote.split()
    if not words:
        return None
    found = re.search(r"\s+".join(re.escape(word) for word in words), text)
    return (found.start(), found.end()) if found else None


@dataclass(slots=True)
class _Candidate:
    order: int
    field: CapturedField
    field_rank: int
    start: int
    end: int
    sentence: tuple[int, int]
    disposition: Disposition
    worth: Checkworthiness
    normalized: str


@dataclass(frozen=True, slots=True)
class _ScopeTest:
    """Whether a field's claims fall outside what V1 checks, whatever their wording (G0)."""

    foreign: bool
    audio_visual: bool

    def __call__(self, name: FieldName) -> bool:
        return self.foreign or (self.audio_visual and name is FieldName.TRANSCRIPT)


def extract_claims(
    subject: Subject, max_claims: int, *, spans: Sequence[ProposedSpan] | None = None
) -> ClaimSet:
    """Split ``subject`` into atomic claims and select up to ``max_claims`` of them for checking.

    With ``spans``, the claims are those spans (in field-preference and text order) instead of the
    segmentation's clauses; a span outside its field, or in a field that holds no claims, is an error."""
    if isinstance(max_claims, bool) or not isinstance(max_claims, int) or max_claims < 0:
        raise ValueError(f"max_claims must be a non-negative integer, not {max_claims!r}")
    candidates = _candidates(subject) if spans is None else _candidates_from_spans(subject, spans)
    out_of_scope = _subject_out_of_scope(subject)

    reasons: dict[int, NotAssessedReason] = {}
    eligible: list[_Candidate] = []
    for candidate in candidates:
        if candidate.disposition is not Disposition.CHECKABLE:
            reasons[candidate.order] = DISPOSITION_NOT_ASSESSED[candidate.disposition]
        elif out_of_scope(candidate.field.name):
            reasons[candidate.order] = NotAssessedReason.SCOPE
        elif candidate.worth.points < RELEVANCE_THRESHOLD:
            reasons[candidate.order] = NotAssessedReason.RELEVANCE
        else:
            eligible.append(candidate)
    ranked = sorted(eligible, key=lambda c: (-c.worth.points, c.field_rank, c.start))
    for candidate in ranked[max_claims:]:
        reasons[candidate.order] = NotAssessedReason.BUDGET

    claims: list[Claim] = []
    not_assessed: list[Claim] = []
    for candidate in candidates:
        reason = reasons.get(candidate.order)
        claim = _to_claim(candidate, reason)
        (claims if reason is None else not_assessed).append(claim)
    return ClaimSet(claims=claims, not_assessed=not_assessed)


def _subject_out_of_scope(subject: Subject) -> _ScopeTest:
    language = subject.language.strip().lower()
    foreign = not language.startswith("en") and language.split("-")[0] not in UNDETERMINED_LANGUAGES
    return _ScopeTest(foreign=foreign, audio_visual=subject.has_video_or_audio)


def claim_fields(subject: Subject) -> list[tuple[int, CapturedField]]:
    """The fields claims are read from, each with its rank in ``FIELD_PREFERENCE``, in that order."""
    return _claim_fields(subject)


def _claim_fields(subject: Subject) -> list[tuple[int, CapturedField]]:
    # One field per name, the first, as Subject.field_text and G0's slice check read it.
    first: dict[FieldName, CapturedField] = {}
    for captured in subject.fields:
        first.setdefault(captured.name, captured)
    chosen: list[tuple[int, CapturedField]] = []
    for rank, name in enumerate(FIELD_PREFERENCE):
        if name is FieldName.POST_TEXT and FieldName.NOTE_TWEET in first:
            continue  # the post text of a long post is a truncated copy of its note_tweet
        if name in first:
            chosen.append((rank, first[name]))
    return chosen


def _candidates(subject: Subject) -> list[_Candidate]:
    as_of = subject.captured_at.date()
    seen: set[str] = set()
    found: list[_Candidate] = []
    for rank, captured in _claim_fields(subject):
        text = captured.text
        quotes = quote_regions(text)
        previous: list[_Candidate] = []
        for sentence_start, sentence_end in split_sentences(text):
            sentence = text[sentence_start:sentence_end]
            marker = joke_marker(sentence)
            if marker is not None and marker_only(sentence):
                # "… lol." or a lone "😂" after a sentence marks that sentence, and is no claim itself.
                for candidate in previous:
                    if candidate.disposition is Disposition.CHECKABLE:
                        candidate.disposition = marker
                previous = []
                continue
            previous = []
            if not has_letter(sentence):
                continue
            for clause_start, clause_end in split_clauses(text, sentence_start, sentence_end, quotes=quotes):
                start, end = trim_span(text, clause_start, clause_end)
                claim_text = text[start:end]
                if not has_letter(claim_text):
                    continue
                key = normalize(claim_text)
                if key in seen:
                    continue
                seen.add(key)
                disposition = marker or clause_disposition(claim_text, as_of)
                candidate = _Candidate(
                    order=len(found),
                    field=captured,
                    field_rank=rank,
                    start=start,
                    end=end,
                    sentence=(sentence_start, sentence_end),
                    disposition=disposition,
                    worth=checkworthiness(claim_text),
                    normalized=key,
                )
                found.append(candidate)
                previous.append(candidate)
    return found


def _candidates_from_spans(subject: Subject, spans: Sequence[ProposedSpan]) -> list[_Candidate]:
    as_of = subject.captured_at.date()
    fields = {captured.name: (rank, captured) for rank, captured in _claim_fields(subject)}
    ordered: list[tuple[int, int, int, CapturedField, str | None]] = []
    for span in spans:
        if span.field not in fields:
            raise ValueError(f"no claims are read from the {span.field.value} field of this subject")
        rank, captured = fields[span.field]
        if not 0 <= span.start < span.end <= len(captured.text):
            raise ValueError(f"span {span.start}-{span.end} lies outside {span.field.value}")
        ordered.append((rank, span.start, span.end, captured, span.normalized))
    ordered.sort(key=lambda entry: (entry[0], entry[1], entry[2]))
    seen: set[str] = set()
    found: list[_Candidate] = []
    sentences: dict[FieldName, list[tuple[int, int]]] = {}
    for rank, start, end, captured, proposed in ordered:
        text = captured.text
        start, end = trim_span(text, start, end)
        claim_text = text[start:end]
        if not has_letter(claim_text):
            continue
        key = normalize(claim_text)
        if key in seen:
            continue
        seen.add(key)
        bounds = sentences.setdefault(captured.name, split_sentences(text))
        sentence = next(((a, b) for a, b in bounds if a <= start < b), (start, end))
        marker = joke_marker(text[sentence[0] : sentence[1]])
        found.append(
            _Candidate(
                order=len(found),
                field=captured,
                field_rank=rank,
                start=start,
                end=end,
                sentence=sentence,
                disposition=marker or clause_disposition(claim_text, as_of),
                worth=checkworthiness(claim_text),
                normalized=" ".join(proposed.split()) if proposed and proposed.strip() else key,
            )
        )
    return found


def _to_claim(candidate: _Candidate, reason: NotAssessedReason | None) -> Claim:
    text = candidate.field.text
    claim_text = text[candidate.start : candidate.end]
    sentence = text[candidate.sentence[0] : candidate.sentence[1]]
    claim = Claim(
        claim_id=f"c{candidate.order + 1}",
        source_field=candidate.field.name,
        span=Span(start=candidate.start, end=candidate.end),
        text=claim_text,
        normalized=candidate.normalized or None,
        disposition=candidate.disposition,
        not_assessed=reason,
        temporal_scope=temporal_scope(claim_text, sentence),
        claim_type=ClaimType.QUOTE if credits_satire(claim_text) else claim_type(claim_text),
        event_date=event_date(claim_text),
        figures=extract_figures(text, candidate.start, candidate.end),
    )
    if claim.span.slice(text) != claim.text:  # pragma: no cover - the invariant G0 relies on
        raise AssertionError(f"claim {claim.claim_id} is not the exact slice of {claim.source_field}")
    return claim
