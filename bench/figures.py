"""Figure reading on real claims: time per claim, and what the statistics rules would see.

Reads every claim of AVeriTeC dev, Climate-FEVER, SciFact train, FEVER dev and LIAR (train, valid, test)
from ../shared/datasets (or ICARUS_DATASETS) and runs ``extract_figures`` on each, whole claim as one span,
as claim extraction does for each claim it finds. Reports the time per claim (best of three passes), how
many claims state a figure or a change, how many changes carry their levels, the "from A to B" phrases
read and the units their pairs share, and how often H12, H13 and H15 would fire on the figures alone.
Reports "skipped" when the datasets are absent.
"""

from __future__ import annotations

import csv
import json
import os
import time
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

from icarus.claims import extract_figures
from icarus.claims.quantities import LEVELS, level_pair
from icarus.scoring.icarus.statistics import arithmetic_fails, conflates_percent_and_points, lacks_base_rate

DATASETS = Path(os.environ.get("ICARUS_DATASETS", Path(__file__).parents[2] / "shared" / "datasets"))
TOLERANCE = Decimal("0.005")  # statistics.relative_tolerance in the published policies
PASSES = 3


def _jsonl(path: Path, key: str) -> list[str]:
    return [json.loads(line)[key] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def claims() -> dict[str, list[str]]:
    sets: dict[str, list[str]] = {}
    averitec = DATASETS / "averitec/dev.json"
    if averitec.is_file():
        sets["AVeriTeC dev"] = [row["claim"] for row in json.loads(averitec.read_text(encoding="utf-8"))]
    for name, path, key in (
        ("Climate-FEVER", DATASETS / "climate-fever/climate-fever.jsonl", "claim"),
        ("SciFact train", DATASETS / "scifact/claims_train.jsonl", "claim"),
        ("FEVER dev", DATASETS / "fever/paper_dev.jsonl", "claim"),
    ):
        if path.is_file():
            sets[name] = _jsonl(path, key)
    liar: list[str] = []
    for split in ("train", "valid", "test"):
        path = DATASETS / f"liar/{split}.tsv"
        if path.is_file():
            with path.open(encoding="utf-8", newline="") as handle:
                liar += [
                    row[2]
                    for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
                    if len(row) > 2
                ]
    if liar:
        sets["LIAR"] = liar
    return sets


def main(argv: list[str]) -> dict[str, Any]:
    sets = claims()
    if not sets:
        return {"runs": [], "skipped": f"datasets not found under {DATASETS}"}
    runs: list[dict[str, Any]] = []
    units: Counter[str] = Counter()
    phrases = pairs = 0
    for name, texts in sets.items():
        best = float("inf")
        for _ in range(PASSES):
            started = time.perf_counter()
            read = [extract_figures(text, 0, len(text)) for text in texts]
            best = min(best, time.perf_counter() - started)
        changes = [f for found in read for f in found if f.derivation is not None]
        for text in texts:
            for match in LEVELS.finditer(text):
                phrases += 1
                pair = level_pair(match)
                if pair is not None:
                    pairs += 1
                    units[pair.unit or "(none)"] += 1
        runs.append(
            {
                "set": name,
                "claims": len(texts),
                "us_per_claim": round(best / len(texts) * 1e6, 1),
                "with_figures": sum(1 for found in read if found),
                "changes": len(changes),
                "changes_with_levels": sum(1 for f in changes if f.operands),
                "H12": sum(1 for f in changes if conflates_percent_and_points(f, None, TOLERANCE)),
                "H13": sum(1 for f in changes if arithmetic_fails(f, TOLERANCE)),
                "H15": sum(1 for f in changes if lacks_base_rate(f)),
            }
        )
    return {
        "runs": runs,
        "from_to_phrases": phrases,
        "like_for_like_pairs": pairs,
        "pair_units": dict(units.most_common()),
    }


if __name__ == "__main__":
    import sys

    result = main(sys.argv[1:])
    for row in result.pop("runs"):
        print(row)
    for key, value in result.items():
        print(f"{key}: {value}")
