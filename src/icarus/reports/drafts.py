"""Cited explanatory drafts: a model writes each claim's explanation, code decides whether it is published.

For every assessed claim, ``attach_drafts`` gives the model the claim, the label and reasons the policy
decided, and the evidence judged against the claim (by server-assigned id, quarantined). The model answers
with a short text that cites evidence as ``[id]``, and for each citation a verbatim quote of that item and
whether the item supports, refutes or only gives context. A draft is published only when every check holds:

* G3: every id it cites (inline and in its citations) is one it was given, the two lists agree, every URL
  it writes is an evidence item's URL (the scorer's own ``g3_rejected_drafts`` is run on it), and each
  quote is a verbatim passage of the item it cites, so the item says what the draft says it says;
* each citation's side matches the stance judged for that item and claim: an item judged neutral is
  context, never support or refutation;
* G7: the scorer's ``g7_violations`` finds nothing in it (no honesty or intent, no AI-detector score), and
  it uses no label word the policy did not decide for that claim (``LABEL_WORDS``), nor any verdict word
  outside the four labels (``VERDICT_WORDS``);
* the answer was not oversized, malformed or injected (``llm.assist``).

A draft that passes goes into the ledger's ``drafts`` and the ledger is scored again (the drafts change no
label; the stored result must be the ledger's own score for a replay to match). A rejected draft is
recorded as a ``ModelStep`` and the claim keeps the deterministic explanation
(``deterministic_explanation``), which is built from the result alone. Offline, no draft is asked for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from icarus.claims.implied import checked_text
from icarus.ledger import Claim, EvidenceItem, ExplanationDraft, Ledger, ModelStep
from icarus.ledger.assistance import AssistStep
from icarus.llm.assist import ModelAssist
from icarus.llm.quarantine import data_block, quarantine
from icarus.reports.render import deterministic_explanation
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.engine import score_ledger
from icarus.scoring.icarus.gates import g3_rejected_drafts, g7_violations
from icarus.scoring.labels import Label

__all__ = [
    "LABEL_WORDS",
    "MAX_DRAFT_CHARS",
    "VERDICT_WORDS",
    "DraftAnswer",
    "attach_drafts",
    "deterministic_explanation",
    "draft_problems",
]

MAX_DRAFT_CHARS = 1_200
MAX_EVIDENCE_PER_DRAFT = 8
MAX_EXCERPT_CHARS = 1_500
MAX_QUOTE_CHARS = 400

LABEL_WORDS: Mapping[Label, tuple[str, ...]] = {
    Label.NOT_SUPPORTED: ("not supported", "unsupported", "❌"),
    Label.MISLEADING: ("misleading", "missing context", "⚠"),
    Label.SUPPORTED: ("supported", "✅"),
    Label.UNVERIFIABLE: ("unverifiable", "cannot be verified", "❔"),
}
"""Words that name a label. A draft may use only those of the label the policy decided for its claim."""

VERDICT_WORDS = re.compile(
    r"\b(?:true|false|fake|hoax|debunked|accurate|inaccurate|correct|incorrect|disproven|misinformation|"
    r"disinformation|lie|lies|lying)\b",
    re.IGNORECASE,
)
"""Verdict words outside the four published labels: a draft never uses them (the policy publishes four)."""

_INLINE_ID = re.compile(r"\[([^\[\]\s]{1,80})\]")
_URL = re.compile(r"https?://[^\s<>()\[\]]+")
_TASK = (
    "You write the short explanation shown with one claim's result in a fact-checking report. The label "
    "and reasons are decided already: explain them, do not change them, and use no other verdict word. "
    "Say only what the evidence you are given says. Cite evidence only by its id in square brackets, e.g. "
    "[ev-1a2b], and for each citation copy a short passage of that evidence exactly and say whether it "
    "supports, refutes or only gives context. Write about the evidence, never about anyone's honesty or "
    "intent. At most four sentences, no links."
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Citation(_Strict):
    evidence_id: str = Field(max_length=80)
    quote: str = Field(max_length=MAX_QUOTE_CHARS, description="A passage of that evidence, copied exactly.")
    side: Literal["supports", "refutes", "context"]


class DraftAnswer(_Strict):
    """What the model must return for one claim's explanation."""

    claim_id: str = Field(max_length=40)
    text: str = Field(max_length=MAX_DRAFT_CHARS, description="The explanation, citing evidence as [id].")
    citations: list[_Citation] = Field(max_length=MAX_EVIDENCE_PER_DRAFT)


def attach_drafts(
    ledger: Ledger, result: dict[str, Any], assist: ModelAssist | None, policy: PolicyConfig
) -> tuple[Ledger, dict[str, Any]]:
    """The ledger with the model drafts that passed validation and its score, with every draft step
    recorded in ``model_steps``. Offline (``assist`` None) both come back unchanged."""
    if assist is None or not result.get("claims"):
        return ledger, result
    drafts: list[ExplanationDraft] = []
    steps: list[ModelStep] = []
    for claim_result in result["claims"]:
        claim = ledger.claim(claim_result["id"])
        items = _judged_items(ledger, claim.claim_id)
        asked = assist.ask(
            AssistStep.EXPLANATION_DRAFT,
            _TASK,
            _blocks(claim, claim_result, items),
            DraftAnswer,
            claim_id=claim.claim_id,
        )
        if asked.answer is None:
            steps.append(asked.record())
            continue
        draft, problems = draft_problems(
            asked.answer, claim, Label(claim_result["label"]), items, ledger, result, policy
        )
        steps.append(asked.record(problems, used=draft is not None))
        if draft is not None:
            drafts.append(draft)
    updated = ledger.model_copy(
        update={"drafts": [*ledger.drafts, *drafts], "model_steps": [*ledger.model_steps, *steps]}
    )
    return updated, score_ledger(updated, policy)


def draft_problems(
    answer: DraftAnswer,
    claim: Claim,
    label: Label,
    items: list[EvidenceItem],
    ledger: Ledger,
    result: dict[str, Any],
    policy: PolicyConfig,
) -> tuple[ExplanationDraft | None, list[str]]:
    """The draft to publish and no problems, or None and every reason it is rejected."""
    problems: list[str] = []
    text = " ".join(answer.text.split())
    if answer.claim_id != claim.claim_id:
        problems.append(f"it explains claim {answer.claim_id[:40]!r}, not {claim.claim_id}")
    if not text:
        problems.append("it is empty")
    given = {item.evidence_id: item for item in items}
    inline = list(dict.fromkeys(_INLINE_ID.findall(text)))
    cited = list(dict.fromkeys(citation.evidence_id for citation in answer.citations))
    draft = ExplanationDraft(
        claim_id=claim.claim_id,
        text=text,
        cited_evidence_ids=sorted({*inline, *cited}),
        cited_urls=_URL.findall(text),
    )
    problems += [
        f"G3: {problem}" for problem in g3_rejected_drafts(ledger.model_copy(update={"drafts": [draft]}))
    ]
    if set(inline) != set(cited):
        problems.append("G3: the ids cited in its text and in its citations differ")
    if given and not cited:
        problems.append("G3: it cites no evidence")
    # A stance below the policy's confidence floor is read as neutral by the scorer, and so here.
    floor = policy.weighting.neutral_below_confidence
    stances = {
        item.evidence_id: judgment.stance.stance.value if judgment.stance.confidence >= floor else "neutral"
        for item in items
        for judgment in item.judgments
        if judgment.claim_id == claim.claim_id
    }
    for citation in answer.citations:
        item = given.get(citation.evidence_id)
        if item is None:
            problems.append(
                f"G3: it cites {citation.evidence_id[:80]!r}, which it was not given for this claim"
            )
            continue
        if not _verbatim(citation.quote, item.text):
            problems.append(f"G3: its quote of {item.evidence_id} is not in that item")
        judged = stances.get(item.evidence_id, "neutral")
        said = {"supports": "support", "refutes": "refute", "context": "neutral"}[citation.side]
        if said != "neutral" and said != judged:
            problems.append(
                f"G3: it says {item.evidence_id} {citation.side} the claim; it was judged {judged}"
            )
    ledger_with = ledger.model_copy(update={"drafts": [draft]})
    problems += [f"G7: {p}" for p in g7_violations(result, ledger_with, policy) if p.startswith("draft for")]
    problems += [f"G7: {p}" for p in _label_word_problems(text, label)]
    return (None, problems) if problems else (draft, [])


def _label_word_problems(text: str, label: Label) -> list[str]:
    lowered = text.casefold()
    problems: list[str] = []
    # Longest words first, and each match blanked, so "not supported" is never read as "supported".
    words = sorted(((w, owner) for owner, ws in LABEL_WORDS.items() for w in ws), key=lambda p: -len(p[0]))
    for word, owner in words:
        pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")
        if pattern.search(lowered):
            if owner is not label:
                problems.append(f"it uses {word!r}, a label the policy did not decide ({label.value})")
            lowered = pattern.sub(" ", lowered)
    verdict = VERDICT_WORDS.search(text)
    if verdict:
        problems.append(f"it uses {verdict.group(0)!r}, a verdict word outside the four labels")
    return problems


def _verbatim(quote: str, text: str) -> bool:
    wanted = " ".join(quote.split())
    return bool(wanted) and wanted in " ".join(text.split())


def _judged_items(ledger: Ledger, claim_id: str) -> list[EvidenceItem]:
    items = [item for item in ledger.evidence if any(j.claim_id == claim_id for j in item.judgments)]
    return items[:MAX_EVIDENCE_PER_DRAFT]


def _blocks(claim: Claim, claim_result: Mapping[str, Any], items: list[EvidenceItem]) -> list[str]:
    label = Label(claim_result["label"])
    reasons = "; ".join(r["message"] for r in claim_result.get("reasons", [])[:6])
    blocks = [
        f"Claim id: {claim.claim_id}",
        data_block(f"claim {claim.claim_id}", quarantine(checked_text(claim)).text),
        f"Decided label: {label.heading} ({label.symbol}), confidence {claim_result.get('band', 'low')}.",
        f"Reasons: {reasons}" if reasons else "Reasons: none recorded.",
    ]
    for item in items:
        excerpt = item.excerpt.text if item.excerpt is not None else item.text
        blocks.append(f"Evidence id: {item.evidence_id}")
        blocks.append(
            data_block(f"evidence {item.evidence_id}", quarantine(excerpt[:MAX_EXCERPT_CHARS]).text)
        )
    if not items:
        blocks.append("No evidence was judged for this claim: cite none.")
    return blocks
