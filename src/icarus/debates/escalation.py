"""Escalation: try the next stronger research method until a claim's verdict is confirmed.

Two things trigger it, once every method in play has finished for the claim: every method returned
UNVERIFIABLE, or the finished non-manual panels disagree and no verdict is confirmed (see
``icarus.debates.elector``). Escalation then adds the first rung of ``ESCALATION_LADDER`` above the
strongest method in play: the configured methods plus those escalation already added. It climbs one rung at
a time, never past ``agentic`` (the top), never past ``escalate_max_steps``, and a debate under a
primary-source policy stops before ``ricochet``. ``local`` is not on the ladder, so a debate that configured
only ``local`` (or nothing) never escalates. Manual panels neither trigger nor count as in play; escalated
panels vote like configured ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from icarus.debates.elector import confirmed_verdict
from icarus.debates.model import ESCALATION_LADDER, ResearchMode, StoredPanel, Verdict

__all__ = ["PRIMARY_SOURCE_CEILING", "escalation_triggered", "next_rung"]

PRIMARY_SOURCE_CEILING: Final = ResearchMode.RICOCHET
"""Under a primary-source policy escalation never reaches this rung or any above it: ricochet and agentic
follow links and trails away from the originators the policy insists on."""

_RUNG: Final = {mode: index for index, mode in enumerate(ESCALATION_LADDER)}


def _modes_in_play(
    configured_modes: Iterable[ResearchMode], voting: Sequence[StoredPanel]
) -> set[ResearchMode]:
    return set(configured_modes) | {p.panel.research_mode for p in voting if p.escalated}


def escalation_triggered(configured_modes: Iterable[ResearchMode], panels: Sequence[StoredPanel]) -> bool:
    """Whether the claim's finished panels call for a stronger method.

    False while any method in play is unfinished or has no panel yet: the next rung waits for them."""
    voting = [p for p in panels if not p.manual]
    in_play = _modes_in_play(configured_modes, voting)
    if not in_play or not voting:
        return False
    if any(p.panel.verdict is Verdict.PENDING for p in voting):
        return False
    if in_play - {p.panel.research_mode for p in voting}:
        return False
    verdicts = {p.panel.verdict for p in voting}
    if verdicts == {Verdict.UNVERIFIABLE}:
        return True
    return len(verdicts) > 1 and confirmed_verdict(voting) is None


def next_rung(
    configured_modes: Sequence[ResearchMode],
    panels: Sequence[StoredPanel],
    steps_taken: int,
    max_steps: int,
    primary_source_policy: bool,
) -> ResearchMode | None:
    """The one method to add now, or None (nothing triggers it, or a bound says stop).

    ``panels`` must include the pending panel of an escalation already started; when ``steps_taken``
    counts more escalations than the escalated panels show, one is still being set up and nothing is added.
    """
    if steps_taken >= max_steps:
        return None
    voting = [p for p in panels if not p.manual]
    escalated_modes = {p.panel.research_mode for p in voting if p.escalated}
    if len(escalated_modes) < steps_taken:
        return None
    rungs = [_RUNG[m] for m in _modes_in_play(configured_modes, voting) if m in _RUNG]
    if not rungs:
        return None
    strongest = max(rungs)
    if strongest + 1 >= len(ESCALATION_LADDER):
        return None
    candidate = ESCALATION_LADDER[strongest + 1]
    if primary_source_policy and _RUNG[candidate] >= _RUNG[PRIMARY_SOURCE_CEILING]:
        return None
    if not escalation_triggered(configured_modes, panels):
        return None
    return candidate
