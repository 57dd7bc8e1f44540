"""Which research methods one ``POST /v1/claim`` runs.

The seed names two ways to ask, and they differ on a method the claim already has:

- ``research_mode``, one method, is a re-check: "any claim can be re-checked with a specific method,
  including one already checked". It runs even when the claim has a panel for it.
- ``research_modes``, a list, says which methods the claim should have: "asking for
  ["two_step","decompose"] on a claim that already has a two_step panel researches decompose alone".
  An empty list adds the claim and researches nothing, as it does for a debate.

Naming neither takes the debate's methods for a new claim and runs only those missing; ``strong_language``
reruns every method asked (the claim's stored ones when none is named), searching in English and Spanish
too. A re-check is a new panel: the earlier panel stays in the claim's results, and it keeps answering
until the new one is done (see ``answers.current_panels``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from icarus.debates.model import ResearchMode

__all__ = ["ExistingPanel", "MethodPlan", "plan_methods"]


class ExistingPanel(Protocol):
    """What a plan reads of a panel the claim already has (``repository.PanelRow`` is one)."""

    @property
    def research_mode(self) -> ResearchMode: ...

    @property
    def strong_language(self) -> bool: ...


@dataclass(frozen=True)
class MethodPlan:
    """``considered``: the methods this request is about; ``to_run``: those that get a new panel;
    ``already_researched``: those considered that the claim has and that do not run again."""

    considered: list[ResearchMode]
    to_run: list[ResearchMode]
    already_researched: list[ResearchMode]


def plan_methods(
    named: Sequence[ResearchMode] | None,
    *,
    recheck: bool,
    strong_language: bool,
    configured: Sequence[ResearchMode],
    existing: Sequence[ExistingPanel],
) -> MethodPlan:
    """The methods to run for a claim with panels ``existing`` in a debate configured with ``configured``.

    ``named``: the methods the caller named (None when none; an empty list researches nothing);
    ``recheck``: they run again even where the claim already has a panel for them."""
    if named is not None:
        considered = list(dict.fromkeys(named))
    elif strong_language and existing:
        considered = list(dict.fromkeys(p.research_mode for p in existing if not p.strong_language))
    else:
        considered = list(configured)
    have = {p.research_mode for p in existing}
    run_again = strong_language or (recheck and named is not None)
    to_run = considered if run_again else [m for m in considered if m not in have]
    return MethodPlan(considered, to_run, [m for m in considered if m in have and m not in to_run])
