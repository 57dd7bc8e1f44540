"""The methodology page as published: the policy's own text, what of it is live on this deployment, the
sections about the service around it (limitations; corrections, deletion and version history; the role of
models and judges), then the reputation sources the registry uses.

``icarus.scoring`` renders every section from the policy config and the facts it is handed, and reads no
settings or package data; the facts (settings defaults, registered judges) and the list of reputation
sources come from here, so the front doors that show the page (``icarus policy show`` and the web
methodology page) show the same bytes.
"""

from __future__ import annotations

from icarus.reports.methodology import deployment_facts, service_facts
from icarus.reputation.default import render_sources_markdown
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.deployment import DeploymentFacts, render_deployment_section
from icarus.scoring.icarus.methodology import render_methodology
from icarus.scoring.icarus.standing_sections import ServiceFacts, render_standing_sections

__all__ = ["published_methodology"]


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
