"""The methodology page: the policy's own Markdown (rendered from its config) as HTML.

Raw HTML in the Markdown is escaped, not passed through (``markdown``).
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from icarus.reports.methodology import published_methodology
from icarus.scoring.icarus.config import PolicyConfig
from icarus.web._env import environment
from icarus.web.markdown import markdown_to_html
from icarus.web.model import Links

__all__ = ["render_methodology_page"]


def published_models() -> list[Any]:
    """Every registered model for the index (imported late: the registry loads every family)."""
    from icarus.web.model_pages import published_models as every_model

    return list(every_model())


def render_methodology_page(config: PolicyConfig, links: Links | None = None) -> str:
    """The methodology of ``config`` as one HTML document."""
    body = Markup(markdown_to_html(published_methodology(config)))
    return (
        environment()
        .get_template("methodology.html")
        .render(
            body=body,
            policy=config.ref,
            config_hash=config.config_hash,
            links=links or Links(),
            models=published_models(),
        )
    )
