"""Random LVF runs for the engine-against-reference comparison (``bench.reference_check``, tests/reference).

A case is what a run records before the arithmetic: checkworthiness, the assessors' answers and the
per-origin inputs. The engine computes its fields with ``scored_fields`` and writes the run record as it
stores one; the reference recomputes from that record. Cases come with ties (shared scores and
confidences), failed assessors, no stance judgment, no origins, and half of them under a config whose gate,
spread limit, label edge or band edge is moved onto the case's own value (±1e-6 for decimals, ±1 for the
whole-number edges).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from icarus.scoring.lvf.assessors import AssessorResult, AssessorStatus
from icarus.scoring.lvf.config import CONFIG_FILES, Criterion, LvfConfig, load_lvf_config
from icarus.scoring.lvf.engine import scored_fields
from icarus.scoring.lvf.formula import passes_gate
from icarus.scoring.lvf.inputs import RunInputs
from icarus.scoring.lvf.record import LvfRun, RunStatus
from reference import lvf

Pick = Callable[[Sequence[Any]], Any]
FAMILY = "lvf"
REFS = tuple(sorted(CONFIG_FILES))
NAMES = ("ledger-deterministic@1", "stance-claim@1", "openai-compatible-lvf@1", "second-llm@1")
SCORES = (*(f"{n / 2:.1f}" for n in range(21)), "3.3", "7.000001", "6.999999")
CONFIDENCES = ("0.5", "0.55", "0.9", "1", "0.333333", "0.51")
REPUTATIONS = ("0", "0.5", "0.95", "1", "0.7", "0.125")
STEPS = tuple(Decimal(v) for v in ("0", "0.5", "-0.5", "4", "-4", "4.1", "-4.1", "1.5"))
NEAR = (Decimal("-0.000001"), Decimal(0), Decimal("0.000001"))


def random_case(pick: Pick) -> dict[str, Any]:
    worth = pick(
        ("0.30", "0.29", "0.3", "0.300001", "0.299999", "0", "1", "0.55", "0.95", "0.65", "0.8", "0.45")
    )
    base = {c: Decimal(pick(SCORES)) for c in Criterion}
    assessors = []
    for index, name in enumerate(NAMES[: pick((1, 2, 2, 2, 3, 4))]):
        failed = index > 0 and pick((False, False, False, True))
        scores = {}
        for criterion, value in base.items():
            moved = min(max(value + pick(STEPS), Decimal(0)), Decimal(10))
            scores[criterion.value] = pick((str(value), str(value), str(value), str(moved), pick(SCORES)))
        assessors.append({"assessor": name, "status": "failed" if failed else "ok", "scores": scores})
    origins = [
        {
            "cluster_id": f"k{i}",
            "stance": pick(("support", "support", "refute")),
            "confidence": pick(CONFIDENCES),
            "reputation": pick(REPUTATIONS),
        }
        for i in range(pick(range(5)))
    ]
    return {
        "ref": pick(REFS),
        "checkworthiness": worth,
        "assessors": assessors,
        "inputs": {"stance_judge_ran": bool(origins) or pick((True, False)), "origins": origins},
    }


def _results(case: dict[str, Any]) -> list[AssessorResult]:
    return [
        AssessorResult(
            assessor=a["assessor"],
            provider="bench",
            version="1",
            status=AssessorStatus(a["status"]),
            scores={}
            if a["status"] == "failed"
            else {Criterion(k): Decimal(v) for k, v in a["scores"].items()},
        )
        for a in case["assessors"]
    ]


def engine_run(case: dict[str, Any], config: LvfConfig) -> dict[str, Any]:
    """The run record the engine writes for this case, as JSON."""
    worth = Decimal(case["checkworthiness"])
    base: dict[str, Any] = {
        "methodology": config.ref,
        "config_hash": config.config_hash,
        "code_hash": "sha256:bench",
        "ledger_id": "bench",
        "ledger_hash": "sha256:bench",
        "claim_id": "c1",
        "claim_text": "bench",
        "checked_at": datetime(2026, 1, 1, tzinfo=UTC),
        "checkworthiness": worth,
        "checkworthiness_gate": config.checkworthiness_gate,
        "checkworthiness_features": (),
    }
    if not passes_gate(worth, config):
        run = LvfRun(**base, status=RunStatus.SKIPPED)
    else:
        inputs = RunInputs.model_validate(case["inputs"])
        run = LvfRun(**base, **scored_fields(worth, _results(case), inputs, config))
    document: dict[str, Any] = json.loads(run.canonical_json())
    document["assessors"] = case["assessors"]  # what the reference reads of the assessors
    return document


def boundary_config(base: LvfConfig, case: dict[str, Any], pick: Pick) -> LvfConfig:
    """``base``, or base with its gate, spread limit, a label edge or a band edge moved onto the case."""
    if pick((True, False)):
        return base
    run = engine_run(case, base)
    data = base.canonical()
    limit = pick(("gate", "spread", "label", "band"))
    if limit == "gate":
        data["checkworthiness_gate"] = str(Decimal(case["checkworthiness"]) + pick(NEAR))
    elif run["status"] == "skipped":
        return base
    elif limit == "spread":
        spread = Decimal(pick(run["criteria"])["spread"])
        data["reconciliation"] = {**data["reconciliation"], "max_spread": str(spread + pick(NEAR))}
    else:
        section, key = pick([(limit + "s", k) for k in data[limit + "s"]])
        data[section] = {**data[section], key: run["display_score"] + pick((-1, 0, 1))}
    return LvfConfig.model_validate(data)


def differences(case: dict[str, Any], config: LvfConfig) -> list[str]:
    """The recomputed fields on which the engine's run and the reference disagree (none: agreement)."""
    run = engine_run(case, config)
    mine = lvf.score_run(run, config.canonical())
    return [k for k in lvf.RECOMPUTED if run.get(k) != mine.get(k)]


def draw(pick: Pick) -> tuple[dict[str, Any], LvfConfig]:
    """One case under its (maybe moved) config."""
    case = random_case(pick)
    return case, boundary_config(load_lvf_config(case["ref"]), case, pick)


def engine_status(case: dict[str, Any], config: LvfConfig) -> str:
    return str(engine_run(case, config)["status"])
