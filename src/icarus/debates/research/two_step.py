"""two_step: search, then verdict. One round of the claim's planned searches, every document judged
against the whole claim, scope-checked, scored and corroborated; no decomposition, no follow-up."""

from __future__ import annotations

from icarus.debates.model import Panel, ResearchMode
from icarus.debates.research.base import BudgetMeter, ClaimToResearch, ResearchServices
from icarus.debates.research.gather import investigate, panel_from

__all__ = ["research"]


def research(claim: ClaimToResearch, services: ResearchServices, meter: BudgetMeter) -> Panel:
    meter.can_go_deeper(0)
    findings = investigate(claim.text, claim, services, meter)
    return panel_from(findings, claim, services, ResearchMode.TWO_STEP)
