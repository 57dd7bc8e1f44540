"""The query planner: which searches to run for one claim, within a query budget.

``plan_queries`` is pure: the same claim, ``as_of`` and budget always give the same list, and it reads no
clock and no network. It searches several ways, because each finds evidence the others miss:

========================  ===========================================================================
kind (priority order)     what it searches for
========================  ===========================================================================
``close_wording``         the claim's own words, stopwords trimmed: copies and the claim's origin
``normalized``            the model-proposed search text, or else a content-word form of the claim
``refutation``            the claim's key terms with "false", "debunked", "no evidence", "myth"
``event_dated``           the key terms, bounded by the event date ± a window (or by ``as_of``)
``primary_source``        named entities and key terms with "official", "statistics", "report", "dataset"
``correction``            the key terms with "correction", "retraction", "retracted", "clarification"
========================  ===========================================================================

With a budget smaller than six, kinds are dropped from the bottom of this table up. A query whose text,
alternatives and date bounds repeat an earlier one is dropped too, so it never spends budget twice.

Query text is provider-neutral: plain words plus double-quoted phrases, nothing else. ``any_of`` lists
alternatives of which a match should contain at least one; each provider renders them in its own syntax
(``web_query`` gives the common ``(a OR b OR "c d")`` form). No query names X or Twitter or uses a
``site:`` operator: X search is never used as corroboration.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from icarus.claims.queries import FORBIDDEN_IN_QUERY, PlannedQuery, QueryKind
from icarus.ledger.claims import Claim, TemporalScope
from icarus.research._text import STOPWORDS, is_content_word, tokens

__all__ = [
    "CORRECTION_TERMS",
    "DEFAULT_CURRENT_WINDOW",
    "DEFAULT_EVENT_WINDOW",
    "PRIMARY_SOURCE_TERMS",
    "PRIORITY",
    "REFUTATION_TERMS",
    "PlannedQuery",
    "QueryKind",
    "plan_queries",
    "web_query",
]


PRIORITY: tuple[QueryKind, ...] = (
    QueryKind.CLOSE_WORDING,
    QueryKind.NORMALIZED,
    QueryKind.REFUTATION,
    QueryKind.EVENT_DATED,
    QueryKind.PRIMARY_SOURCE,
    QueryKind.CORRECTION,
)
"""Kinds from most to least important; a tight budget drops them from the end."""

REFUTATION_TERMS: tuple[str, ...] = ("false", "debunked", "no evidence", "myth")
PRIMARY_SOURCE_TERMS: tuple[str, ...] = ("official", "statistics", "report", "dataset")
CORRECTION_TERMS: tuple[str, ...] = ("correction", "retraction", "retracted", "clarification")

DEFAULT_EVENT_WINDOW = timedelta(days=14)
"""Half-width of the window around a claim's event date: coverage clusters in the days around an event."""

DEFAULT_CURRENT_WINDOW = timedelta(days=30)
"""How far back from ``as_of`` a current or ongoing claim without an event date is searched."""

_CLOSE_WORDING_MAX_TERMS = 32  # search engines cap query length; a claim is rarely longer
_KEY_TERMS_MAX = 8  # enough to pin the topic while leaving room for the kind's own terms


def web_query(query: PlannedQuery, *, with_any_of: bool = True) -> str:
    """The query in the syntax most web engines share: ``words "a phrase" (a OR b OR "c d")``."""
    if not (with_any_of and query.any_of):
        return query.text
    alternatives = " OR ".join(f'"{term}"' if " " in term else term for term in query.any_of)
    return f"{query.text} ({alternatives})"


def plan_queries(
    claim: Claim,
    as_of: datetime,
    max_queries: int,
    *,
    event_window: timedelta = DEFAULT_EVENT_WINDOW,
    current_window: timedelta = DEFAULT_CURRENT_WINDOW,
) -> list[PlannedQuery]:
    """The searches to run for ``claim``, at most ``max_queries`` of them, most important first.

    ``as_of`` must be timezone-aware; no query asks for material dated after it.
    """
    if as_of.tzinfo is None or as_of.utcoffset() is None:
        raise ValueError("as_of must be timezone-aware")
    if max_queries <= 0:
        return []
    as_of_day = as_of.astimezone(UTC).date()
    words = tokens(claim.text)
    key = _key_terms(words, claim)
    key_text = " ".join(key)

    builders = {
        QueryKind.CLOSE_WORDING: lambda: _make(QueryKind.CLOSE_WORDING, _close_wording(words)),
        QueryKind.NORMALIZED: lambda: _make(QueryKind.NORMALIZED, _normalized(claim, words)),
        QueryKind.REFUTATION: lambda: _make(QueryKind.REFUTATION, key_text, any_of=REFUTATION_TERMS),
        QueryKind.EVENT_DATED: lambda: _event_dated(claim, key_text, as_of_day, event_window, current_window),
        QueryKind.PRIMARY_SOURCE: lambda: _make(
            QueryKind.PRIMARY_SOURCE, _primary_text(claim, words, key), any_of=PRIMARY_SOURCE_TERMS
        ),
        QueryKind.CORRECTION: lambda: _make(QueryKind.CORRECTION, key_text, any_of=CORRECTION_TERMS),
    }
    planned: list[PlannedQuery] = []
    seen: set[tuple[str, tuple[str, ...], date | None, date | None]] = set()
    for kind in PRIORITY:
        if len(planned) >= max_queries:
            break
        query = builders[kind]()
        if query is None:
            continue
        signature = (query.text.casefold(), query.any_of, query.since, query.until)
        if signature in seen:
            continue
        seen.add(signature)
        planned.append(query)
    return planned


def _make(
    kind: QueryKind,
    text: str,
    *,
    any_of: tuple[str, ...] = (),
    since: date | None = None,
    until: date | None = None,
) -> PlannedQuery | None:
    text = " ".join(text.split())
    if not text or FORBIDDEN_IN_QUERY.search(text):
        return None
    return PlannedQuery(kind=kind, text=text, any_of=any_of, since=since, until=until)


def _close_wording(words: list[str]) -> str:
    # The claim's own words in order; negations stay because they change what the claim says.
    kept = [word for word in words if word.lower() not in STOPWORDS]
    return " ".join(kept[:_CLOSE_WORDING_MAX_TERMS])


def _content_words(words: list[str]) -> list[str]:
    seen: set[str] = set()
    kept: list[str] = []
    for word in words:
        lowered = word.lower()
        if is_content_word(word) and lowered not in seen:
            seen.add(lowered)
            kept.append(lowered)
    return kept


def _normalized(claim: Claim, words: list[str]) -> str:
    if claim.normalized and claim.normalized.strip():
        proposed = " ".join(tokens(claim.normalized))
        if proposed:
            return proposed
    return " ".join(_content_words(words))


def _key_terms(words: list[str], claim: Claim) -> list[str]:
    """At most eight distinct content words, preferring numbers and capitalised names, in claim order."""
    content = _content_words(words)
    if len(content) <= _KEY_TERMS_MAX:
        return content
    marked = {word.lower() for word in words if word[:1].isupper() or any(ch.isdigit() for ch in word)}
    marked |= {_figure_text(figure.value) for figure in claim.figures}
    # Stable ranking: marked words first, then longer words; ties keep claim order.
    ranked = sorted(range(len(content)), key=lambda i: (content[i] not in marked, -len(content[i]), i))
    chosen = sorted(ranked[:_KEY_TERMS_MAX])
    return [content[i] for i in chosen]


def _figure_text(value: object) -> str:
    return format(value, "f") if not isinstance(value, str) else value


def _entities(words: list[str]) -> list[str]:
    """Runs of capitalised words ("World Health Organization") and acronyms, in order, deduplicated.

    A lone capitalised word that opens the claim is skipped: it is capitalised because it comes first.
    """
    found: list[str] = []
    run: list[str] = []
    start = 0

    def flush() -> None:
        if run and not (start == 0 and len(run) == 1 and not run[0].isupper()):
            phrase = " ".join(run)
            if phrase.lower() not in {item.lower() for item in found}:
                found.append(phrase)

    for index, word in enumerate(words):
        capitalised = word[:1].isupper() and word.lower() not in STOPWORDS
        if capitalised:
            if not run:
                start = index
            run.append(word)
        else:
            flush()
            run = []
    flush()
    return found


def _primary_text(claim: Claim, words: list[str], key: list[str]) -> str:
    entities = _entities(words)
    covered = {part.lower() for entity in entities for part in entity.split()}
    parts = [f'"{entity}"' if " " in entity else entity for entity in entities]
    parts += [term for term in key if term not in covered]
    # What the stated figures measure ("unemployment_rate") names the statistic a primary source publishes.
    for figure in claim.figures:
        measure = " ".join(tokens(figure.measure.replace("_", " ")))
        if measure and measure.lower() not in {part.lower() for part in parts}:
            parts.append(measure)
    return " ".join(parts)


def _event_dated(
    claim: Claim, key_text: str, as_of_day: date, event_window: timedelta, current_window: timedelta
) -> PlannedQuery | None:
    since: date | None
    if claim.event_date is not None:
        since = claim.event_date - event_window
        until = min(claim.event_date + event_window, as_of_day)
    elif claim.temporal_scope is TemporalScope.ONGOING and claim.event_started_at is not None:
        since = claim.event_started_at.astimezone(UTC).date() - event_window
        until = as_of_day
    elif claim.temporal_scope in (TemporalScope.CURRENT, TemporalScope.ONGOING):
        since = as_of_day - current_window
        until = as_of_day
    else:
        # A settled fact with no known date: only the as-of bound applies.
        since = None
        until = as_of_day
    if since is not None and since > until:
        since = until  # an event dated after as_of: search up to as_of only
    return _make(QueryKind.EVENT_DATED, key_text, since=since, until=until)
