"""local: the local corpus only. The claim's planned searches run on the local corpus alone and no page
is fetched from the network; the documents found are judged, scored and corroborated as two_step does.
Not on the escalation ladder: it cannot find anything the corpus does not hold."""

from __future__ import annotations

from icarus.debates.model import Panel, ResearchMode
from icarus.debates.research.base import BudgetMeter, ClaimToResearch, ResearchServices
from icarus.debates.research.gather import investigate, panel_from, pending_panel

__all__ = ["research"]


def research(claim: ClaimToResearch, services: ResearchServices, meter: BudgetMeter) -> Panel:
    local = services.only_local()
    if not local.providers:  # no corpus configured: its only search cannot run
        return pending_panel(ResearchMode.LOCAL, [])
    meter.can_go_deeper(0)
    findings = investigate(claim.text, claim, local, meter)
    panel = panel_from(findings, claim, local, ResearchMode.LOCAL)
    return panel.model_copy(update={"trace": {**panel.trace, "providers": [p.name for p in local.providers]}})
