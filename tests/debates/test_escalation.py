"""Escalation: what triggers it, which rung it adds, and what stops it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icarus.debates.escalation import escalation_triggered, next_rung
from icarus.debates.model import ESCALATION_LADDER, Panel, ResearchMode, StoredPanel, Verdict

TS, DC, DI, LO, AG, RI = (
    ResearchMode.TWO_STEP,
    ResearchMode.DECOMPOSE,
    ResearchMode.DECOMPOSE_INVEST,
    ResearchMode.LOCAL,
    ResearchMode.AGENTIC,
    ResearchMode.RICOCHET,
)
T, F, PT, M, U, P = (
    Verdict.TRUE,
    Verdict.FALSE,
    Verdict.PARTIALLY_TRUE,
    Verdict.MISLEADING,
    Verdict.UNVERIFIABLE,
    Verdict.PENDING,
)


def stored(
    panel_id: int, mode: ResearchMode, verdict: Verdict, *, manual: bool = False, escalated: bool = False
) -> StoredPanel:
    return StoredPanel(
        panel_id=panel_id,
        manual=manual,
        escalated=escalated,
        panel=Panel(research_mode=mode, verdict=verdict, confidence=0.5),
    )


def results(configured: Sequence[tuple[ResearchMode, Verdict]]) -> list[StoredPanel]:
    return [stored(i, mode, verdict) for i, (mode, verdict) in enumerate(configured, start=1)]


def rung(
    configured: Sequence[ResearchMode],
    panels: Sequence[StoredPanel],
    steps: int = 0,
    max_steps: int = 2,
    policy: bool = False,
) -> ResearchMode | None:
    return next_rung(configured, panels, steps, max_steps, policy)


def test_the_ladder_is_the_documented_one() -> None:
    assert ESCALATION_LADDER == (TS, DC, DI, RI, AG)
    assert LO not in ESCALATION_LADDER


@pytest.mark.parametrize(
    ("configured", "expected"),
    [
        ([TS], DC),
        ([DC], DI),
        ([DI], RI),
        ([RI], AG),
        ([AG], None),  # the top: nothing above agentic
        ([TS, AG], None),  # agentic in play
        ([TS, DC], DI),  # the first rung above the strongest configured
        ([TS, DI], RI),
        ([DC, TS], DI),  # order of configuration does not matter
        ([LO], None),  # local is not on the ladder
        ([LO, TS], DC),
        ([LO, RI], AG),
    ],
)
def test_all_unverifiable_adds_the_first_rung_above_the_strongest_method(
    configured: list[ResearchMode], expected: ResearchMode | None
) -> None:
    panels = results([(mode, U) for mode in configured])
    assert rung(configured, panels) is expected


def test_no_configured_method_never_escalates() -> None:
    assert rung([], []) is None
    # a manual panel is not a configured method
    assert rung([], [stored(1, TS, U, manual=True)]) is None


@pytest.mark.parametrize(
    ("configured", "expected"),
    [
        ([TS], DC),
        ([DC], DI),
        ([DI], None),  # would be ricochet: stops before it
        ([RI], None),  # would be agentic, above ricochet
        ([TS, DC], DI),
    ],
)
def test_primary_source_policy_stops_before_ricochet(
    configured: list[ResearchMode], expected: ResearchMode | None
) -> None:
    panels = results([(mode, U) for mode in configured])
    assert rung(configured, panels, policy=True) is expected


@pytest.mark.parametrize(
    ("verdicts", "triggered"),
    [
        ((U,), True),  # every configured method returned unverifiable
        ((U, U), True),  # even though UNVERIFIABLE is then confirmed
        ((T,), False),
        ((F,), False),
        ((T, T), False),  # confirmed
        ((T, F), True),  # disagreement without confirmation
        ((F, M), True),  # FALSE and MISLEADING disagree
        ((T, U), True),
        ((PT, F), True),
        ((T, T, F), False),  # 2–1 is confirmed
        ((T, T, F, F), True),  # 2–2 is not
        ((T, T, T, F), False),  # 3–1
        ((T, F, M), True),
    ],
)
def test_triggers(verdicts: tuple[Verdict, ...], triggered: bool) -> None:
    modes = [TS, DC, LO, DI][: len(verdicts)]
    panels = results(list(zip(modes, verdicts, strict=True)))
    assert escalation_triggered(modes, panels) is triggered
    assert (rung(modes, panels) is not None) is triggered


@pytest.mark.parametrize(
    "panels",
    [
        [stored(1, TS, T), stored(2, DC, P)],  # a configured method still pending
        [stored(1, TS, F)],  # decompose has no panel yet
        [stored(1, TS, U), stored(2, DC, P)],
    ],
)
def test_nothing_escalates_before_every_method_in_play_has_finished(panels: list[StoredPanel]) -> None:
    assert not escalation_triggered([TS, DC], panels)
    assert rung([TS, DC], panels) is None


def test_manual_panels_neither_trigger_nor_prevent_escalation() -> None:
    # a manual panel disagreeing with a configured one does not trigger
    assert rung([TS], [stored(1, TS, T), stored(2, AG, F, manual=True)]) is None
    # nor does a manual agentic panel put agentic in play, or a manual TRUE stop an all-unverifiable climb
    assert rung([TS], [stored(1, TS, U), stored(2, AG, T, manual=True)]) is DC
    # a pending manual panel does not hold escalation up
    assert rung([TS], [stored(1, TS, U), stored(2, DI, P, manual=True)]) is DC


def test_escalated_panels_vote_and_a_confirmed_verdict_stops_the_climb() -> None:
    base = [stored(1, TS, T), stored(2, DC, F)]
    assert rung([TS, DC], base) is DI
    settled = [*base, stored(3, DI, F, escalated=True)]
    assert rung([TS, DC], settled, steps=1) is None
    still_split = [*base, stored(3, DI, U, escalated=True)]
    assert rung([TS, DC], still_split, steps=1) is RI


def test_climbing_continues_one_rung_at_a_time_while_everything_is_unverifiable() -> None:
    panels = [stored(1, TS, U)]
    assert rung([TS], panels, steps=0, max_steps=3) is DC
    panels.append(stored(2, DC, P, escalated=True))
    assert rung([TS], panels, steps=1, max_steps=3) is None  # waits for the escalated panel
    panels[-1] = stored(2, DC, U, escalated=True)
    assert rung([TS], panels, steps=1, max_steps=3) is DI
    panels.append(stored(3, DI, U, escalated=True))
    assert rung([TS], panels, steps=2, max_steps=3) is RI
    panels.append(stored(4, RI, U, escalated=True))
    assert rung([TS], panels, steps=3, max_steps=3) is None  # steps used up


@pytest.mark.parametrize(
    ("steps", "max_steps", "expected"), [(0, 0, None), (0, 1, DC), (1, 1, None), (2, 2, None), (3, 2, None)]
)
def test_steps_bound_escalation(steps: int, max_steps: int, expected: ResearchMode | None) -> None:
    # every method in play, escalated ones included, returned unverifiable: only the bound can stop the climb
    escalated = [stored(10 + i, m, U, escalated=True) for i, m in enumerate([DC, DI, RI][:steps])]
    assert rung([TS], [stored(1, TS, U), *escalated], steps=steps, max_steps=max_steps) is expected


def test_an_escalation_whose_panel_is_not_yet_stored_is_not_started_twice() -> None:
    assert rung([TS], [stored(1, TS, U)], steps=1, max_steps=2) is None


def test_top_of_the_ladder_reached_by_escalation_stops() -> None:
    panels = [stored(1, RI, U), stored(2, AG, U, escalated=True)]
    assert rung([RI], panels, steps=1, max_steps=4) is None


_modes = st.sampled_from(list(ResearchMode))
_verdicts = st.sampled_from(list(Verdict))


@given(
    st.lists(_modes, max_size=4, unique=True),
    st.lists(st.tuples(_modes, _verdicts, st.booleans(), st.booleans()), max_size=6),
    st.integers(0, 5),
    st.integers(0, 5),
    st.booleans(),
)
def test_a_new_rung_is_always_one_step_above_everything_in_play_and_within_bounds(
    configured: list[ResearchMode],
    specs: list[tuple[ResearchMode, Verdict, bool, bool]],
    steps: int,
    max_steps: int,
    policy: bool,
) -> None:
    panels = [
        stored(i, m, v, manual=manual, escalated=esc and not manual)
        for i, (m, v, manual, esc) in enumerate(specs)
    ]
    added = rung(configured, panels, steps=steps, max_steps=max_steps, policy=policy)
    if added is None:
        return
    in_play = set(configured) | {p.panel.research_mode for p in panels if p.escalated}
    ladder_in_play = [ESCALATION_LADDER.index(m) for m in in_play if m in ESCALATION_LADDER]
    assert steps < max_steps
    assert ESCALATION_LADDER.index(added) == max(ladder_in_play) + 1
    assert not policy or ESCALATION_LADDER.index(added) < ESCALATION_LADDER.index(RI)
    assert all(p.panel.verdict is not P for p in panels if not p.manual)
    assert escalation_triggered(configured, panels)
