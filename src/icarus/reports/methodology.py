"""The service facts a methodology page states, gathered from the settings' defaults and the registries.

The policy's own text is rendered by ``icarus.scoring`` from its config alone; the sections that speak of
the service around it (budgets, the deletion sweep, leases, the registered judges and OCR engines) need
these facts, and the scoring core reads neither settings nor registries. The page shows the defaults, so it
is the same wherever it is rendered; a deployment that overrides a setting records what it used on each
report.
"""

from __future__ import annotations

from typing import Any

from icarus.capture.ocr import RapidOcrEngine
from icarus.capture.ocr_scale import RescaledEngine
from icarus.judges.registry import JUDGE_ROLES, JUDGES, OPENAI_COMPATIBLE_JUDGE
from icarus.scoring.icarus.standing_sections import ServiceFacts
from icarus.settings import Settings

__all__ = ["service_facts"]


def _default(name: str) -> Any:
    """A setting's default, never the environment's value."""
    return Settings.model_fields[name].default


def service_facts() -> ServiceFacts:
    """The facts as shipped: the settings' defaults, every registered judge and the OCR engines in order."""
    return ServiceFacts(
        judges=tuple(JUDGES),
        judge_roles=tuple((name, JUDGE_ROLES[name]) for name in JUDGES),
        default_offline_judge=str(_default("offline_judge")),
        llm_judge=OPENAI_COMPATIBLE_JUDGE,
        ocr_engines=(RapidOcrEngine.name, RescaledEngine(RapidOcrEngine()).name),
        max_queries=int(_default("check_max_queries")),
        max_fetches=int(_default("check_max_fetches")),
        max_seconds=float(_default("check_max_seconds")),
        max_claims=int(_default("check_max_claims")),
        search_retry_minutes=tuple(int(m) for m in _default("search_retry_minutes")),
        deletion_sweep_minutes=int(_default("deletion_sweep_minutes")),
        job_lease_s=float(_default("job_lease_s")),
    )
