"""What a caller may look at: the debates of their organisation (every one for an admin), and the claims and
panels inside them. Anything else answers as missing (404), never as forbidden, so ids do not leak."""

from __future__ import annotations

from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.access import Caller
from icarus.debates.errors import DebateError, DebateNotFound, PanelNotFound
from icarus.store.debate_tables import DebateClaimRecord, DebatePanelRecord, DebateRecord, PanelState

__all__ = ["visible_debate", "visible_panel"]


def visible_debate(
    session: Session,
    caller: Caller,
    debate_id: str,
    *,
    lock: bool = False,
    missing: DebateError | None = None,
) -> DebateRecord:
    """The debate, when the caller may see it; else ``missing`` (default ``DebateNotFound``) is raised."""
    try:
        row = repo.debate_record(session, debate_id, lock=lock)
    except DebateNotFound:
        if missing is not None:
            raise missing from None
        raise
    if not caller.may_see(row.organisation_id):
        raise missing or DebateNotFound(debate_id)
    return row


def visible_panel(
    session: Session,
    caller: Caller,
    panel_id: int,
    claim_id: int | None = None,
    *,
    finished: bool = False,
) -> tuple[DebatePanelRecord, DebateClaimRecord, repo.DebateRow]:
    """A research panel the caller may act on (its claim's when ``claim_id`` is given, answered when
    ``finished``); else ``PanelNotFound``."""
    panel = repo.panel_record(session, panel_id)
    if claim_id is not None and panel.claim_id != claim_id:
        raise PanelNotFound(panel_id)
    if finished and panel.state != PanelState.DONE.value:
        raise PanelNotFound(panel_id)
    claim = repo.claim_record(session, panel.claim_id)
    row = visible_debate(session, caller, claim.debate_id, missing=PanelNotFound(panel_id))
    return panel, claim, repo.debate_row(row)
