"""Claim spans and search text proposed by a model; the displayed claim is still code's verbatim slice.

With a model configured, ``find_claims`` asks it for the subject's atomic claims as exact quotes of its
captured fields, each with a normalized search text. Code maps every quote back onto the field it names
(whitespace may differ, nothing else may); a quote that is not in that field, names a field claims are not
read from, or repeats another is rejected and recorded. The accepted spans go through the same extraction
as segmentation's clauses (``extract_claims(spans=...)``): dispositions, checkworthiness, selection and
the slice itself stay code's. A search text is kept only when it is a valid query (no X/Twitter target, no
``site:``) that shares a word with its claim; otherwise the claim keeps code's own normalized text.

Offline (no model), or when nothing the model proposed survives, the segmentation's claims are used, as
they always were. Implied claims are ``claims.implied``'s; ``find_claims`` adds them after the spans.
"""

from __future__ import annotations

import re
from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from icarus.claims.extract import ClaimSet, ProposedSpan, claim_fields, extract_claims, locate_quote
from icarus.claims.implied import MAX_FIELD_CHARS, propose_implied
from icarus.claims.queries import PlannedQuery, QueryKind
from icarus.ledger.assistance import AssistStep, ModelStep
from icarus.ledger.subject import Subject
from icarus.llm.assist import ModelAssist
from icarus.llm.quarantine import data_block, quarantine

__all__ = [
    "MAX_PROPOSED_CLAIMS",
    "MAX_QUOTE_CHARS",
    "MAX_SEARCH_TEXT_CHARS",
    "ClaimSpansAnswer",
    "find_claims",
    "locate_quote",
    "propose_spans",
]

MAX_PROPOSED_CLAIMS = 40
"""Most claims one answer may propose; a subject with more is cut into more than a check reads anyway."""
MAX_QUOTE_CHARS = 600
MAX_SEARCH_TEXT_CHARS = 200

_WORD = re.compile(r"\w+")
_TASK = (
    "You split a post into atomic factual claims for a fact-checking engine. For each claim, copy the "
    "claim's words exactly as they appear in one field (a contiguous quote, no edits, no ellipsis), name "
    "that field, and give a short neutral search text a search engine can use to find evidence about it "
    "(plain words, no site: operators, no X or Twitter). Do not add claims the text does not make."
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _ProposedClaim(_Strict):
    field: str = Field(max_length=32, description="The name of the field the quote is copied from.")
    quote: str = Field(max_length=MAX_QUOTE_CHARS, description="The claim's words, copied exactly.")
    search_text: str = Field(max_length=MAX_SEARCH_TEXT_CHARS, description="Normalized search text.")


class ClaimSpansAnswer(_Strict):
    """What the model must return: the claims it finds, each a quote of one field."""

    claims: list[_ProposedClaim] = Field(max_length=MAX_PROPOSED_CLAIMS)


def find_claims(subject: Subject, max_claims: int, assist: ModelAssist | None = None) -> ClaimSet:
    """The subject's claims and which to check: a model's validated spans when ``assist`` is given and any
    survive, else the segmentation's; then the implied claims that pass the necessity test. Every
    model-assisted step is in ``ClaimSet.steps``. Offline this is exactly ``extract_claims``."""
    if assist is None:
        return extract_claims(subject, max_claims)
    spans, step = propose_spans(subject, assist)
    found = extract_claims(subject, max_claims, spans=spans) if spans else None
    if found is None or not found.all:  # nothing usable proposed: the segmentation's claims
        found = extract_claims(subject, max_claims)
    implied, implied_step = propose_implied(subject, found, assist)
    return replace(
        found,
        not_assessed=[*found.not_assessed, *[c for c in implied if c.not_assessed is not None]],
        claims=[*found.claims, *[c for c in implied if c.not_assessed is None]],
        steps=(*found.steps, step, implied_step),
    )


def propose_spans(subject: Subject, assist: ModelAssist) -> tuple[list[ProposedSpan], ModelStep]:
    """The model's claim spans that map verbatim onto the subject's claim fields, and the step's record."""
    fields = [captured for _, captured in claim_fields(subject)]
    blocks = [
        data_block(f"field {captured.name.value}", quarantine(captured.text[:MAX_FIELD_CHARS]).text)
        for captured in fields
    ]
    asked = assist.ask(AssistStep.CLAIM_SPANS, _TASK, blocks, ClaimSpansAnswer)
    if asked.answer is None:
        return [], asked.record()
    by_name = {captured.name.value: captured for captured in fields}
    spans: list[ProposedSpan] = []
    rejected: list[str] = []
    taken: set[tuple[str, int, int]] = set()
    for n, proposal in enumerate(asked.answer.claims, start=1):
        captured = by_name.get(proposal.field)
        if captured is None:
            rejected.append(
                f"claim {n}: names {proposal.field[:32]!r}, which is not a field claims are read from"
            )
            continue
        located = locate_quote(proposal.quote, captured.text)
        if located is None:
            rejected.append(f"claim {n}: its quote is not in {captured.name.value}")
            continue
        if (captured.name.value, *located) in taken:
            rejected.append(f"claim {n}: repeats another proposed span")
            continue
        taken.add((captured.name.value, *located))
        search_text, problem = _search_text(proposal.search_text, proposal.quote)
        if problem:
            rejected.append(
                f"claim {n}: search text rejected ({problem}); the claim's own words are searched"
            )
        spans.append(ProposedSpan(captured.name, located[0], located[1], search_text))
    return spans, asked.record(rejected, used=bool(spans))


def _search_text(proposed: str, quote: str) -> tuple[str | None, str]:
    text = " ".join(proposed.split())
    if not text:
        return None, ""
    try:
        PlannedQuery(kind=QueryKind.NORMALIZED, text=text)
    except ValidationError:
        return None, "it names X/Twitter or uses a site: operator"
    claim_words = {w.lower() for w in _WORD.findall(quote) if len(w) > 2}
    if not claim_words & {w.lower() for w in _WORD.findall(text)}:
        return None, "it shares no word with the claim"
    return text, ""
