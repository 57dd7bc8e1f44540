"""What models proposed for a check, and what code did with it: the record of each model-assisted step.

Models may propose claim spans and search text, implied claims, query plans and explanation drafts; code
validates every proposal and is the final authority. Each step leaves one ``ModelStep``: which model was
asked, the prompt's hash, whether the answer was accepted, and why any part of it was rejected. The query
plan that actually ran is kept beside it (``QueryPlan``), whoever proposed it, so a report can show it.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum

from pydantic import Field

from icarus.ledger.base import LedgerModel


class AssistStep(StrEnum):
    """The steps a model may assist with.

    - ``claim_spans``: the claims of the subject, as quotes of its captured fields, with search text.
    - ``implied_claims``: claims the subject's words necessarily imply (checked only when necessary).
    - ``query_plan``: the searches to run for one claim.
    - ``explanation_draft``: the explanation shown with one claim's result, citing evidence ids.
    """

    CLAIM_SPANS = "claim_spans"
    IMPLIED_CLAIMS = "implied_claims"
    QUERY_PLAN = "query_plan"
    EXPLANATION_DRAFT = "explanation_draft"


class AssistOutcome(StrEnum):
    """What code did with a model's answer.

    - ``accepted``: every part passed validation and is used.
    - ``partly_accepted``: some parts passed and are used; the rest are listed in ``rejected``.
    - ``rejected``: nothing passed (malformed, oversized, injected, or no part mapped onto the record);
      the deterministic result stands in.
    - ``failed``: no answer (endpoint unreachable or erroring); the deterministic result stands in.
    """

    ACCEPTED = "accepted"
    PARTLY_ACCEPTED = "partly_accepted"
    REJECTED = "rejected"
    FAILED = "failed"


class ModelStep(LedgerModel):
    """One model-assisted step of a check and what validation made of the answer. No rule reads it."""

    step: AssistStep = Field(description="Which step the model was asked to assist with.")
    claim_id: str | None = Field(
        default=None, description="The claim the step was about; null for steps about the whole subject."
    )
    provider: str = Field(description="Who answered, e.g. openai-compatible.")
    version: str = Field(description="The model name at that provider.")
    prompt_sha256: str = Field(description="SHA-256 of the prompt, model and answer schema sent.")
    answer_sha256: str | None = Field(
        default=None, description="SHA-256 of the raw answer as received; null when none came back."
    )
    outcome: AssistOutcome = Field(description="Accepted, partly accepted, rejected or failed.")
    rejected: list[str] = Field(
        default_factory=list,
        description="Why each rejected part (or the whole answer) was rejected, in plain words.",
    )


class PlannedSearch(LedgerModel):
    """One search that ran for a claim: the kind of search, its text, alternatives and date bounds."""

    kind: str = Field(description="Which of the six ways of searching it serves (e.g. close_wording).")
    text: str = Field(description="Plain words and double-quoted phrases, as sent to the providers.")
    any_of: list[str] = Field(
        default_factory=list, description="Words or phrases of which a match should contain at least one."
    )
    since: date | None = Field(default=None, description="Earliest publication date asked for.")
    until: date | None = Field(default=None, description="Latest publication date asked for.")
    proposed_by: str = Field(
        default="planner",
        description="planner (the deterministic query planner) or model (a validated model proposal).",
    )


class QueryPlan(LedgerModel):
    """The validated searches that ran for one claim, in the order they ran."""

    claim_id: str = Field(description="The claim searched for.")
    searches: list[PlannedSearch] = Field(default_factory=list, description="The searches, in order.")
