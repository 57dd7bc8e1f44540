"""The service facts a methodology page states, gathered from the settings and the registries.

The policy's own text is rendered by ``icarus.scoring`` from its config alone; the sections that speak of
the service around it need facts the scoring core does not read (it reads neither settings nor registries):

- ``service_facts``: budgets, the deletion sweep, leases, the registered judges and OCR engines. These are
  the settings' defaults, so those sections are the same wherever the page is rendered; a deployment that
  overrides a setting records what it used on each report.
- ``deployment_facts``: which look-ups run and which reputation datasets are loaded, from the settings this
  process actually runs with (or ``shipped_settings()``, the defaults, for the copies in docs/methodology).

``published_methodology`` puts the page together: the policy's own text, what of it is live on this
deployment, the standing sections, then the reputation sources the registry uses; the front doors that
show the page (``icarus policy show`` and the web methodology page) show the same bytes.
"""

from __future__ import annotations

from typing import Any

from icarus.capture.ocr import RapidOcrEngine
from icarus.capture.ocr_scale import RescaledEngine
from icarus.judges.registry import JUDGE_ROLES, JUDGES, OPENAI_COMPATIBLE_JUDGE
from icarus.lookups import LOOKUP_FEATURES
from icarus.lookups.plan import lookup_plans
from icarus.reputation.default import render_sources_markdown, sources_manifest
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.deployment import DeploymentFacts, DeploymentPart, render_deployment_section
from icarus.scoring.icarus.methodology import render_methodology
from icarus.scoring.icarus.not_live import LIN_RATING
from icarus.scoring.icarus.standing_sections import ServiceFacts, render_standing_sections
from icarus.settings import Settings

__all__ = ["deployment_facts", "published_methodology", "service_facts", "shipped_settings"]


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


def shipped_settings() -> Settings:
    """Every setting at its default, whatever the environment says: the deployment as shipped."""
    return Settings.model_construct()


def _lin_part() -> DeploymentPart:
    lin = next((source for source in sources_manifest() if source.name == "lin2023"), None)
    if lin is None:
        return DeploymentPart(False, "the reputation registry holds no Lin et al. ratings")
    return DeploymentPart(
        True, f"the reputation registry holds {lin.records:,} Lin et al. ratings ({lin.produced_by})"
    )


def deployment_facts(settings: Settings | None = None) -> DeploymentFacts:
    """What this deployment gives the rule parts that need it: each look-up's plan (``lookups.plan``) and
    the Lin et al. ratings of the reputation registry. ``settings``: this process's unless given."""
    plans = lookup_plans(settings if settings is not None else Settings())
    parts = {LOOKUP_FEATURES[name]: DeploymentPart(plan.runs, plan.detail) for name, plan in plans.items()}
    parts[LIN_RATING] = _lin_part()
    return DeploymentFacts(parts)


def published_methodology(
    config: PolicyConfig, facts: ServiceFacts | None = None, deployment: DeploymentFacts | None = None
) -> str:
    """The Markdown page a reader of ``config`` sees: the rendered policy, what of it is live on this
    deployment (``deployment``, from this process's settings unless given), the standing sections (with
    ``facts``, the shipped defaults unless given), then the reputation sources."""
    return "\n".join(
        (
            render_methodology(config),
            render_deployment_section(config, deployment or deployment_facts()),
            render_standing_sections(config, facts or service_facts()),
            render_sources_markdown(),
        )
    )
