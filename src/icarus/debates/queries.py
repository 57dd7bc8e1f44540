"""What callers read about a debate's claims: the list, one claim's answer and panels, the export, the
alert digest, and the live feed of events. Nothing here writes."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from icarus.debates import repository as repo
from icarus.debates.access import Caller
from icarus.debates.errors import ClaimNotFound
from icarus.debates.exports import ExportRow, export_row, is_alert
from icarus.debates.model import ClaimVerdict
from icarus.debates.results import ClaimResults, ClaimSummary, claim_summary, panel_view
from icarus.debates.speakers import known_names, speaker_display_name
from icarus.debates.visibility import visible_debate
from icarus.store.debate_tables import ClaimVerdictRecord, DebateClaimRecord, DebatePanelRecord
from icarus.store.repository import Store

__all__ = ["alert_digest", "claim_results", "events_after", "export_claims", "last_event_id", "list_claims"]

MAX_EVENTS_PER_READ = 1000


def list_claims(store: Store, caller: Caller, debate_id: str) -> list[ClaimSummary]:
    with store.reading() as session:
        row = visible_debate(session, caller, debate_id)
        debate = repo.debate_row(row)
        heard = repo.heard_labels(session, debate_id)
        claims = repo.claim_rows(session, debate_id)
        verdicts = repo.claim_verdicts(session, [c.id for c in claims])
        panels: dict[int, list[DebatePanelRecord]] = {}
        for panel in session.scalars(
            select(DebatePanelRecord)
            .where(DebatePanelRecord.debate_id == debate_id)
            .order_by(DebatePanelRecord.id)
        ):
            panels.setdefault(panel.claim_id, []).append(panel)
        return [claim_summary(c, debate, heard, verdicts.get(c.id), panels.get(c.id, [])) for c in claims]


def export_claims(store: Store, caller: Caller, debate_id: str) -> list[ExportRow]:
    """Every claim shown, in order, with its speaker and persisted final answer (``pending`` while
    there is none: a provisional answer is not exported)."""
    with store.reading() as session:
        row = visible_debate(session, caller, debate_id)
        heard = repo.heard_labels(session, debate_id)
        names = known_names(heard, repo.debate_row(row).speakers)
        claims = repo.claim_rows(session, debate_id)
        records = {
            r.claim_id: r
            for r in session.scalars(
                select(ClaimVerdictRecord)
                .join(DebateClaimRecord, DebateClaimRecord.id == ClaimVerdictRecord.claim_id)
                .where(DebateClaimRecord.debate_id == debate_id)
            )
        }
        rows = []
        for claim in claims:
            record = records.get(claim.id)
            verdict = (
                ClaimVerdict.model_validate_json(record.verdict_json)
                if record is not None and record.verdict_json
                else None
            )
            rows.append(
                export_row(
                    claim_id=claim.id,
                    debate_id=debate_id,
                    text=claim.text,
                    speaker_label=claim.speaker_label,
                    speaker_name=speaker_display_name(claim.speaker_label, heard, names),
                    manually_added=claim.manually_added,
                    created_at=claim.created_at,
                    verdict=verdict,
                    decided_at=record.updated_at if record is not None else None,
                )
            )
        return rows


def alert_digest(
    store: Store, caller: Caller, debate_id: str, since: datetime | None = None
) -> list[ExportRow]:
    """The claims whose final answer is false, misleading or partially true, decided at or after
    ``since`` (all when None), in order. Provisional answers never alert."""
    return [row for row in export_claims(store, caller, debate_id) if is_alert(row, since)]


def claim_results(store: Store, caller: Caller, claim_id: int, debate_id: str | None = None) -> ClaimResults:
    """The claim's one answer (None while research is pending) and every research panel."""
    with store.reading() as session:
        claim = repo.claim_record(session, claim_id, debate_id)
        if claim.withheld is not None:
            raise ClaimNotFound(claim_id, debate_id)
        row = visible_debate(session, caller, claim.debate_id, missing=ClaimNotFound(claim_id, debate_id))
        heard = repo.heard_labels(session, claim.debate_id)
        speakers = known_names(heard, repo.debate_row(row).speakers)
        panels = [panel_view(repo.panel_row(p)) for p in repo.panel_rows(session, claim_id)]
        return ClaimResults(
            claim_id=claim.id,
            debate_id=claim.debate_id,
            text=claim.text,
            claim_verdict=repo.claim_verdict(session, claim_id),
            panels=panels,
            operator_winner_panel_id=repo.current_winner(session, claim_id),
            speaker_label=claim.speaker_label,
            speaker_name=speaker_display_name(claim.speaker_label, heard, speakers),
            manually_added=claim.manually_added,
        )


def events_after(
    store: Store, caller: Caller, debate_id: str, last_id: int = 0, limit: int = 100
) -> list[repo.DebateEvent]:
    """The live feed: events of this debate numbered above ``last_id``, oldest first."""
    with store.reading() as session:
        visible_debate(session, caller, debate_id)
        return repo.events_after(session, debate_id, max(0, last_id), max(1, min(limit, MAX_EVENTS_PER_READ)))


def last_event_id(store: Store, caller: Caller, debate_id: str) -> int:
    """The newest event id of the debate's feed (0 when none): a page subscribes after it."""
    with store.reading() as session:
        visible_debate(session, caller, debate_id)
        return repo.last_event_id(session, debate_id)
