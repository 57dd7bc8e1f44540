"""Methodology pages for every registered model, not only the Icarus policies: the ledger models, LVF
and EvidenceVerify render their own Markdown (from their own configs) through the same page."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from icarus.scoring.registry import UnknownModelError, default_registry, parse_ref
from icarus.web._env import environment
from icarus.web.markdown import markdown_to_html
from icarus.web.model import Links

__all__ = ["PublishedModel", "published_models", "render_model_methodology_page"]

FAMILY_NAMES = {
    "icarus": "Icarus policies",
    "ledger": "Ledger models",
    "lvf": "LVF assessment formula",
    "evidenceverify": "EvidenceVerify (debate claims)",
}


@dataclass(frozen=True)
class PublishedModel:
    ref: str
    family: str
    family_name: str


def published_models() -> list[PublishedModel]:
    """Every registered model, for the methodology index, grouped by family in registry order."""
    entries = default_registry().entries()
    order = list(FAMILY_NAMES)
    entries.sort(key=lambda e: order.index(e.family) if e.family in order else len(order))
    return [PublishedModel(e.ref, e.family, FAMILY_NAMES.get(e.family, e.family)) for e in entries]


def render_model_methodology_page(ref: str, links: Links | None = None) -> str | None:
    """The methodology page of any registered model; None when no model has that ref."""
    try:
        parse_ref(ref)
        model = default_registry().get(ref)
    except (UnknownModelError, ValueError):
        return None
    body = Markup(markdown_to_html(model.methodology()))
    return (
        environment()
        .get_template("methodology.html")
        .render(
            body=body,
            policy=model.ref,
            config_hash=model.config_hash,
            links=links or Links(),
            models=published_models(),
        )
    )
