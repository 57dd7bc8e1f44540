"""The query planner: every kind when the budget allows, trimmed in priority order, dated, never X."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icarus.ledger import FieldName, Span
from icarus.ledger.claims import Claim, TemporalScope
from icarus.ledger.figures import Figure
from icarus.research.queries import (
    CORRECTION_TERMS,
    DEFAULT_EVENT_WINDOW,
    PRIMARY_SOURCE_TERMS,
    PRIORITY,
    REFUTATION_TERMS,
    PlannedQuery,
    QueryKind,
    plan_queries,
    web_query,
)

AS_OF = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
TEXT = "The World Health Organization said measles cases in Europe rose 45% in 2024, not 10%."


def make_claim(text: str = TEXT, **fields: object) -> Claim:
    return Claim(
        claim_id="c1",
        source_field=FieldName.PLAIN_TEXT,
        span=Span(start=0, end=len(text)),
        text=text,
        **fields,
    )


def kinds(queries: list[PlannedQuery]) -> list[QueryKind]:
    return [query.kind for query in queries]


def test_every_kind_in_priority_order_when_the_budget_allows() -> None:
    queries = plan_queries(make_claim(event_date=date(2025, 2, 1)), AS_OF, max_queries=10)
    assert kinds(queries) == list(PRIORITY)
    assert len(set(kinds(queries))) == 6


def test_close_wording_keeps_the_claims_words_and_negation_minus_stopwords() -> None:
    close = plan_queries(make_claim(), AS_OF, 1)[0]
    assert close.kind is QueryKind.CLOSE_WORDING
    assert close.text == "World Health Organization measles cases Europe rose 45 2024 not 10"
    assert close.since is None and close.until is None


def test_normalized_uses_the_proposed_text_else_a_content_word_form() -> None:
    proposed = plan_queries(make_claim(normalized="measles cases Europe 2024"), AS_OF, 2)[1]
    assert (proposed.kind, proposed.text) == (QueryKind.NORMALIZED, "measles cases Europe 2024")
    derived = plan_queries(make_claim(), AS_OF, 2)[1]
    assert derived.kind is QueryKind.NORMALIZED
    assert derived.text == "world health organization measles cases europe rose 45 2024 10"


def test_kind_terms_are_alternatives_not_requirements() -> None:
    by_kind = {query.kind: query for query in plan_queries(make_claim(), AS_OF, 6)}
    assert by_kind[QueryKind.REFUTATION].any_of == REFUTATION_TERMS
    assert by_kind[QueryKind.PRIMARY_SOURCE].any_of == PRIMARY_SOURCE_TERMS
    assert by_kind[QueryKind.CORRECTION].any_of == CORRECTION_TERMS
    assert web_query(by_kind[QueryKind.REFUTATION]).endswith('(false OR debunked OR "no evidence" OR myth)')
    assert web_query(by_kind[QueryKind.REFUTATION], with_any_of=False) == by_kind[QueryKind.REFUTATION].text


def test_primary_source_names_the_entities_and_the_measured_statistic() -> None:
    claim = make_claim(
        figures=[Figure(measure="measles_case_count", value=Decimal("45"), unit="%", relative=True)]
    )
    primary = next(q for q in plan_queries(claim, AS_OF, 6) if q.kind is QueryKind.PRIMARY_SOURCE)
    assert primary.text.startswith('"World Health Organization" Europe')
    assert primary.text.endswith("measles case count")


@pytest.mark.parametrize("budget", range(7))
def test_budget_drops_the_lowest_priority_kinds_first(budget: int) -> None:
    queries = plan_queries(make_claim(event_date=date(2025, 2, 1)), AS_OF, budget)
    assert kinds(queries) == list(PRIORITY[:budget])


def test_key_terms_are_capped_and_prefer_names_and_numbers() -> None:
    text = (
        "Officials in Springfield reported yesterday that the municipal water treatment plant "
        "exceeded federal lead limits by 300 percent during routine quarterly inspections"
    )
    refutation = next(q for q in plan_queries(make_claim(text), AS_OF, 6) if q.kind is QueryKind.REFUTATION)
    words = refutation.text.split()
    assert len(words) == 8
    assert "springfield" in words and "300" in words


def test_event_date_bounds_the_event_query_and_as_of_caps_it() -> None:
    event = date(2025, 2, 1)
    dated = next(
        q for q in plan_queries(make_claim(event_date=event), AS_OF, 6) if q.kind is QueryKind.EVENT_DATED
    )
    assert (dated.since, dated.until) == (event - DEFAULT_EVENT_WINDOW, event + DEFAULT_EVENT_WINDOW)

    recent = AS_OF.date() - timedelta(days=3)
    capped = next(
        q for q in plan_queries(make_claim(event_date=recent), AS_OF, 6) if q.kind is QueryKind.EVENT_DATED
    )
    assert capped.until == AS_OF.date()
    assert capped.since == recent - DEFAULT_EVENT_WINDOW
    others = [
        q for q in plan_queries(make_claim(event_date=event), AS_OF, 6) if q.kind is not QueryKind.EVENT_DATED
    ]
    assert all(q.since is None and q.until is None for q in others)


def test_current_and_ongoing_claims_are_bounded_by_as_of() -> None:
    current = make_claim(temporal_scope=TemporalScope.CURRENT)
    dated = next(q for q in plan_queries(current, AS_OF, 6) if q.kind is QueryKind.EVENT_DATED)
    assert dated.until == AS_OF.date()
    assert dated.since is not None and dated.since < dated.until

    started = datetime(2026, 10, 1, tzinfo=UTC)
    ongoing = make_claim(temporal_scope=TemporalScope.ONGOING, event_started_at=started)
    dated = next(q for q in plan_queries(ongoing, AS_OF, 6) if q.kind is QueryKind.EVENT_DATED)
    assert (dated.since, dated.until) == (started.date() - DEFAULT_EVENT_WINDOW, AS_OF.date())


def test_an_event_after_as_of_is_searched_up_to_as_of_only() -> None:
    future = make_claim(event_date=AS_OF.date() + timedelta(days=60))
    dated = next(q for q in plan_queries(future, AS_OF, 6) if q.kind is QueryKind.EVENT_DATED)
    assert dated.since == dated.until == AS_OF.date()


def test_a_repeated_query_is_not_spent_twice() -> None:
    # Lower-case content words only: the derived normalized form equals the close wording.
    queries = plan_queries(make_claim("vaccines cause autism"), AS_OF, 6)
    assert kinds(queries) == [k for k in PRIORITY if k is not QueryKind.NORMALIZED]


def test_no_query_searches_x_or_twitter() -> None:
    text = (
        "As @someone posted on x.com and https://twitter.com/someone/status/1, see also t.co/abc: "
        "the bridge in Genoa collapsed in 2018"
    )
    queries = plan_queries(make_claim(text, normalized="site:x.com bridge Genoa collapse"), AS_OF, 6)
    assert queries
    for query in queries:
        rendered = web_query(query).lower()
        assert "x.com" not in rendered and "twitter" not in rendered and "t.co" not in rendered
        assert "site:" not in rendered and "@" not in rendered
    with pytest.raises(ValueError, match="X/Twitter"):
        PlannedQuery(kind=QueryKind.CLOSE_WORDING, text="bridge site:twitter.com")


def test_deterministic_and_validated() -> None:
    claim = make_claim(event_date=date(2025, 2, 1))
    assert plan_queries(claim, AS_OF, 6) == plan_queries(claim, AS_OF, 6)
    with pytest.raises(ValueError, match="timezone"):
        plan_queries(claim, datetime(2026, 1, 1), 6)
    assert plan_queries(claim, AS_OF, 0) == []
    assert plan_queries(make_claim("the of and"), AS_OF, 6) == []


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=300), st.integers(min_value=0, max_value=8))
def test_any_text_plans_within_budget_without_raising(text: str, budget: int) -> None:
    queries = plan_queries(make_claim(text), AS_OF, budget)
    assert len(queries) <= budget
    assert all(query.text.strip() for query in queries)
