"""LVF (v3.0 and v2.0), as docs/spec/lvf.md states it: a stored run's status, components, score and label.

The constants are read from the spec's own config blocks; the steps below follow the spec's numbered
steps, in decimal arithmetic in one fixed context.
"""

from __future__ import annotations

import hashlib
import json
import re
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext
from pathlib import Path
from typing import Any

SPEC = Path(__file__).resolve().parents[1] / "docs" / "spec" / "lvf.md"
CONTEXT = Context(prec=28, rounding=ROUND_HALF_EVEN)
CONFIG_BLOCK = re.compile(r"<!-- config: (\S+) (sha256:[0-9a-f]{64}) -->\n```json\n(.*?)\n```", re.S)
COMPONENTS = ("lvf", "nli", "reliability", "checkworthiness")
NOT_RUN_NOTE = "no stance judgment available: fallback weights"
RECOMPUTED = (
    "status",
    "formula",
    "criteria",
    "components",
    "score",
    "display_score",
    "label",
    "band",
    "holds",
)
ZERO, HUNDRED = Decimal(0), Decimal(100)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def config_hash(config: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical(config).encode("utf-8")).hexdigest()


def load_configs(spec: Path = SPEC) -> dict[str, dict[str, Any]]:
    """Every version's config from the spec, each checked against the hash the spec states for it."""
    configs = {}
    for ref, digest, body in CONFIG_BLOCK.findall(spec.read_text(encoding="utf-8")):
        config = json.loads(body)
        if config_hash(config) != digest:
            raise ValueError(f"{ref}: the spec's config block hashes to {config_hash(config)}, not {digest}")
        configs[ref] = config
    return configs


def text(value: Decimal | None) -> str | None:
    """The spec's output form: normalised, fixed, at least one decimal place."""
    if value is None:
        return None
    written = format(value.normalize(), "f")
    return written if "." in written else written + ".0"


def round2(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)


def median(values: list[Decimal]) -> Decimal:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def _skipped() -> dict[str, Any]:
    return {
        "status": "skipped",
        "formula": None,
        "criteria": [],
        "components": [],
        "score": None,
        "display_score": None,
        "label": None,
        "band": None,
        "holds": [],
    }


def score_run(run: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """The recomputed fields of one run (spec steps 1-7)."""
    with localcontext(CONTEXT):
        return _score(run, config)


def _score(run: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    worth = Decimal(run["checkworthiness"])
    if worth < Decimal(config["checkworthiness_gate"]):  # step 1
        return _skipped()

    answered = sorted((a for a in run["assessors"] if a["status"] == "ok"), key=lambda a: a["assessor"])
    if not answered:
        raise ValueError(f"run of claim {run.get('claim_id')}: no assessor answered")
    max_spread = Decimal(config["reconciliation"]["max_spread"])
    criteria, wide = [], []
    for criterion, weight in config["criteria"].items():  # step 2
        scores = {a["assessor"]: Decimal(a["scores"][criterion]) for a in answered}
        spread = max(scores.values()) - min(scores.values())
        criteria.append((criterion, Decimal(weight), scores, median(list(scores.values())), spread))
        if spread > max_spread:
            wide.append(f"{criterion} ({spread})")

    holds = []  # step 3
    minimum = config["reconciliation"]["min_assessors"]
    if len(answered) < minimum:
        holds.append(
            {
                "code": "too_few_assessors",
                "detail": f"{len(answered)} assessor(s) answered; reconciliation needs at least {minimum}",
            }
        )
    if wide:
        holds.append(
            {
                "code": "assessor_spread",
                "detail": f"assessors disagree by more than {max_spread} points on " + ", ".join(wide),
            }
        )

    values = _components(run, worth, criteria)  # step 4
    formula = "with_nli" if values["nli"] is not None else "without_nli"  # step 5
    weights = {c: Decimal(config["formulas"][formula][c]) for c in COMPONENTS}
    total = ZERO
    for component in COMPONENTS:
        value = values[component]
        if value is not None:
            total += weights[component] * value
    score = round2(total)
    shown = int(score.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))  # step 6
    labels, bands = config["labels"], config["bands"]
    label = "Factual" if shown >= labels["factual"] else "Rumour" if shown >= labels["rumour"] else "Opinion"
    band = "High" if shown >= bands["high"] else "Medium" if shown >= bands["medium"] else "Low"
    return {
        "status": "held" if holds else "scored",  # step 7
        "formula": formula,
        "criteria": [
            {
                "criterion": criterion,
                "weight": text(weight),
                "scores": {name: text(score) for name, score in scores.items()},
                "median": text(middle),
                "spread": text(spread),
            }
            for criterion, weight, scores, middle, spread in criteria
        ],
        "components": [
            {
                "component": component,
                "status": "not run" if values[component] is None else "ran",
                "value": text(values[component]),
                "weight": text(weights[component]),
                "note": NOT_RUN_NOTE if values[component] is None else "",
            }
            for component in COMPONENTS
        ],
        "score": text(score),
        "display_score": shown,
        "label": label,
        "band": band,
        "holds": holds,
    }


def _components(
    run: dict[str, Any], worth: Decimal, criteria: list[tuple[str, Decimal, Any, Decimal, Decimal]]
) -> dict[str, Decimal | None]:
    lvf = ZERO
    for _, weight, _, middle, _ in criteria:
        lvf += weight * middle
    values: dict[str, Decimal | None] = {"lvf": round2(lvf * 10)}
    inputs = run.get("inputs")
    if inputs is None:  # a run stored before runs recorded their inputs: these two are taken as published
        published = {c["component"]: c["value"] for c in run["components"]}
        values["nli"] = None if published["nli"] is None else Decimal(published["nli"])
        values["reliability"] = Decimal(published["reliability"])
    else:
        origins = inputs["origins"]
        if not inputs["stance_judge_ran"]:
            values["nli"] = None
        else:
            support = sum((Decimal(o["confidence"]) for o in origins if o["stance"] == "support"), ZERO)
            refute = sum((Decimal(o["confidence"]) for o in origins if o["stance"] == "refute"), ZERO)
            values["nli"] = ZERO if support + refute == 0 else round2(HUNDRED * support / (support + refute))
        if not origins:
            values["reliability"] = ZERO
        else:
            mean = sum((Decimal(o["reputation"]) for o in origins), ZERO) / len(origins)
            values["reliability"] = round2(HUNDRED * mean)
    values["checkworthiness"] = round2(worth * HUNDRED)
    return values


def runs_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs a file holds: a model result's ``runs``, a list of runs, an API view's ``record``, or one
    run record."""
    if isinstance(data, list):
        return data
    if "record" in data:
        return [data["record"]]
    if "runs" in data:
        runs: list[dict[str, Any]] = data["runs"]
        return runs
    return [data]


def score(data: Any, ref: str | None = None) -> dict[str, Any]:
    """Recompute every run in ``data`` under ``ref`` (default: each run's own methodology)."""
    configs = load_configs()
    runs = []
    for run in runs_of(data):
        version = ref or run["methodology"]
        if version not in configs:
            raise KeyError(f"unknown LVF version {version!r}; the spec has {', '.join(sorted(configs))}")
        config = configs[version]
        runs.append(
            {"claim_id": run["claim_id"], "methodology": version, "config_hash": config_hash(config)}
            | score_run(run, config)
        )
    model = ref or (runs[0]["methodology"] if runs else None)
    return {"model": model, "runs": runs}


def differing(data: Any, result: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Per published run: its claim and the recomputed fields that differ from it (none: it agrees)."""
    rows = []
    for run, mine in zip(runs_of(data), result["runs"], strict=True):
        fields = [k for k in (*RECOMPUTED, "config_hash") if run.get(k) != mine.get(k)]
        rows.append((run["claim_id"], fields))
    return rows
