"""Research runs: a worker leases one due panel, researches its claim and records the answer exactly once.

The lease (owner and attempt) fences every write: a worker that died or overran its lease cannot write a
second answer. A panel's answer, the claim's recomputed answer, any panel it calls for and the events
announcing them are written in one transaction. Search outages leave the panel pending
(``search_unavailable``) and retry on the outage schedule, then answer unverifiable; a method that raises is
retried after a backoff, then answered unverifiable saying why.
"""

from __future__ import annotations

import logging
import uuid
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.adjudication import panel_fingerprint
from icarus.debates.answers import after_panel
from icarus.debates.errors import PanelNotFound
from icarus.debates.model import Panel, ResearchDelay, Verdict
from icarus.debates.research.base import ClaimToResearch
from icarus.debates.results import panel_event
from icarus.debates.retries import give_up_panel, next_search_retry
from icarus.debates.runtime import Clock, DebatePipeline, ServiceConfig
from icarus.debates.speakers import known_names, speaker_display_name
from icarus.store.debate_tables import DebateClaimRecord, DebatePanelRecord, PanelState
from icarus.store.repository import Store

__all__ = ["record_answer", "research_panel"]

log = logging.getLogger("icarus.debates")

FENCED: Final = "fenced: this panel was answered or taken over by another worker"
ERROR_MAX_CHARS: Final = 2000
PANEL_FAILED: Final = "the method raised an error on every attempt; the worker's log has the error"


def research_panel(
    store: Store,
    clock: Clock,
    pipeline: DebatePipeline,
    config: ServiceConfig,
    panel_id: int,
    owner: str,
) -> tuple[str, list[int]]:
    """Lease a due panel, research it and record the answer exactly once. Says what happened, with the
    panels the answer called for (escalation, the strong-language retry)."""
    owner = f"{owner}:{uuid.uuid4().hex[:16]}"  # one owner per attempt: the fence
    now = clock()
    lease = store.transaction(lambda s: repo.lease_panel(s, panel_id, owner, now, config.panel_lease))
    if lease is None:
        return "not runnable (not due, answered, or held by another worker)", []
    with store.reading() as session:
        panel_rec = repo.panel_record(session, panel_id)
        row = repo.panel_row(panel_rec)
        claim = repo.claim_row(repo.claim_record(session, row.claim_id))
        debate = repo.debate_row(repo.debate_record(session, row.debate_id))
        heard = repo.heard_labels(session, row.debate_id)
    request = ClaimToResearch(
        text=claim.text,
        as_of=now,
        held_at=debate.held_at,
        language=debate.settings.language,
        country=debate.settings.country,
        strong_language=row.strong_language,
        speaker=speaker_display_name(claim.speaker_label, heard, known_names(heard, debate.speakers)),
    )
    run = _Run(store, clock, pipeline, config, lease)
    try:
        panel = pipeline.research(row.research_mode, request, debate.settings)
    except Exception as exc:  # any failure of a method is retried, then answered
        log.exception("research of panel %d (%s) failed", panel_id, row.research_mode.value)
        return run.failed(row, exc)
    panel = panel.model_copy(update={"research_mode": row.research_mode})
    if panel.verdict is Verdict.PENDING:
        return run.delayed(row, panel)
    return run.complete(panel)


def record_answer(
    store: Store,
    clock: Clock,
    pipeline: DebatePipeline,
    config: ServiceConfig,
    lease: repo.Lease,
    panel: Panel,
) -> tuple[str, list[int]]:
    """Record ``panel`` as the answer of the leased panel, unless the lease was lost (``fenced``)."""
    return _Run(store, clock, pipeline, config, lease).complete(panel)


class _Run:
    """One leased attempt at a panel: how it ends (answered, delayed by an outage, or failed)."""

    def __init__(
        self, store: Store, clock: Clock, pipeline: DebatePipeline, config: ServiceConfig, lease: repo.Lease
    ) -> None:
        self.store, self.clock, self.pipeline, self.config, self.lease = store, clock, pipeline, config, lease

    def complete(self, panel: Panel) -> tuple[str, list[int]]:
        now = self.clock()
        follow_ups: list[int] = []

        def work(session: Session) -> bool:
            nonlocal follow_ups
            claim = _locked_claim_of(session, self.lease.panel_id)
            row = repo.held_panel(session, self.lease)
            if row is None:
                return False
            debate = repo.debate_row(repo.debate_record(session, row.debate_id))
            row.state, row.lease_owner, row.lease_until = PanelState.DONE.value, None, None
            row.panel_json, row.verdict = panel.model_dump_json(), panel.verdict.value
            row.fingerprint = panel_fingerprint(panel)
            row.research_delay_reason = None
            row.cost, row.finished_at, row.error = panel.cost, now, None
            session.flush()
            follow_ups = after_panel(
                session,
                claim,
                row,
                debate,
                now,
                self.pipeline,
                strong_language_auto_retry=self.config.strong_language_auto_retry,
            )
            return True

        if not self.store.transaction(work):
            return FENCED, []
        return f"answered {panel.verdict.value}", follow_ups

    def delayed(self, row: repo.PanelRow, panel: Panel) -> tuple[str, list[int]]:
        """Every main search failed: retry on the outage schedule, then answer unverifiable."""
        now = self.clock()
        retry_at = next_search_retry(row.search_failures, now, self.config.search_retry_delays)
        if retry_at is None:
            return self.complete(give_up_panel(panel, row.search_failures))
        delayed = panel.model_copy(update={"research_delay_reason": ResearchDelay.SEARCH_UNAVAILABLE})

        def work(session: Session) -> bool:
            _locked_claim_of(session, self.lease.panel_id)
            held = repo.held_panel(session, self.lease)
            if held is None:
                return False
            held.state, held.lease_owner, held.lease_until = PanelState.PENDING.value, None, None
            held.next_attempt_at, held.search_failures = retry_at, held.search_failures + 1
            held.research_delay_reason = ResearchDelay.SEARCH_UNAVAILABLE.value
            held.panel_json = delayed.model_dump_json()
            held.cost += panel.cost
            session.flush()
            repo.add_event(session, held.debate_id, "panel", panel_event(session, held), now)
            return True

        if not self.store.transaction(work):
            return FENCED, []
        return f"search unavailable; retry at {retry_at.isoformat()}", []

    def failed(self, row: repo.PanelRow, exc: Exception) -> tuple[str, list[int]]:
        """A method raised: retry after a backoff; after the last attempt answer unverifiable, saying why."""
        lease = self.lease
        if lease.attempt - row.search_failures >= self.config.max_attempts:
            # The trace is published with the panel: it says what happened in words; the error itself,
            # which may quote queries, addresses or internals, goes to the log only.
            log.warning(
                "panel %s (%s) failed on its last attempt %s",
                row.id,
                row.research_mode,
                lease.attempt,
                exc_info=exc,
            )
            failed = Panel(
                research_mode=row.research_mode,
                verdict=Verdict.UNVERIFIABLE,
                confidence=0.0,
                explanation=failure_explanation(exc, lease.attempt),
                trace={"failed": PANEL_FAILED, "attempts": lease.attempt, "failure": failure_kind(exc)},
            )
            return self.complete(failed)
        now = self.clock()

        def work(session: Session) -> bool:
            held = repo.held_panel(session, lease)
            if held is None:
                return False
            held.state, held.lease_owner, held.lease_until = PanelState.PENDING.value, None, None
            held.next_attempt_at = now + self.config.error_backoff * lease.attempt
            held.error = f"{type(exc).__name__}: {exc}"[:ERROR_MAX_CHARS]
            return True

        self.store.transaction(work)
        return f"failed ({type(exc).__name__}); retried later", []


def failure_kind(exc: BaseException) -> str:
    """What went wrong, in the words a reader gets (never the error's text, which may quote internals)."""
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError):
        return "could not reach a service it needs"
    return "stopped on an error"


def failure_explanation(exc: BaseException, attempts: int) -> str:
    """A failed panel's explanation: what happened, that nothing is shown, and what would settle it."""
    tries = "its one attempt" if attempts == 1 else f"each of its {attempts} attempts"
    return (
        f"This method {failure_kind(exc)} on {tries}, so it found nothing and nothing of it is shown. "
        "Re-checking the claim with this method once the service is working again would settle it."
    )


def _locked_claim_of(session: Session, panel_id: int) -> DebateClaimRecord:
    """The panel's claim, locked: answers for one claim are written one after another, so the last one
    always sees every other panel finished (PostgreSQL; SQLite writers are serial anyway)."""
    claim_id = session.scalar(select(DebatePanelRecord.claim_id).where(DebatePanelRecord.id == panel_id))
    if claim_id is None:
        raise PanelNotFound(panel_id)
    return session.scalars(
        select(DebateClaimRecord).where(DebateClaimRecord.id == claim_id).with_for_update()
    ).one()
