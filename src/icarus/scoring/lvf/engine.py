"""Run LVF over a ledger: gate, assess, reconcile, combine, label. Pure given its assessors.

The checkworthiness gate comes first: a claim below it is skipped before any assessor (the costly stage)
is asked anything, and its record says so. Assessors are passed in; the deterministic ``LedgerAssessor``
is always among them (``assessors_for`` adds it when missing). Public votes are not an input.

Accepted challenges are an input only when passed in (``challenges``): a claim's own challenges add their
evidence items to the ledger that claim's assessment reads (its provenance graph included), and the run
records which challenges it used. Other claims, and a claim skipped at the gate, read the ledger as given.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from icarus.claims.cues import checkworthiness
from icarus.ledger import Claim, Disposition, Ledger, TemporalScope
from icarus.scoring.canonical import canonical_json, code_hash, sha256_hex
from icarus.scoring.lvf.assessors import (
    LEDGER_ASSESSOR,
    AssessmentRequest,
    Assessor,
    AssessorResult,
    AssessorStatus,
    LedgerAssessor,
)
from icarus.scoring.lvf.challenge_evidence import FedChallenge, with_challenge_evidence
from icarus.scoring.lvf.config import Component, FormulaName, LvfConfig
from icarus.scoring.lvf.facts import ClaimFacts, claim_facts, ledger_graph
from icarus.scoring.lvf.formula import (
    SCORE_STEP,
    band_for,
    combine,
    display_score,
    label_for,
    lvf_component,
    nli_component,
    passes_gate,
    reconcile,
    reliability_component,
)
from icarus.scoring.lvf.inputs import RunInputs, run_inputs
from icarus.scoring.lvf.record import (
    AssessorRecord,
    ChallengeUse,
    ComponentRecord,
    CriterionRecord,
    Hold,
    LvfRun,
    RunCounts,
    RunStatus,
)
from icarus.scoring.lvf.stance_assessor import STANCE_ASSESSOR, StanceAssessor

__all__ = [
    "LVF_CODE_HASH",
    "NLI_NOT_RUN_NOTE",
    "OFFLINE_ASSESSORS",
    "assessors_for",
    "claim_checkworthiness",
    "run_lvf",
    "scored_fields",
]

LVF_CODE_HASH = code_hash(Path(__file__).parent)

# Known limitations, shown with every run (in the order a reader needs them).
ALWAYS = (
    "A score assesses the evidence available at the checked date; it is not a guarantee of truth.",
    "Automated assessors can be wrong or inconsistent; risky or disputed results may need human review.",
    "Repeated reporting that traces to one origin counts once, never as independent corroboration.",
)
FEW_SOURCES = (
    "Fewer than two independent source records were counted (copies of one origin count once), so "
    "independent corroboration is limited."
)
NLI_NOT_RUN = "No stance judgment was available: the fallback weights apply and NLI is reported as not run."
SEARCH_NOT_RUN = "External search did not run for this ledger; that is not evidence against the claim."
TIME_SENSITIVE = "The claim is time-sensitive and can go stale; it needs another run later."
NLI_NOT_RUN_NOTE = "no stance judgment available: fallback weights"
CHALLENGE_EVIDENCE = (
    "Some evidence came from accepted challenges: a person reviewed it, but Icarus holds only the quoted "
    "excerpt, not a snapshot of the source."
)


def claim_checkworthiness(claim: Claim) -> tuple[Decimal, tuple[str, ...]]:
    """Checkworthiness in 0-1 (the claims package's deterministic cues). A claim whose disposition is not
    checkable (opinion, prediction, satire...) is not testable: 0."""
    if claim.disposition is not Disposition.CHECKABLE:
        return Decimal("0.00"), (f"disposition:{claim.disposition.value}",)
    worth = checkworthiness(claim.text)
    return Decimal(worth.points) / 100, worth.features


OFFLINE_ASSESSORS: tuple[Assessor, ...] = (LedgerAssessor(), StanceAssessor())
"""The two offline assessors: the ledger-rule one and the stance-and-claim one, which read different
things. Both run on every assessed claim."""


def assessors_for(
    extra: Sequence[Assessor] = (), offline: Sequence[Assessor] = OFFLINE_ASSESSORS
) -> tuple[Assessor, ...]:
    """The offline assessors first, then any others (an LLM assessor when configured). ``offline`` exists
    so a test can run the deterministic assessor alone; the deterministic one is always among them."""
    chosen = (
        tuple(offline) if any(a.name == LEDGER_ASSESSOR for a in offline) else (LedgerAssessor(), *offline)
    )
    names = {a.name for a in chosen}
    return (*chosen, *(a for a in extra if a.name not in names | {LEDGER_ASSESSOR, STANCE_ASSESSOR}))


def _ledger_hash(ledger: Ledger) -> str:
    return "sha256:" + sha256_hex(canonical_json(ledger.model_dump(mode="python")))


def run_lvf(
    ledger: Ledger,
    config: LvfConfig,
    assessors: Sequence[Assessor] | None = None,
    claim_ids: Sequence[str] | None = None,
    challenges: Sequence[FedChallenge] = (),
    offline: Sequence[Assessor] = OFFLINE_ASSESSORS,
) -> tuple[LvfRun, ...]:
    """One run per claim (all claims, or ``claim_ids`` in ledger order). ``challenges``: accepted challenges
    of this ledger whose evidence the runs of their claims read."""
    chosen = assessors_for(assessors or (), offline)
    wanted = set(claim_ids) if claim_ids is not None else None
    if wanted is not None:
        unknown = wanted - {c.claim_id for c in ledger.claims}
        if unknown:
            raise KeyError(f"no claim {', '.join(sorted(unknown))} in ledger {ledger.ledger_id}")
    claims = [c for c in ledger.claims if wanted is None or c.claim_id in wanted]
    ledger_hash = _ledger_hash(ledger)
    with_challenge_evidence(ledger, challenges)  # refuses challenges about another ledger up front
    graph = ledger_graph(ledger, config) if claims else None
    runs = []
    for claim in claims:
        base: dict[str, Any] = {
            "methodology": config.ref,
            "config_hash": config.config_hash,
            "code_hash": LVF_CODE_HASH,
            "ledger_id": ledger.ledger_id,
            "ledger_hash": ledger_hash,
            "claim_id": claim.claim_id,
            "claim_text": claim.text,
            "checked_at": ledger.as_of,
            "checkworthiness_gate": config.checkworthiness_gate,
        }
        worth, features = claim_checkworthiness(claim)
        if not passes_gate(worth, config):
            runs.append(
                LvfRun(
                    **base,
                    status=RunStatus.SKIPPED,
                    checkworthiness=worth,
                    checkworthiness_features=features,
                    skip_reason=(
                        f"checkworthiness {worth} is below the gate {config.checkworthiness_gate}: "
                        "skipped before assessment; this says the claim is not testable as stated, "
                        "not that it is false"
                    ),
                    limitations=ALWAYS,
                )
            )
            continue
        assert graph is not None
        fed = sorted((f for f in challenges if f.claim_id == claim.claim_id), key=lambda f: f.challenge_id)
        read, read_graph = ledger, graph
        if fed:
            read = with_challenge_evidence(ledger, fed)
            read_graph = ledger_graph(read, config)
        facts = claim_facts(read, claim, read_graph, config)
        request = AssessmentRequest(ledger=read, facts=facts, config=config)
        results = [assessor.assess(request) for assessor in chosen]
        run = _scored_run(base, worth, features, facts, results, config)
        if fed:
            run = run.model_copy(
                update={
                    "challenges": tuple(
                        ChallengeUse(
                            challenge_id=f.challenge_id,
                            challenged_run_id=f.challenged_run_id,
                            evidence_ids=tuple(i.evidence_id for i in f.items),
                            evidence_hash=f.evidence_hash,
                        )
                        for f in fed
                    ),
                    "limitations": (*run.limitations, CHALLENGE_EVIDENCE),
                }
            )
        runs.append(run)
    return tuple(runs)


def scored_fields(
    worth: Decimal, results: Sequence[AssessorResult], inputs: RunInputs, config: LvfConfig
) -> dict[str, Any]:
    """The arithmetic of a claim past the gate (docs/spec/lvf.md, steps 2-7): from the assessors' answers
    and the recorded inputs to status, criteria, components, score, label, band and holds."""
    ok = {r.assessor: r.scores for r in results if r.status is AssessorStatus.OK}
    reconciled = reconcile(ok, config)
    holds = []
    minimum = config.reconciliation.min_assessors
    if len(ok) < minimum:
        holds.append(
            Hold(
                code="too_few_assessors",
                detail=f"{len(ok)} assessor(s) answered; reconciliation needs at least {minimum}",
            )
        )
    wide = [r for r in reconciled if r.held]
    if wide:
        holds.append(
            Hold(
                code="assessor_spread",
                detail="assessors disagree by more than "
                f"{config.reconciliation.max_spread} points on "
                + ", ".join(f"{r.criterion.value} ({r.spread})" for r in wide),
            )
        )

    nli = nli_component(inputs)
    formula_name = FormulaName.WITH_NLI if nli is not None else FormulaName.WITHOUT_NLI
    formula = config.formulas.get(formula_name)
    values: dict[Component, Decimal | None] = {
        Component.LVF: lvf_component(reconciled, config),
        Component.NLI: nli,
        Component.RELIABILITY: reliability_component(inputs),
        Component.CHECKWORTHINESS: (worth * 100).quantize(SCORE_STEP),
    }
    score = combine(values, formula)
    shown = display_score(score)
    components = tuple(
        ComponentRecord(
            component=component,
            status="not run" if values[component] is None else "ran",
            value=values[component],
            weight=formula.weight(component),
            note=NLI_NOT_RUN_NOTE if values[component] is None else "",
        )
        for component in Component
    )
    return {
        "status": RunStatus.HELD if holds else RunStatus.SCORED,
        "formula": formula_name,
        "criteria": tuple(
            CriterionRecord(
                criterion=r.criterion,
                weight=config.criteria[r.criterion],
                scores=r.scores,
                median=r.median,
                spread=r.spread,
            )
            for r in reconciled
        ),
        "components": components,
        "score": score,
        "display_score": shown,
        "label": label_for(shown, config),
        "band": band_for(shown, config),
        "holds": tuple(holds),
        "inputs": inputs,
    }


def _scored_run(
    base: dict[str, Any],
    worth: Decimal,
    features: tuple[str, ...],
    facts: ClaimFacts,
    results: list[AssessorResult],
    config: LvfConfig,
) -> LvfRun:
    inputs = run_inputs(facts)
    fields = scored_fields(worth, results, inputs, config)
    nli_ran = inputs.stance_judge_ran
    limitations = list(ALWAYS)
    # Independent origins (provenance clusters), not items: ten pickups of one wire story are one record.
    if len(facts.origins) < 2:
        limitations.append(FEW_SOURCES)
    if not nli_ran:
        limitations.append(NLI_NOT_RUN)
    limitations.append(SEARCH_NOT_RUN)
    if facts.claim.temporal_scope is not TemporalScope.HISTORICAL:
        limitations.append(TIME_SENSITIVE)
    return LvfRun(
        **base,
        **fields,
        checkworthiness=worth,
        checkworthiness_features=features,
        assessors=tuple(
            AssessorRecord(
                assessor=r.assessor,
                provider=r.provider,
                version=r.version,
                status=r.status.value,
                scores=dict(r.scores),
                notes=dict(r.notes),
                failure=r.failure,
                prompt_hash=r.prompt_hash,
                raw_response=r.raw_response,
            )
            for r in results
        ),
        counts=RunCounts(
            judged_items=len(facts.judged),
            counted_items=len(facts.counted),
            clusters=facts.cluster_count,
            independent_origins=len(facts.origins),
            supporting_origins=len(facts.supporting),
            refuting_origins=len(facts.refuting),
        ),
        limitations=tuple(limitations),
    )
