"""Implied claims: checked only when the implication is necessary and can be stated without guessing intent.

A model may propose what the subject's words imply (a chart captioned "doubled since 2019" implies that the
chart's later value is about twice its 2019 value). Each proposal names the author's words it rests on (the
anchor, a verbatim quote of a claim field) and states the implication. Code then applies the necessity
test (docs/checking.md, "Implied claims"); a proposal passes only when all four hold:

1. Anchored: the anchor is found verbatim in a field claims are read from.
2. Literal: the anchor is itself a literal assertion — not opinion, prediction, satire, a joke, advice or
   about a private individual — since nothing is necessarily implied by words not meant literally.
3. Nothing new: every number and every capitalised name in the statement already occurs in the subject's
   captured text (image text included). An implication that needs a fact the author never gave is a guess.
4. No intent: the statement says nothing about purpose, motive or hidden meaning ("to distract", "wants",
   "suggests", "timed") and does not hedge ("may", "probably"): a necessary consequence needs neither.

A proposal that is not anchored, or that merely repeats its anchor, is rejected and recorded. One that is
anchored but fails 2–4 is listed as not assessed (``implied_needs_intent``): it is never scored, so it can
never set the overall label. One that passes is a claim like any other, with ``implication`` set: its
``text`` is the anchor (the author's words, verbatim, as G0 requires) and its ``statement`` is what is
searched and judged, shown as the checker's wording, never as the author's.

Offline no implication is stated: telling what words necessarily imply needs reading, and listing none is
the conservative default.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from icarus.claims.cues import claim_type, clause_disposition, event_date, joke_marker, normalize
from icarus.claims.extract import ClaimSet, claim_fields, locate_quote
from icarus.claims.figures import extract_figures
from icarus.ledger.assistance import AssistStep, ModelStep
from icarus.ledger.base import Span
from icarus.ledger.claims import Claim, Disposition, Implication, NotAssessedReason
from icarus.ledger.subject import Subject
from icarus.llm.assist import ModelAssist
from icarus.llm.quarantine import data_block, quarantine

__all__ = [
    "MAX_FIELD_CHARS",
    "MAX_IMPLIED_CLAIMS",
    "ImpliedClaimsAnswer",
    "checked_text",
    "necessity_problem",
    "propose_implied",
]

MAX_IMPLIED_CLAIMS = 3
"""Most implied claims kept per check; each one costs a claim's share of the query budget."""
MAX_STATEMENT_CHARS = 300
MAX_FIELD_CHARS = 8_000
"""Longest field text sent to a model; a check reads the rest by segmentation."""

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NAME = re.compile(r"\b[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")
_INTENT = re.compile(
    r"\b(?:intend\w*|intention\w*|want(?:s|ed)?|wish(?:es|ed)?|hop(?:e|es|ed|ing)|tr(?:y|ies|ied|ying)\s+to|"
    r"meant\s+to|in\s+order\s+to|so\s+(?:as\s+)?(?:that|to)|to\s+(?:distract|hide|cover|deflect|influence|"
    r"sway|mislead|deceive|smear|boost)|motiv\w*|agenda|purpose(?:ly|fully)?|deliberate(?:ly)?|secret(?:ly)?|"
    r"suggest(?:s|ed|ing)?|impl(?:y|ies|ied|ying)|hint(?:s|ed|ing)?|insinuat\w*|timed|coincidence|"
    r"really\s+means?|blame[sd]?|fault|responsible)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:may|might|could|perhaps|possibly|probably|likely|apparently|presumably|seem(?:s|ed)?)\b",
    re.IGNORECASE,
)
_TASK = (
    "You list claims a post necessarily implies without stating them, for a fact-checking engine. Only list "
    "an implication that follows from the post's own words and data alone (for example, a chart caption "
    "'doubled since 2019' with values shown implies the later value is about twice the 2019 value). Never "
    "guess at purpose, motive or hidden meaning, never add facts the post does not give. For each, copy "
    "the post's words it rests on exactly (the anchor), name their field, and state the implication. "
    "Return an empty list when there is none, which is the usual case."
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _ProposedImplication(_Strict):
    field: str = Field(max_length=32, description="The field the anchor is copied from.")
    anchor: str = Field(
        max_length=600, description="The post's words the implication rests on, copied exactly."
    )
    statement: str = Field(max_length=MAX_STATEMENT_CHARS, description="The implied claim, stated plainly.")


class ImpliedClaimsAnswer(_Strict):
    """What the model must return: the implications it finds (usually none)."""

    implications: list[_ProposedImplication] = Field(max_length=10)


def checked_text(claim: Claim) -> str:
    """What is searched and judged for ``claim``: an implied claim's statement, else its verbatim text."""
    return claim.implication.statement if claim.implication is not None else claim.text


def necessity_problem(anchor: str, statement: str, subject_text: str, as_of_anchor: Disposition) -> str:
    """Why the implication fails tests 2–4, in plain words, or "" when it is necessary."""
    if as_of_anchor is not Disposition.CHECKABLE:
        return f"its anchor is not a literal assertion ({as_of_anchor.value.replace('_', ' ')})"
    given = set(_NUMBER.findall(subject_text))
    new_numbers = [n for n in _NUMBER.findall(statement) if n not in given]
    if new_numbers:
        return f"it states figures the post does not give: {', '.join(new_numbers[:3])}"
    words = " ".join(subject_text.split()).casefold()
    new_names = [
        name
        for name in (_without_opener(run) for run in _NAME.findall(statement))
        if name and not re.search(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", words)
    ]
    if new_names:
        return f"it names what the post does not: {', '.join(new_names[:3])}"
    intent = _INTENT.search(statement)
    if intent:
        return f"it speaks of intent or hidden meaning ({intent.group(0)!r})"
    hedge = _HEDGE.search(statement)
    if hedge:
        return f"it hedges ({hedge.group(0)!r}), so it is not a necessary consequence"
    return ""


# Capitalised only because they open the statement.
_SENTENCE_OPENERS = frozenset(
    {"the", "a", "an", "it", "its", "this", "that", "these", "those", "there", "in"}
)


def _without_opener(run: str) -> str:
    words = run.split()
    while words and words[0].casefold() in _SENTENCE_OPENERS:
        words.pop(0)
    return " ".join(words)


def propose_implied(subject: Subject, found: ClaimSet, assist: ModelAssist) -> tuple[list[Claim], ModelStep]:
    """Implied claims the model proposes that are anchored in the subject, numbered after ``found``'s
    claims: necessary ones to check, the rest listed as not assessed. Returns them and the step's record."""
    fields = [captured for _, captured in claim_fields(subject)]
    blocks = [
        data_block(f"field {captured.name.value}", quarantine(captured.text[:MAX_FIELD_CHARS]).text)
        for captured in fields
    ]
    asked = assist.ask(AssistStep.IMPLIED_CLAIMS, _TASK, blocks, ImpliedClaimsAnswer)
    if asked.answer is None:
        return [], asked.record()
    subject_text = "\n".join(captured.text for captured in subject.fields)
    by_name = {captured.name.value: captured for captured in fields}
    next_id = 1 + max((int(claim.claim_id[1:]) for claim in found.all), default=0)
    as_of = subject.captured_at.date()
    claims: list[Claim] = []
    rejected: list[str] = []
    for n, proposal in enumerate(asked.answer.implications, start=1):
        captured = by_name.get(proposal.field)
        located = locate_quote(proposal.anchor, captured.text) if captured is not None else None
        statement = " ".join(proposal.statement.split())
        if captured is None or located is None:
            rejected.append(f"implication {n}: its anchor is not in a field claims are read from")
            continue
        anchor = captured.text[located[0] : located[1]]
        if not statement or normalize(statement) == normalize(anchor):
            rejected.append(f"implication {n}: it repeats its anchor, which is checked as it stands")
            continue
        if len(claims) >= MAX_IMPLIED_CLAIMS:
            rejected.append(
                f"implication {n}: beyond the {MAX_IMPLIED_CLAIMS} implied claims one check takes"
            )
            continue
        disposition = joke_marker(anchor) or clause_disposition(anchor, as_of)
        problem = necessity_problem(anchor, statement, subject_text, disposition)
        claims.append(
            Claim(
                claim_id=f"c{next_id + len(claims)}",
                source_field=captured.name,
                span=Span(start=located[0], end=located[1]),
                text=anchor,
                normalized=normalize(statement),
                disposition=Disposition.IMPLIED_NEEDS_INTENT if problem else Disposition.CHECKABLE,
                not_assessed=NotAssessedReason.IMPLIED_NEEDS_INTENT if problem else None,
                claim_type=claim_type(statement),
                event_date=event_date(statement) or event_date(anchor),
                figures=extract_figures(captured.text, located[0], located[1]),
                implication=Implication(
                    statement=statement,
                    necessity=f"not necessary: {problem}" if problem else _NECESSARY,
                    proposed_by=f"model:{asked.version}",
                ),
            )
        )
    return claims, asked.record(rejected, used=bool(claims))


_NECESSARY = (
    "necessary: anchored verbatim in a literal assertion, states no figure or name the post does not give, "
    "and says nothing of intent"
)
