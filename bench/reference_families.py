"""The large engine-against-reference run for the LVF and EvidenceVerify families (``make reference-check``).

Each family module (``reference_lvf``, ``reference_evidenceverify``) draws a case and its config
(``draw``), names the fields on which the engine and the reference differ (``differences``) and the
engine's status (``engine_status``). The report counts cases agreeing on every field.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from types import ModuleType
from typing import Any

from rich.progress import Progress

from bench import reference_evidenceverify, reference_lvf

FAMILIES: tuple[ModuleType, ...] = (reference_lvf, reference_evidenceverify)


def run_family(family: ModuleType, cases: int, seed: int, progress: Progress | None = None) -> dict[str, Any]:
    rng = random.Random(seed)
    task = progress.add_task(family.FAMILY, total=cases) if progress else None
    disagreed: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    agree = 0
    started = time.perf_counter()
    for _ in range(cases):
        case, config = family.draw(rng.choice)
        found = family.differences(case, config)
        agree += not found
        disagreed.update(found)
        statuses[family.engine_status(case, config)] += 1
        if progress and task is not None:
            progress.advance(task)
    return {
        "family": family.FAMILY,
        "cases": cases,
        "agree": agree,
        "agreement": f"{100 * agree / cases:.3f} %",
        "fields_differing": dict(disagreed) or "none",
        "statuses_seen": dict(sorted(statuses.items())),
        "seconds": round(time.perf_counter() - started, 1),
    }


def run_all(cases: int, seed: int, progress: Progress | None = None) -> list[dict[str, Any]]:
    return [run_family(family, cases, seed, progress) for family in FAMILIES]
