"""One answer per claim: the completion barrier, operator, agreement, adjudication, fallback and survival."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icarus.debates.adjudication import (
    RECONCILE_INSTRUCTION,
    AdjudicationOutcome,
    AdjudicationRequest,
    Disagreement,
    OfflineAdjudicator,
    build_claim_verdict,
    fallback_panel,
    fingerprint_unchanged,
    panel_fingerprint,
)
from icarus.debates.elector import ChooserPanel
from icarus.debates.model import (
    AdjudicationReason,
    Basis,
    Citation,
    ClaimVerdict,
    Corroboration,
    FigureEntry,
    OutOfScopeSource,
    Panel,
    ResearchMode,
    ScopeDecision,
    StoredPanel,
    Verdict,
)

T, F, PT, M, U, P = (
    Verdict.TRUE,
    Verdict.FALSE,
    Verdict.PARTIALLY_TRUE,
    Verdict.MISLEADING,
    Verdict.UNVERIFIABLE,
    Verdict.PENDING,
)
TS, DC, DI, AG = (
    ResearchMode.TWO_STEP,
    ResearchMode.DECOMPOSE,
    ResearchMode.DECOMPOSE_INVEST,
    ResearchMode.AGENTIC,
)
DATE = datetime(2025, 3, 1, tzinfo=UTC)
OTHER_DATE = datetime(2024, 3, 1, tzinfo=UTC)


def cite(
    name: str, *, trust: float = 0.5, stance: str = "neutral", published: datetime | None = None
) -> Citation:
    return Citation(
        url=f"https://{name}.org/page",
        domain=f"{name}.org",
        trust=trust,
        stance=stance,
        published_at=published,
    )


def stored(
    panel_id: int,
    verdict: Verdict,
    *sources: Citation,
    mode: ResearchMode = TS,
    confidence: float = 0.5,
    manual: bool = False,
    escalated: bool = False,
) -> StoredPanel:
    return StoredPanel(
        panel_id=panel_id,
        manual=manual,
        escalated=escalated,
        panel=Panel(
            research_mode=mode,
            verdict=verdict,
            confidence=confidence,
            explanation=f"panel {panel_id} says {verdict.value}",
            sources=list(sources),
        ),
    )


def modes(panels: Sequence[StoredPanel]) -> list[ResearchMode]:
    return [p.panel.research_mode for p in panels if not p.manual]


class NoAdjudicator:
    def adjudicate(self, request: AdjudicationRequest) -> AdjudicationOutcome | None:
        raise AssertionError("no adjudication call expected")


class Scripted:
    """Answers each call with the next scripted outcome and records the requests."""

    def __init__(self, *answers: AdjudicationOutcome | None) -> None:
        self.answers = list(answers)
        self.requests: list[AdjudicationRequest] = []

    def adjudicate(self, request: AdjudicationRequest) -> AdjudicationOutcome | None:
        self.requests.append(request)
        return self.answers.pop(0) if self.answers else None


def outcome(
    verdict: Verdict, *cited: Citation, reason: str | None = None, confidence: float = 0.7
) -> AdjudicationOutcome:
    return AdjudicationOutcome(
        verdict=verdict,
        confidence=confidence,
        explanation=f"reconciled to {verdict.value}",
        cited_urls=tuple(c.url for c in cited),
        irreconcilable_reason=reason,
    )


def build(panels: Sequence[StoredPanel], **kwargs: object) -> ClaimVerdict | None:
    return build_claim_verdict(panels, modes(panels), **kwargs)  # type: ignore[arg-type]


# --- the completion barrier ---------------------------------------------------------------------


def test_nothing_while_a_panel_is_pending() -> None:
    panels = [stored(1, T, cite("a")), stored(2, P, mode=DC)]
    assert build(panels, adjudicator=NoAdjudicator()) is None


def test_nothing_while_an_expected_method_has_no_panel() -> None:
    assert build_claim_verdict([stored(1, T, cite("a"))], [TS, DC]) is None


def test_a_pending_search_outage_panel_holds_the_answer() -> None:
    delayed = stored(2, P, mode=DC).panel.model_copy(update={"research_delay_reason": "search_unavailable"})
    panels = [stored(1, T, cite("a")), StoredPanel(panel_id=2, panel=delayed)]
    assert build(panels) is None


def test_a_manual_panel_widens_what_is_awaited() -> None:
    panels = [stored(1, T, cite("a")), stored(2, P, mode=AG, manual=True)]
    assert build_claim_verdict(panels, [TS]) is None
    finished = [stored(1, T, cite("a")), stored(2, T, cite("b"), mode=AG, manual=True)]
    answer = build_claim_verdict(finished, [TS])
    assert answer is not None
    assert answer.panel_ids == [1, 2]


def test_no_research_configured_and_none_done_has_no_answer() -> None:
    assert build_claim_verdict([], []) is None


@pytest.mark.parametrize("allowed", [True, False])
def test_a_provisional_two_step_answer_only_when_allowed(allowed: bool) -> None:
    panels = [stored(1, T, cite("a"), mode=TS), stored(2, P, mode=DC)]
    answer = build(panels, provisional_allowed=allowed)
    if not allowed:
        assert answer is None
        return
    assert answer is not None
    assert (answer.verdict, answer.provisional, answer.selected_panel_id) == (T, True, 1)


def test_no_provisional_answer_without_a_finished_two_step_panel() -> None:
    panels = [stored(1, T, cite("a"), mode=AG), stored(2, P, mode=DC)]
    assert build(panels, provisional_allowed=True) is None


def test_the_final_answer_is_not_provisional() -> None:
    answer = build([stored(1, T, cite("a"), mode=TS), stored(2, T, mode=DC)], provisional_allowed=True)
    assert answer is not None
    assert not answer.provisional


# --- the operator -------------------------------------------------------------------------------


def test_the_operator_winner_always_answers() -> None:
    panels = [stored(1, T, cite("a")), stored(2, F, cite("b"), mode=DC), stored(3, P, mode=AG)]
    answer = build(panels, operator_winner_panel_id=1, adjudicator=NoAdjudicator())
    assert answer is not None
    assert (answer.verdict, answer.basis, answer.selected_panel_id) == (T, Basis.OPERATOR, 1)


def test_the_operator_winner_overrides_agreement() -> None:
    panels = [stored(1, T, cite("a")), stored(2, T, cite("b"), mode=DC), stored(3, U, mode=AG)]
    answer = build(panels, operator_winner_panel_id=3)
    assert answer is not None
    assert (answer.verdict, answer.basis) == (U, Basis.OPERATOR)


@pytest.mark.parametrize("winner", [99, 2])
def test_an_unknown_or_unfinished_operator_winner_is_ignored(winner: int) -> None:
    panels = [stored(1, T, cite("a")), stored(2, P, mode=DC)]
    assert build(panels, operator_winner_panel_id=winner) is None


# --- agreement ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("panels", "verdict", "selected"),
    [
        # all expected methods agree: the best-sourced panel answers
        ([stored(1, T, cite("a")), stored(2, T, cite("b"), cite("c"), mode=DC)], T, 2),
        # sourced panels agree, the rest abstain
        ([stored(1, F, cite("a")), stored(2, U, cite("b"), cite("c"), mode=DC)], F, 1),
        # a single substantive panel establishes agreement
        ([stored(1, U), stored(2, PT, cite("a"), mode=DC), stored(3, U, cite("b"), mode=AG)], PT, 2),
        # all abstain: UNVERIFIABLE is a real answer
        ([stored(1, U), stored(2, U, cite("b"), mode=DC)], U, 2),
        # a verdict no source bears out does not conflict with a sourced one
        ([stored(1, T, cite("a")), stored(2, F, mode=DC), stored(3, U, mode=AG)], T, 1),
        # unsourced panels that all agree
        ([stored(1, M), stored(2, M, mode=DC, confidence=0.9)], M, 2),
    ],
)
def test_agreement(panels: list[StoredPanel], verdict: Verdict, selected: int) -> None:
    answer = build(panels, adjudicator=NoAdjudicator())
    assert answer is not None
    assert (answer.verdict, answer.basis, answer.selected_panel_id) == (verdict, Basis.AGREEMENT, selected)
    assert answer.adjudication_reason is None
    assert answer.panel_ids == sorted(p.panel_id for p in panels)
    chosen = next(p for p in panels if p.panel_id == selected)
    assert answer.sources == chosen.panel.sources
    assert answer.confidence == chosen.panel.confidence


def test_historical_agreements_backfill_without_adjudication() -> None:
    # NoAdjudicator fails the test on any call
    panels = [stored(1, T, cite("a")), stored(2, T, cite("b"), mode=DC), stored(3, U, mode=AG)]
    answer = build(panels, adjudicator=NoAdjudicator(), previous=None)
    assert answer is not None
    assert answer.basis is Basis.AGREEMENT


class FixedChooser:
    def __init__(self, answer: int) -> None:
        self.answer = answer
        self.calls = 0

    def choose(self, candidates: Sequence[ChooserPanel]) -> int | None:
        self.calls += 1
        return self.answer


def _advisory_panels() -> list[StoredPanel]:
    # one voting TRUE, one voting UNVERIFIABLE, one manual TRUE: agreement on TRUE, but nothing confirmed
    return [
        stored(1, T, cite("a"), cite("b")),
        stored(2, T, cite("c", stance="supports"), mode=AG, manual=True),
        stored(3, U, mode=DC),
    ]


def test_the_elector_advises_which_agreeing_panel_answers() -> None:
    panels = _advisory_panels()
    assert build(panels).selected_panel_id == 1  # type: ignore[union-attr]
    chooser = FixedChooser(2)
    advised = build(panels, elector_enabled=True, chooser=chooser)
    assert advised is not None
    assert (advised.verdict, advised.basis, advised.selected_panel_id) == (T, Basis.AGREEMENT, 2)
    assert chooser.calls == 1


def test_elector_advice_outside_the_agreement_is_ignored() -> None:
    answer = build(_advisory_panels(), elector_enabled=True, chooser=FixedChooser(3))
    assert answer is not None
    assert (answer.verdict, answer.selected_panel_id) == (T, 1)


def test_the_elector_is_not_consulted_unless_enabled() -> None:
    chooser = FixedChooser(2)
    build(_advisory_panels(), chooser=chooser)
    assert chooser.calls == 0


# --- fallback -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("panels", "verdict", "selected", "reason"),
    [
        # PARTIALLY_TRUE against FALSE with a shared admitted URL: PARTIALLY_TRUE, even at lower trust
        (
            [
                stored(1, PT, cite("shared", trust=0.2)),
                stored(2, F, cite("shared", trust=0.2), cite("x", trust=0.9), mode=DC),
            ],
            PT,
            1,
            AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
        ),
        # no overlap: highest source trust wins
        (
            [stored(1, PT, cite("a", trust=0.4)), stored(2, F, cite("b", trust=0.8), mode=DC)],
            F,
            2,
            AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
        ),
        (
            [
                stored(1, PT, cite("a", trust=0.8)),
                stored(2, F, cite("b", trust=0.4), cite("c", trust=0.4), mode=DC),
            ],
            PT,
            1,
            AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
        ),
        # equal trust: source count
        (
            [stored(1, PT, cite("a")), stored(2, F, cite("b"), cite("c"), mode=DC)],
            F,
            2,
            AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
        ),
        # equal trust and count: confidence
        (
            [stored(1, PT, cite("a"), confidence=0.6), stored(2, F, cite("b"), mode=DC, confidence=0.7)],
            F,
            2,
            AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
        ),
        # everything equal: the older panel (query order)
        (
            [stored(1, F, cite("a")), stored(2, PT, cite("b"), mode=DC)],
            F,
            1,
            AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
        ),
        # other disagreements by degree: the fallback order
        (
            [stored(1, T, cite("a")), stored(2, PT, cite("b"), mode=DC)],
            PT,
            2,
            AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
        ),
        (
            [stored(1, F, cite("a")), stored(2, M, cite("b"), mode=DC)],
            M,
            2,
            AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
        ),
        (
            [stored(1, M, cite("a")), stored(2, T, cite("b"), mode=DC)],
            M,
            1,
            AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
        ),
        (
            [stored(1, PT, cite("a")), stored(2, M, cite("b"), mode=DC)],
            PT,
            1,
            AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
        ),
        # a direct contradiction: FALSE before TRUE, no reconcilable reason
        ([stored(1, T, cite("a", trust=0.9)), stored(2, F, cite("b", trust=0.1), mode=DC)], F, 2, None),
        (
            [stored(1, T, cite("a")), stored(2, F, cite("b"), mode=DC), stored(3, PT, cite("c"), mode=AG)],
            PT,
            3,
            None,
        ),
        (
            [stored(1, T, cite("a")), stored(2, F, cite("b"), mode=DC), stored(3, M, cite("c"), mode=AG)],
            M,
            3,
            None,
        ),
        # ties within the preferred verdict: source ranking
        (
            [
                stored(1, T, cite("a")),
                stored(2, F, cite("b"), mode=DC),
                stored(3, F, cite("c"), cite("d"), mode=AG),
            ],
            F,
            3,
            None,
        ),
        # abstentions do not change the fallback
        (
            [
                stored(1, T, cite("a")),
                stored(2, F, cite("b"), mode=DC),
                stored(3, U, cite("c"), cite("d"), cite("e"), mode=AG),
            ],
            F,
            2,
            None,
        ),
    ],
)
def test_fallback_when_adjudication_is_unavailable(
    panels: list[StoredPanel], verdict: Verdict, selected: int, reason: AdjudicationReason | None
) -> None:
    answer = build(panels, adjudicator=None)
    assert answer is not None
    assert (answer.verdict, answer.basis, answer.selected_panel_id, answer.adjudication_reason) == (
        verdict,
        Basis.FALLBACK,
        selected,
        reason,
    )


def test_unsourced_conflicts_fall_back_to_the_most_cautious_verdict() -> None:
    answer = build(
        [stored(1, T), stored(2, F, mode=DC), stored(3, U, cite("a"), mode=AG)], adjudicator=NoAdjudicator()
    )
    assert answer is not None
    assert (answer.verdict, answer.basis, answer.selected_panel_id) == (F, Basis.FALLBACK, 2)


def test_fallback_needs_a_substantive_panel() -> None:
    with pytest.raises(ValueError):
        fallback_panel([stored(1, U, cite("a"))])


# --- adjudication -------------------------------------------------------------------------------

A, B, C, OUT = cite("a", stance="supports"), cite("b", stance="refutes"), cite("c"), cite("elsewhere")


def degree_panels() -> list[StoredPanel]:
    return [stored(1, PT, A), stored(2, F, B, mode=DC)]


def direct_panels() -> list[StoredPanel]:
    return [stored(1, T, A), stored(2, F, B, mode=DC), stored(3, U, C, mode=AG)]


def test_a_valid_adjudication_answers_with_admitted_citations_only() -> None:
    adjudicator = Scripted(outcome(M, B, OUT))
    answer = build(degree_panels(), adjudicator=adjudicator)
    assert answer is not None
    assert (answer.verdict, answer.basis, answer.adjudication_reason) == (
        M,
        Basis.ADJUDICATED,
        AdjudicationReason.RECONCILED_PANELS,
    )
    assert [c.url for c in answer.sources] == [B.url]
    assert answer.selected_panel_id is None
    assert answer.panel_ids == [1, 2]
    request = adjudicator.requests[0]
    assert request.disagreement is Disagreement.DEGREE
    assert set(request.admitted_urls) == {A.url, B.url}
    assert request.instruction is None


def test_a_rejected_unverifiable_gets_one_retry_with_the_reconcile_instruction() -> None:
    adjudicator = Scripted(outcome(U, A, B, reason="they differ"), outcome(PT, A))
    answer = build(degree_panels(), adjudicator=adjudicator)
    assert answer is not None
    assert (answer.verdict, answer.basis, answer.adjudication_reason) == (
        PT,
        Basis.ADJUDICATED,
        AdjudicationReason.RECONCILED_PANELS,
    )
    assert [r.instruction for r in adjudicator.requests] == [None, RECONCILE_INSTRUCTION]


def test_disagreement_by_degree_never_ends_unverifiable() -> None:
    adjudicator = Scripted(
        outcome(U, A, B, reason="x"), outcome(U, A, B, reason="x"), outcome(U, A, B, reason="x")
    )
    answer = build(degree_panels(), adjudicator=adjudicator)
    assert answer is not None
    assert len(adjudicator.requests) == 2  # one retry only
    # no shared URL, equal trust, count and confidence: the older panel, PARTIALLY_TRUE
    assert (answer.verdict, answer.basis, answer.adjudication_reason) == (
        PT,
        Basis.FALLBACK,
        AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
    )


def test_a_direct_contradiction_may_end_unverifiable_with_a_reason_and_both_sides_cited() -> None:
    adjudicator = Scripted(outcome(U, A, B, reason="The two agencies publish contradictory counts."))
    answer = build(direct_panels(), adjudicator=adjudicator)
    assert answer is not None
    assert (answer.verdict, answer.basis, answer.adjudication_reason) == (
        U,
        Basis.ADJUDICATED,
        AdjudicationReason.IRRECONCILABLE_EVIDENCE,
    )
    assert {c.url for c in answer.sources} == {A.url, B.url}
    assert len(adjudicator.requests) == 1
    assert adjudicator.requests[0].disagreement is Disagreement.DIRECT


@pytest.mark.parametrize(
    "rejected",
    [
        outcome(U, A, B),  # no reason
        outcome(U, A, B, reason="   "),  # a blank reason
        outcome(U, A, reason="contradictory"),  # one side cited
        outcome(U, A, C, reason="contradictory"),  # an abstaining panel's source is not the other side
        outcome(U, OUT, reason="contradictory"),  # nothing admitted cited
    ],
)
def test_an_unsupported_unverifiable_is_retried_then_falls_back(rejected: AdjudicationOutcome) -> None:
    adjudicator = Scripted(rejected, rejected)
    answer = build(direct_panels(), adjudicator=adjudicator)
    assert answer is not None
    assert len(adjudicator.requests) == 2
    assert adjudicator.requests[1].instruction == RECONCILE_INSTRUCTION
    assert (answer.verdict, answer.basis, answer.adjudication_reason) == (F, Basis.FALLBACK, None)


def test_the_retry_may_reconcile_a_direct_contradiction() -> None:
    adjudicator = Scripted(outcome(U, A, B), outcome(T, A))
    answer = build(direct_panels(), adjudicator=adjudicator)
    assert answer is not None
    assert (answer.verdict, answer.basis) == (T, Basis.ADJUDICATED)


@pytest.mark.parametrize(
    "failed",
    [
        None,  # synthesis failed or unavailable
        outcome(T, OUT),  # cites nothing admitted
        outcome(T),  # cites nothing at all
        outcome(P, A),  # not an answer
    ],
)
def test_a_failed_substantive_adjudication_falls_back_without_a_retry(
    failed: AdjudicationOutcome | None,
) -> None:
    adjudicator = Scripted(failed)
    answer = build(degree_panels(), adjudicator=adjudicator)
    assert answer is not None
    assert len(adjudicator.requests) == 1
    assert (answer.basis, answer.adjudication_reason) == (
        Basis.FALLBACK,
        AdjudicationReason.RECONCILABLE_PANELS_FALLBACK,
    )


def test_the_offline_adjudicator_reconciles_degree_by_the_fallback_rules() -> None:
    panels = [stored(1, PT, cite("shared")), stored(2, F, cite("shared"), cite("x", trust=0.9), mode=DC)]
    answer = build(panels, adjudicator=OfflineAdjudicator())
    assert answer is not None
    assert (answer.verdict, answer.basis, answer.adjudication_reason) == (
        PT,
        Basis.ADJUDICATED,
        AdjudicationReason.RECONCILED_PANELS,
    )
    assert [c.url for c in answer.sources] == [cite("shared").url]


def test_the_offline_adjudicator_calls_a_direct_contradiction_irreconcilable() -> None:
    answer = build(direct_panels(), adjudicator=OfflineAdjudicator())
    assert answer is not None
    assert (answer.verdict, answer.basis, answer.adjudication_reason) == (
        U,
        Basis.ADJUDICATED,
        AdjudicationReason.IRRECONCILABLE_EVIDENCE,
    )
    assert {c.url for c in answer.sources} == {A.url, B.url}
    assert "a.org" in answer.explanation and "b.org" in answer.explanation


_substantive = st.sampled_from([T, F, PT, M])


@st.composite
def _degree_conflicts(draw: st.DrawFn) -> list[StoredPanel]:
    verdicts = draw(
        st.lists(_substantive, min_size=2, max_size=4).filter(
            lambda vs: len(set(vs)) > 1 and not {T, F} <= set(vs)
        )
    )
    panels = [
        stored(i, v, cite(f"s{i}", trust=draw(st.floats(0, 1)))) for i, v in enumerate(verdicts, start=1)
    ]
    return panels + [stored(99, U, cite("abstain"))] * draw(st.integers(0, 1))


@given(
    _degree_conflicts(), st.lists(st.sampled_from([U, T, F, PT, M, P]), min_size=2, max_size=2), st.booleans()
)
def test_no_adjudicator_answer_turns_a_degree_disagreement_unverifiable(
    panels: list[StoredPanel], answers: list[Verdict], cite_admitted: bool
) -> None:
    cited = panels[0].panel.sources[0] if cite_admitted else OUT
    adjudicator = Scripted(*(outcome(v, cited, reason="irreconcilable") for v in answers))
    answer = build_claim_verdict(panels, [], adjudicator=adjudicator)
    assert answer is not None
    assert answer.verdict in {T, F, PT, M}
    assert answer.basis in {Basis.ADJUDICATED, Basis.FALLBACK}
    expected_reason = (
        AdjudicationReason.RECONCILED_PANELS
        if answer.basis is Basis.ADJUDICATED
        else AdjudicationReason.RECONCILABLE_PANELS_FALLBACK
    )
    assert answer.adjudication_reason is expected_reason


# --- survival of an unchanged adjudicated answer ------------------------------------------------


Rebuild = Callable[[StoredPanel], StoredPanel]


def _adjudicated(panels: list[StoredPanel]) -> ClaimVerdict:
    answer = build(panels, adjudicator=Scripted(outcome(M, A, B)))
    assert answer is not None and answer.basis is Basis.ADJUDICATED
    return answer


def _with_sources(
    stored_panel: StoredPanel, *sources: Citation, verdict: Verdict | None = None
) -> StoredPanel:
    update: dict[str, object] = {"sources": list(sources)}
    if verdict is not None:
        update["verdict"] = verdict
    return stored_panel.model_copy(update={"panel": stored_panel.panel.model_copy(update=update)})


def test_an_unchanged_adjudicated_answer_survives_when_adjudication_is_unavailable() -> None:
    panels = [stored(1, PT, A, C), stored(2, F, B, mode=DC)]
    previous = _adjudicated(panels)
    assert build(panels, previous=previous, adjudicator=None) == previous
    assert build(panels, previous=previous, adjudicator=NoAdjudicator()) == previous


@pytest.mark.parametrize(
    "rebuilt",
    [
        pytest.param(lambda p: _with_sources(p, C, A), id="citation order"),
        pytest.param(
            lambda p: _with_sources(p, A.model_copy(update={"published_at": DATE}), C), id="date added"
        ),
        pytest.param(
            lambda p: _with_sources(p, A.model_copy(update={"title": "New title", "trust": 0.9}), C),
            id="title and trust",
        ),
    ],
)
def test_cosmetic_and_legacy_changes_do_not_replace_the_adjudicated_answer(rebuilt: Rebuild) -> None:
    panels = [stored(1, PT, A, C), stored(2, F, B, mode=DC)]
    previous = _adjudicated(panels)
    changed = [rebuilt(panels[0]), panels[1]]
    assert build(changed, previous=previous, adjudicator=None) == previous


@pytest.mark.parametrize(
    "rebuilt",
    [
        pytest.param(lambda p: _with_sources(p, A, C, cite("new")), id="evidence added"),
        pytest.param(lambda p: _with_sources(p, A), id="evidence removed"),
        pytest.param(
            lambda p: _with_sources(p, A.model_copy(update={"excerpt": "another passage"}), C), id="excerpt"
        ),
        pytest.param(lambda p: _with_sources(p, A, C, verdict=M), id="verdict"),
    ],
)
def test_real_changes_rebuild_the_answer(rebuilt: Rebuild) -> None:
    panels = [stored(1, PT, A, C), stored(2, F, B, mode=DC)]
    previous = _adjudicated(panels)
    changed = [rebuilt(panels[0]), panels[1]]
    answer = build(changed, previous=previous, adjudicator=None)
    assert answer != previous


@pytest.mark.parametrize("new_date", [OTHER_DATE, None])
def test_a_moved_or_removed_date_rebuilds_the_answer(new_date: datetime | None) -> None:
    panels = [stored(1, PT, A.model_copy(update={"published_at": DATE}), C), stored(2, F, B, mode=DC)]
    previous = _adjudicated(panels)
    changed = [_with_sources(panels[0], A.model_copy(update={"published_at": new_date}), C), panels[1]]
    answer = build(changed, previous=previous, adjudicator=None)
    assert answer is not None
    assert answer.basis is Basis.FALLBACK


def test_a_new_panel_rebuilds_the_answer() -> None:
    panels = [stored(1, PT, A, C), stored(2, F, B, mode=DC)]
    previous = _adjudicated(panels)
    grown = [*panels, stored(3, T, cite("d"), mode=AG)]
    answer = build(grown, previous=previous, adjudicator=None)
    assert answer is not None
    assert answer.basis is Basis.FALLBACK
    assert answer.panel_ids == [1, 2, 3]


@pytest.mark.parametrize(
    "stale",
    [
        pytest.param({"basis": Basis.FALLBACK}, id="a fallback is retried"),
        pytest.param({"panel_fingerprints": {}}, id="no fingerprints on file"),
        pytest.param(
            {"verdict": U, "adjudication_reason": AdjudicationReason.IRRECONCILABLE_EVIDENCE},
            id="unverifiable for a degree conflict",
        ),
        pytest.param({"sources": [OUT]}, id="cites unadmitted evidence"),
        pytest.param({"sources": []}, id="cites nothing"),
        pytest.param({"adjudication_reason": None}, id="no reason"),
    ],
)
def test_only_a_valid_adjudicated_answer_survives(stale: dict[str, object]) -> None:
    panels = [stored(1, PT, A, C), stored(2, F, B, mode=DC)]
    previous = _adjudicated(panels).model_copy(update=stale)
    adjudicator = Scripted(outcome(PT, A))
    answer = build(panels, previous=previous, adjudicator=adjudicator)
    assert answer is not None
    assert len(adjudicator.requests) == 1
    assert (answer.verdict, answer.basis) == (PT, Basis.ADJUDICATED)


def test_a_surviving_irreconcilable_answer_on_a_direct_contradiction() -> None:
    panels = direct_panels()
    previous = build(panels, adjudicator=OfflineAdjudicator())
    assert previous is not None and previous.verdict is U
    assert build(panels, previous=previous, adjudicator=NoAdjudicator()) == previous


# --- fingerprints -------------------------------------------------------------------------------


def _panel(**update: object) -> Panel:
    base = Panel(
        research_mode=DC,
        verdict=PT,
        confidence=0.6,
        explanation="why",
        sources=[A, B],
        out_of_scope_sources=[
            OutOfScopeSource(
                url="https://o.org/x", domain="o.org", scope_decision=ScopeDecision.DIFFERENT_PERIOD
            )
        ],
        figures_found=[FigureEntry(url=A.url, domain="a.org", value="3.1%")],
        corroboration=Corroboration(
            element="3.1%",
            independent_confirmations=1,
            confirming=[FigureEntry(url=A.url, domain="a.org", value="3.1%")],
        ),
    )
    return base.model_copy(update=update)


def test_a_fingerprint_is_stable_and_versioned() -> None:
    assert panel_fingerprint(_panel()) == panel_fingerprint(_panel())
    assert panel_fingerprint(_panel()).startswith("fp1:")
    assert fingerprint_unchanged(panel_fingerprint(_panel()), panel_fingerprint(_panel()))


@pytest.mark.parametrize(
    "update",
    [
        pytest.param({"sources": [B, A]}, id="citation order"),
        pytest.param(
            {"confidence": 0.9, "explanation": "reworded", "cost": 3.0, "trace": {"q": 1}}, id="presentation"
        ),
        pytest.param({"sources": [A.model_copy(update={"published_at": DATE}), B]}, id="citation date added"),
        pytest.param(
            {"figures_found": [FigureEntry(url=A.url, domain="a.org", value="3.1%", published=DATE)]},
            id="figure date added",
        ),
        pytest.param(
            {
                "sources": [
                    A.model_copy(
                        update={"source_origin": "curated", "is_primary": True, "diagnostics": {"qid": "Q1"}}
                    ),
                    B,
                ]
            },
            id="provenance labels",
        ),
    ],
)
def test_what_does_not_count_as_a_change(update: dict[str, object]) -> None:
    assert fingerprint_unchanged(panel_fingerprint(_panel()), panel_fingerprint(_panel(**update)))


@pytest.mark.parametrize(
    "update",
    [
        pytest.param({"verdict": F}, id="verdict"),
        pytest.param({"sources": [A]}, id="a source dropped"),
        pytest.param({"sources": [A, B, C]}, id="a source added"),
        pytest.param({"sources": [A.model_copy(update={"stance": "refutes"}), B]}, id="stance"),
        pytest.param(
            {"sources": [A.model_copy(update={"scope_decision": ScopeDecision.UNCLEAR}), B]}, id="scope"
        ),
        pytest.param({"out_of_scope_sources": []}, id="scope exclusions"),
        pytest.param(
            {"figures_found": [FigureEntry(url=A.url, domain="a.org", value="3.4%")]}, id="a figure"
        ),
        pytest.param({"corroboration": None}, id="corroboration"),
    ],
)
def test_what_counts_as_a_change(update: dict[str, object]) -> None:
    assert not fingerprint_unchanged(panel_fingerprint(_panel()), panel_fingerprint(_panel(**update)))


def test_dates_recorded_before_must_stay_the_same() -> None:
    dated = _panel(sources=[A.model_copy(update={"published_at": DATE}), B])
    moved = _panel(sources=[A.model_copy(update={"published_at": OTHER_DATE}), B])
    assert not fingerprint_unchanged(panel_fingerprint(dated), panel_fingerprint(moved))
    assert not fingerprint_unchanged(panel_fingerprint(dated), panel_fingerprint(_panel()))  # removed
    # the same instant in another zone is the same date
    shifted = _panel(
        sources=[A.model_copy(update={"published_at": DATE.astimezone(timezone(timedelta(hours=2)))}), B]
    )
    assert fingerprint_unchanged(panel_fingerprint(dated), panel_fingerprint(shifted))


@pytest.mark.parametrize(
    ("old", "new", "same"),
    [("", "", False), ("legacy-hash", "legacy-hash", True), ("legacy-hash", "other", False)],
)
def test_unreadable_fingerprints_must_match_exactly(old: str, new: str, same: bool) -> None:
    assert fingerprint_unchanged(old, new) is same
    assert not fingerprint_unchanged(old, panel_fingerprint(_panel()))
