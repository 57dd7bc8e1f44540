"""The methodology page's "Live on this deployment" section: rule part by rule part, whether it acts where
the page is served, and why not.

A policy version says which parts are live; whether a live part acts also depends on the deployment: a
look-up it reads may be turned off or offline, a dataset may not be loaded. The front door that shows the
page gathers those facts from the settings and registries it actually loaded (``DeploymentFacts``,
``icarus.reports.methodology.deployment_facts``); this module reads neither, so the core stays pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from icarus.scoring.icarus.config import KNOWN_FEATURES, PolicyConfig
from icarus.scoring.icarus.feature_words import feature_words, in_rule_order

__all__ = ["DEPLOYMENT_HEADING", "DeploymentFacts", "DeploymentPart", "render_deployment_section"]

DEPLOYMENT_HEADING = "## Live on this deployment"


@dataclass(frozen=True)
class DeploymentPart:
    """What the deployment gives one rule part: whether it runs, and in words what runs or why not."""

    runs: bool
    detail: str


@dataclass(frozen=True)
class DeploymentFacts:
    parts: Mapping[str, DeploymentPart]
    """By rule part (``KNOWN_FEATURES``): only the parts that need something of the deployment."""


def _state(feature: str, policy: PolicyConfig, facts: DeploymentFacts) -> str:
    if not policy.live(feature):
        return f"does not run: {policy.ref} publishes it as not yet live"
    part = facts.parts.get(feature)
    if part is None:
        return "runs: it needs nothing outside the policy"
    return f"runs: {part.detail}" if part.runs else f"does not run: {part.detail}"


def render_deployment_section(policy: PolicyConfig, facts: DeploymentFacts) -> str:
    """The section as Markdown: one row per rule part a version may hold inert, in rule order."""
    lines = [
        DEPLOYMENT_HEADING,
        "",
        "Some rule parts read what the service around the policy provides: a look-up it runs, or a dataset "
        "it holds. Read from the settings and registries this deployment loaded, this is what acts here. "
        "Each report also records, item by item, which look-ups ran for that check; one that did not run "
        "is marked \u201cnot run\u201d with its reason and changes nothing.",
        "",
        "| rule part | on this deployment |",
        "|---|---|",
    ]
    lines += [f"| {feature_words(f)} | {_state(f, policy, facts)} |" for f in in_rule_order(KNOWN_FEATURES)]
    return "\n".join(lines) + "\n"
