"""The engine against the independent reference (reference/), on random claims across the boundaries.

``make reference-check`` (or ``python -m bench.reference_check --cases N``) scores N random claims per
model family under both and reports how many agree on every field of the claim's trace: state, stability,
probability and every component. The same generator drives the differential test in tests/reference/.
Claims are drawn with ties (shared magnitudes and evidence ids), empty sides, every enum value, authors'
own checks, and half of them under a config whose one threshold or spread limit is moved onto the
claim's own value, or 1e-6 either side of it.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any, TypeVar

from rich.progress import Progress

from bench import icarus_reference, reference_families
from icarus.ledger import (
    Authenticity,
    EditionKind,
    Extraction,
    LedgerClaimType,
    LinkDirection,
    LinkProvenance,
    NotEvaluableReason,
    ObservationKind,
    Relevance,
    ReviewCheck,
    ReviewCheckName,
    SourceKind,
)
from icarus.scoring.ledger.calculate import ClaimInput, LinkInput, assess_claim
from icarus.scoring.ledger.config import CONFIG_FILES, LedgerModelConfig, load_config
from reference import ledger_models

T = TypeVar("T")
Pick = Callable[[Sequence[Any]], Any]
DEFAULT_CASES = 100_000
PEOPLE = (None, "alice", "bob")
NEAR = (Decimal("-0.000001"), Decimal(0), Decimal("0.000001"))
# (config path, what of the claim's trace the limit is moved onto)
LIMITS = (
    (("state_thresholds", "SUPPORTED"), "probability"),
    (("state_thresholds", "LEANS_SUPPORTED"), "probability"),
    (("state_thresholds", "CONTRADICTED"), "probability"),
    (("state_thresholds", "LEANS_CONTRADICTED"), "probability"),
    (("stability", "high_max_spread"), "spread"),
    (("stability", "medium_max_spread"), "spread"),
)


def random_claim(pick: Pick) -> ClaimInput:
    """One claim, every choice made by ``pick`` (random.choice, or a hypothesis draw)."""
    link_ids = [f"l{i}" for i in range(8)]
    links = []
    for _ in range(pick(range(7))):
        link_id = pick(link_ids)
        link_ids.remove(link_id)
        links.append(
            LinkInput(
                link_id=link_id,
                evidence_id=pick(("e0", "e1", "e2", "e3")),
                direction=pick(list(LinkDirection)),
                relevance=pick(list(Relevance)),
                observation=pick(list(ObservationKind)),
                interpretive_steps=pick(range(8)),
                authenticity=pick(list(Authenticity)),
                extraction=pick(list(Extraction)),
                source_kind=pick(list(SourceKind)),
                group=pick((None, None, "g1", "g2")),
                origin=pick((None, "o1", "o2")),
                provenance=pick(list(LinkProvenance)),
                edition=pick((EditionKind.NAMED, EditionKind.NAMED, EditionKind.OTHER)),
                recorded_by=pick(PEOPLE),
            )
        )
    checks = tuple(
        ReviewCheck(check_id=f"r{i}", check=pick(list(ReviewCheckName)), performed_by=pick(PEOPLE[1:]))
        for i in range(pick(range(4)))
    )
    return ClaimInput(
        claim_id="c1",
        claim_type=pick(list(LedgerClaimType)),
        links=tuple(links),
        not_evaluable=pick((None,) * 9 + tuple(NotEvaluableReason)),
        recorded_by=pick(PEOPLE),
        review_checks=checks,
    )


def boundary_config(base: LedgerModelConfig, claim: ClaimInput, pick: Pick) -> LedgerModelConfig:
    """``base``, or base with one limit moved onto this claim's own value (±1e-6 or exactly)."""
    trace = assess_claim(claim, base)
    if trace["probability"] is None or pick((True, False)):
        return base
    (section, key), source = pick(LIMITS)
    value = Decimal(trace["probability"] if source == "probability" else trace["variants"]["spread"])
    data = base.canonical()
    data[section] = {**data[section], key: str(value + pick(NEAR))}
    return LedgerModelConfig.model_validate(data)


def claim_data(claim: ClaimInput) -> dict[str, Any]:
    """The claim in the spec's claim-input form, every field explicit."""
    return {
        "claim": claim.claim_id,
        "claim_type": claim.claim_type.value,
        "not_evaluable": None if claim.not_evaluable is None else claim.not_evaluable.value,
        "recorded_by": claim.recorded_by,
        "review_checks": [
            {"check_id": c.check_id, "check": c.check.value, "performed_by": c.performed_by}
            for c in claim.review_checks
        ],
        "links": [
            {
                "link": link.link_id,
                "evidence": link.evidence_id,
                "direction": link.direction.value,
                "relevance": link.relevance.value,
                "observation": link.observation.value,
                "interpretive_steps": link.interpretive_steps,
                "authenticity": link.authenticity.value,
                "extraction": link.extraction.value,
                "source_kind": link.source_kind.value,
                "group": link.group,
                "origin": link.origin,
                "provenance": link.provenance.value,
                "edition": link.edition.value,
                "recorded_by": link.recorded_by,
            }
            for link in claim.links
        ],
    }


def differences(claim: ClaimInput, config: LedgerModelConfig) -> list[str]:
    """The trace fields on which the engine and the reference disagree for this claim (none: agreement)."""
    engine = assess_claim(claim, config)
    reference = ledger_models.score_claim(claim_data(claim), config.canonical())
    return sorted(key for key in engine.keys() | reference.keys() if engine.get(key) != reference.get(key))


def run(family: str, cases: int, seed: int, progress: Progress | None = None) -> dict[str, Any]:
    rng = random.Random(seed)
    refs = [ref for ref in sorted(CONFIG_FILES) if ref.startswith(family)]
    configs = {ref: load_config(ref) for ref in refs}
    task = progress.add_task(family, total=cases) if progress else None
    disagreed: Counter[str] = Counter()
    states: Counter[str] = Counter()
    agree = 0
    started = time.perf_counter()
    for _ in range(cases):
        claim = random_claim(rng.choice)
        config = boundary_config(configs[rng.choice(refs)], claim, rng.choice)
        found = differences(claim, config)
        agree += not found
        disagreed.update(found)
        states[assess_claim(claim, config)["assessment_state"]] += 1
        if progress and task is not None:
            progress.advance(task)
    return {
        "family": family,
        "cases": cases,
        "agree": agree,
        "agreement": f"{100 * agree / cases:.3f} %",
        "fields_differing": dict(disagreed) or "none",
        "states_seen": len(states),
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str]) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.reference_check")
    parser.add_argument("--cases", type=int, default=DEFAULT_CASES, help="random claims per family")
    parser.add_argument("--seed", type=int, default=0)
    args, _ = parser.parse_known_args(argv)
    with Progress() as progress:
        runs = [
            run(family, args.cases, args.seed, progress) for family in ("ledger-strict", "ledger-default")
        ]
        runs.append(icarus_reference.run(args.cases, args.seed, progress))
        runs += reference_families.run_all(args.cases, args.seed, progress)
    return {"runs": runs}


if __name__ == "__main__":
    import sys

    result = main(sys.argv[1:])
    for row in result["runs"]:
        print(row)
    sys.exit(0 if all(row["agree"] == row["cases"] for row in result["runs"]) else 1)
