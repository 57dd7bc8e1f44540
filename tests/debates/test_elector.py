"""The elector: confirmed verdicts, elections, and a chooser that never sees confidence."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icarus.debates.elector import (
    ChooserPanel,
    ElectionReason,
    OfflineChooser,
    agreement_rank,
    best_sourced,
    chooser_view,
    confirmed_from_tokens,
    confirmed_verdict,
    elect,
    source_count,
    source_trust,
    verdict_token,
)
from icarus.debates.model import Citation, Panel, ResearchMode, StoredPanel, SubQuestion, Verdict

T, F, PT, M, U, P = (
    Verdict.TRUE,
    Verdict.FALSE,
    Verdict.PARTIALLY_TRUE,
    Verdict.MISLEADING,
    Verdict.UNVERIFIABLE,
    Verdict.PENDING,
)


def cite(
    url: str, *, trust: float = 0.5, stance: str = "neutral", published: datetime | None = None
) -> Citation:
    return Citation(url=url, domain=url.split("/")[2], trust=trust, stance=stance, published_at=published)


def stored(
    panel_id: int,
    verdict: Verdict,
    *,
    manual: bool = False,
    escalated: bool = False,
    confidence: float = 0.5,
    sources: Sequence[Citation] = (),
    explanation: str = "",
    mode: ResearchMode = ResearchMode.TWO_STEP,
) -> StoredPanel:
    return StoredPanel(
        panel_id=panel_id,
        manual=manual,
        escalated=escalated,
        panel=Panel(
            research_mode=mode,
            verdict=verdict,
            confidence=confidence,
            explanation=explanation,
            sources=list(sources),
        ),
    )


def panels_of(*verdicts: Verdict, manual: Sequence[Verdict] = ()) -> list[StoredPanel]:
    voting = [stored(i, v) for i, v in enumerate(verdicts, start=1)]
    return voting + [stored(100 + i, v, manual=True) for i, v in enumerate(manual)]


# --- tokens and confirmation --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("true", T),
        ("TRUE", T),
        ("False", F),
        ("MISLEADING", M),
        ("Partially_True", PT),
        ("UNVERIFIABLE", U),
        ("pending", None),
        ("PENDING", None),
        ("", None),
        (None, None),
        ("mostly false", None),
        (" true", None),
        ("partially true", None),
    ],
)
def test_verdict_tokens_compare_case_insensitively_and_exactly(
    token: str | None, expected: Verdict | None
) -> None:
    assert verdict_token(token) is expected


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        ([], None),
        (["true"], None),
        (["true", "true"], T),
        (["TRUE", "true"], T),
        (["true", "True", "false"], T),  # 2–1
        (["true", "true", "false", "false"], None),  # 2–2 is unconfirmed
        (["true", "true", "true", "false"], T),  # 3–1
        (["false", "false", "false", "true", "true"], F),  # 3–2
        (["true", "true", "false", "false", "misleading"], None),  # 2–2–1
        (["true", "true", "false", "misleading"], T),  # 2 against 1 and 1
        (["false", "misleading"], None),  # FALSE and MISLEADING differ
        (["FALSE", "MISLEADING", "false"], F),
        (["false", "misleading", "misleading"], M),
        (["unverifiable", "UNVERIFIABLE"], U),  # UNVERIFIABLE counts
        (["unverifiable", "unverifiable", "true"], U),
        (["true", "pending", "pending", "pending"], None),  # PENDING is not a vote
        (["true", "true", "pending", "pending", "pending"], T),
        (["pending", "PENDING"], None),
        (["true", "true", "", None, ""], T),  # empty is not a vote
        (["true", "", ""], None),
        (["partially_true", "partially_true", "true"], PT),
    ],
)
def test_confirmation_truth_table(tokens: list[str | None], expected: Verdict | None) -> None:
    assert confirmed_from_tokens(tokens) is expected


@pytest.mark.parametrize(
    ("panels", "expected"),
    [
        (panels_of(T, manual=[T]), None),  # a manual panel does not make the second vote
        (panels_of(T, T, manual=[F, F, F]), T),  # nor outvotes anything
        (panels_of(T, F, manual=[F]), None),
        (panels_of(F, F, T, T, manual=[T]), None),  # a manual panel does not break a 2–2 tie
        (panels_of(manual=[T, T, T]), None),
        (panels_of(U, U), U),
    ],
)
def test_manual_panels_do_not_vote(panels: list[StoredPanel], expected: Verdict | None) -> None:
    assert confirmed_verdict(panels) is expected


def test_escalated_panels_vote() -> None:
    panels = [stored(1, F), stored(2, T), stored(3, T, escalated=True)]
    assert confirmed_verdict(panels) is T


_voters = st.lists(
    st.tuples(st.sampled_from(list(Verdict)), st.booleans()),
    max_size=9,
)


@given(_voters)
def test_a_confirmed_verdict_is_held_by_two_non_manual_panels_and_outnumbers_every_other(
    votes: list[tuple[Verdict, bool]],
) -> None:
    panels = [stored(i, v, manual=m) for i, (v, m) in enumerate(votes)]
    result = confirmed_verdict(panels)
    counts: dict[Verdict, int] = {}
    for v, m in votes:
        if not m and v is not Verdict.PENDING:
            counts[v] = counts.get(v, 0) + 1
    if result is None:
        top = sorted(counts.values(), reverse=True)
        assert not top or top[0] < 2 or (len(top) > 1 and top[0] == top[1])
    else:
        assert result is not Verdict.PENDING
        assert counts[result] >= 2
        assert all(counts[result] > n for v, n in counts.items() if v is not result)


@given(_voters, st.lists(st.sampled_from(list(Verdict)), max_size=5), st.randoms())
def test_confirmation_ignores_manual_panels_and_order(
    votes: list[tuple[Verdict, bool]], manual: list[Verdict], rnd: random.Random
) -> None:
    panels = [stored(i, v, manual=m) for i, (v, m) in enumerate(votes)]
    extra = [stored(1000 + i, v, manual=True) for i, v in enumerate(manual)]
    shuffled = panels + extra
    rnd.shuffle(shuffled)
    assert confirmed_verdict(shuffled) is confirmed_verdict(panels)


# --- ranking ------------------------------------------------------------------------------------


def test_source_count_counts_distinct_urls_and_trust_is_their_mean() -> None:
    panel = stored(
        1,
        T,
        sources=[
            cite("https://a.org/1", trust=0.9),
            cite("https://a.org/1"),
            cite("https://b.org/2", trust=0.3),
        ],
    )
    assert source_count(panel.panel) == 2
    assert source_trust(panel.panel) == pytest.approx(0.6)
    assert source_trust(stored(2, T).panel) == 0.0


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        # more sources beats more trusted ones and higher confidence
        (
            stored(
                9,
                T,
                confidence=0.1,
                sources=[cite("https://a.org/1", trust=0.1), cite("https://b.org/1", trust=0.1)],
            ),
            stored(1, T, confidence=0.9, sources=[cite("https://c.org/1", trust=0.9)]),
        ),
        # same count: more trusted sources beat higher confidence
        (
            stored(9, T, confidence=0.1, sources=[cite("https://a.org/1", trust=0.8)]),
            stored(1, T, confidence=0.9, sources=[cite("https://c.org/1", trust=0.7)]),
        ),
        # same count and trust: confidence
        (
            stored(9, T, confidence=0.8, sources=[cite("https://a.org/1")]),
            stored(1, T, confidence=0.7, sources=[cite("https://c.org/1")]),
        ),
        # everything equal: the older panel
        (stored(1, T, sources=[cite("https://a.org/1")]), stored(2, T, sources=[cite("https://a.org/1")])),
    ],
)
def test_agreement_ranking_is_source_count_then_trust_then_confidence_then_panel_id(
    better: StoredPanel, worse: StoredPanel
) -> None:
    assert agreement_rank(better) < agreement_rank(worse)
    assert best_sourced([worse, better]) is better


# --- elections ----------------------------------------------------------------------------------


class RefusingChooser:
    def choose(self, candidates: Sequence[ChooserPanel]) -> int | None:
        raise AssertionError("the chooser must not be asked")


class RecordingChooser:
    def __init__(self, answer: int | None) -> None:
        self.answer = answer
        self.seen: list[ChooserPanel] = []

    def choose(self, candidates: Sequence[ChooserPanel]) -> int | None:
        self.seen.extend(candidates)
        return self.answer


def test_no_finished_panel_elects_nothing() -> None:
    assert elect([], RefusingChooser()) is None
    assert elect([stored(1, P), stored(2, P)], RefusingChooser()) is None


def test_confirmed_verdict_is_elected_by_arithmetic_without_the_chooser() -> None:
    panels = [
        stored(1, T, confidence=0.9, sources=[cite("https://a.org/1")]),
        stored(2, T, confidence=0.2, sources=[cite("https://a.org/1"), cite("https://b.org/1")]),
        stored(
            3,
            F,
            confidence=1.0,
            sources=[cite("https://c.org/1"), cite("https://d.org/1"), cite("https://e.org/1")],
        ),
    ]
    election = elect(panels, RefusingChooser())
    assert election is not None
    assert (election.panel_id, election.verdict, election.reason) == (2, T, ElectionReason.CONFIRMED)


def test_a_matching_manual_panel_may_win_a_confirmed_election() -> None:
    many = [cite(f"https://s{i}.org/x") for i in range(4)]
    panels = [
        stored(1, T),
        stored(2, T),
        stored(3, T, manual=True, sources=many),
        stored(4, F, manual=True, sources=many * 2),
    ]
    election = elect(panels, RefusingChooser())
    assert election is not None
    assert (election.panel_id, election.reason) == (3, ElectionReason.CONFIRMED)


def test_single_finished_panel_is_elected_as_it_is() -> None:
    election = elect([stored(1, U), stored(2, P)], RefusingChooser())
    assert election is not None
    assert (election.panel_id, election.verdict, election.reason) == (1, U, ElectionReason.SINGLE_PANEL)


def test_unanimous_panels_without_confirmation_take_the_best_sourced() -> None:
    # one voting panel and one manual: not confirmed, but unanimous
    panels = [stored(1, F), stored(2, F, manual=True, sources=[cite("https://a.org/1")])]
    election = elect(panels, RefusingChooser())
    assert election is not None
    assert (election.panel_id, election.reason) == (2, ElectionReason.UNANIMOUS)


@pytest.mark.parametrize(
    "verdicts",
    [(T, F), (T, T, F, F), (F, M), (T, U), (PT, F, U)],
)
def test_a_split_goes_to_the_chooser(verdicts: tuple[Verdict, ...]) -> None:
    panels = [stored(i, v) for i, v in enumerate(verdicts, start=1)]
    chooser = RecordingChooser(answer=len(verdicts))
    election = elect(panels, chooser)
    assert election is not None
    assert (election.panel_id, election.verdict, election.reason) == (
        len(verdicts),
        verdicts[-1],
        ElectionReason.CHOSEN,
    )
    assert [v.panel_id for v in chooser.seen] == list(range(1, len(verdicts) + 1))


@pytest.mark.parametrize("answer", [None, 99])
def test_a_chooser_answer_outside_the_candidates_falls_back_to_the_offline_choice(answer: int | None) -> None:
    panels = [stored(1, T), stored(2, F, sources=[cite("https://a.org/1", stance="refutes")])]
    election = elect(panels, RecordingChooser(answer))
    assert election is not None
    assert (election.panel_id, election.reason) == (2, ElectionReason.CHOSEN)
    assert elect(panels, None) == election


def test_the_chooser_never_sees_confidence_or_sub_questions() -> None:
    panel = Panel(
        research_mode=ResearchMode.DECOMPOSE,
        verdict=T,
        confidence=0.8765,
        explanation="Because of the budget figures.",
        sources=[cite("https://a.org/1", stance="supports")],
        sub_questions=[SubQuestion(question="SECRET-SUBQUESTION", verdict=T, confidence=0.4321)],
        trace={"confidence_raw": 0.5555},
    )
    panels = [StoredPanel(panel_id=1, panel=panel), stored(2, F, confidence=0.6789)]
    chooser = RecordingChooser(answer=1)
    elect(panels, chooser)
    assert len(chooser.seen) == 2
    for view in chooser.seen:
        dumped = view.model_dump_json()
        for leak in (
            "confidence",
            "sub_question",
            "SECRET-SUBQUESTION",
            "0.8765",
            "0.4321",
            "0.6789",
            "0.5555",
            "trace",
        ):
            assert leak not in dumped
    for name in ("confidence", "sub_questions", "trace"):
        assert name not in ChooserPanel.model_fields


# --- the offline chooser ------------------------------------------------------------------------

OLD = datetime(2019, 1, 1, tzinfo=UTC)
NEW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("preferred", "other"),
    [
        # a verdict a source bears out beats one nothing cited bears out
        (
            stored(2, F, sources=[cite("https://a.org/1", stance="refutes")]),
            stored(1, T, sources=[cite("https://b.org/1")]),
        ),
        # honest missing evidence beats an unsupported verdict
        (stored(2, U, explanation="No source reports the 2025 figure."), stored(1, T)),
        # a bare unverifiable still beats an unsupported verdict
        (stored(2, U), stored(1, F, sources=[cite("https://b.org/1", stance="supports")])),
        # a supported verdict beats honest missing evidence
        (
            stored(2, T, sources=[cite("https://a.org/1", stance="supports")]),
            stored(1, U, explanation="Nothing found."),
        ),
        # between supported verdicts, more current sources
        (
            stored(2, T, sources=[cite("https://a.org/1", stance="supports", published=NEW)]),
            stored(1, F, sources=[cite("https://b.org/1", stance="refutes", published=OLD)]),
        ),
        # a dated source beats an undated one
        (
            stored(2, T, sources=[cite("https://a.org/1", stance="supports", published=OLD)]),
            stored(1, F, sources=[cite("https://b.org/1", stance="refutes")]),
        ),
        # then more sources
        (
            stored(
                2,
                PT,
                sources=[
                    cite("https://a.org/1", stance="supports"),
                    cite("https://c.org/1", stance="refutes"),
                ],
            ),
            stored(1, F, sources=[cite("https://b.org/1", stance="refutes")]),
        ),
        # then the older panel
        (
            stored(1, PT, sources=[cite("https://a.org/1", stance="refutes")]),
            stored(2, M, sources=[cite("https://b.org/1", stance="supports")]),
        ),
    ],
)
def test_offline_chooser_prefers_supported_verdicts_honest_gaps_and_current_sources(
    preferred: StoredPanel, other: StoredPanel
) -> None:
    views = [chooser_view(other), chooser_view(preferred)]
    assert OfflineChooser().choose(views) == preferred.panel_id
    assert OfflineChooser().choose(list(reversed(views))) == preferred.panel_id


def test_offline_chooser_ignores_confidence() -> None:
    low = stored(1, T, confidence=0.1, sources=[cite("https://a.org/1", stance="supports")])
    high = stored(2, F, confidence=0.99, sources=[cite("https://b.org/1", stance="refutes")])
    assert OfflineChooser().choose([chooser_view(high), chooser_view(low)]) == 1
    assert OfflineChooser().choose([]) is None
