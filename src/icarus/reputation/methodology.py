"""The methodology page as published: the policy's own text, then the reputation sources the registry uses.

``icarus.scoring`` renders the policy from its config alone and reads no package data; the list of
reputation sources comes from the shipped registry, so the front doors that show the page (``icarus policy
show`` and the web methodology page) append it here, and both show the same bytes.
"""

from __future__ import annotations

from icarus.reputation.default import render_sources_markdown
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.methodology import render_methodology

__all__ = ["published_methodology"]


def published_methodology(config: PolicyConfig) -> str:
    """The Markdown page a reader of ``config`` sees: the rendered policy, then the reputation sources."""
    return render_methodology(config) + "\n" + render_sources_markdown()
