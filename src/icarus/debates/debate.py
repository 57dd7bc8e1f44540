"""A debate itself: creating one, reading and listing what a caller may see, and changing its settings."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.access import Caller, check_methods
from icarus.debates.dating import HELD_AT_FIELD, accepted_held_at
from icarus.debates.errors import InvalidChange
from icarus.debates.model import DebateSettings
from icarus.debates.results import DebateView, debate_view
from icarus.debates.runtime import Clock
from icarus.debates.visibility import visible_debate
from icarus.store.debate_tables import DebateMode, DebateRecord, DetectionState
from icarus.store.repository import Store
from icarus.store.tokens import Role

__all__ = [
    "SETTINGS_FIELDS",
    "WEIGHT_FIELDS",
    "create_debate",
    "get_debate",
    "list_debates",
    "stored_json",
    "update_debate",
    "weight_changes",
]

SETTINGS_FIELDS: Final = frozenset(DebateSettings.model_fields)
WEIGHT_FIELDS: Final = ("cost_weight", "latency_weight", "quality_weight")
TITLE_MAX_CHARS: Final = 512


def create_debate(
    store: Store,
    clock: Clock,
    caller: Caller,
    settings: DebateSettings,
    title: str = "",
    held_at: datetime | None = None,
) -> DebateView:
    """A new debate; ``held_at`` (when it took place) defaults to now, the upload time."""
    caller.require(Role.API, "creating a debate")
    check_methods(caller, settings.research_modes)
    now = clock()
    held = accepted_held_at(held_at, now)
    debate_id = repo.new_debate_id()

    def work(session: Session) -> DebateView:
        session.add(
            DebateRecord(
                id=debate_id,
                organisation_id=caller.organisation_id,
                created_by=caller.token_id,
                title=title[:TITLE_MAX_CHARS],
                settings_json=settings.model_dump_json(),
                speakers_json="{}",
                mode=DebateMode.LIVE.value,
                detection_state=DetectionState.IDLE.value,
                skip_speakers=False,
                held_at=held,
                created_at=now,
                updated_at=now,
            )
        )
        session.flush()
        return debate_view(session, repo.debate_record(session, debate_id))

    return store.transaction(work)


def get_debate(store: Store, caller: Caller, debate_id: str) -> DebateView:
    with store.reading() as session:
        return debate_view(session, visible_debate(session, caller, debate_id))


def list_debates(store: Store, caller: Caller, limit: int = 100) -> list[DebateView]:
    with store.reading() as session:
        query = select(DebateRecord).order_by(DebateRecord.created_at.desc(), DebateRecord.id).limit(limit)
        if not caller.is_admin:
            org = caller.organisation_id
            query = query.where(
                DebateRecord.organisation_id == org
                if org is not None
                else DebateRecord.organisation_id.is_(None)
            )
        return [debate_view(session, row) for row in session.scalars(query).all()]


def update_debate(
    store: Store, clock: Clock, caller: Caller, debate_id: str, changes: Mapping[str, Any]
) -> DebateView:
    """Replace the named settings (and ``title``, ``held_at``). Claims already detected keep their
    panels; research and detection that run later read a new ``held_at``."""
    caller.require(Role.API, "changing a debate")
    unknown = sorted(set(changes) - SETTINGS_FIELDS - {"title", HELD_AT_FIELD})
    if unknown:
        raise InvalidChange("unknown debate setting(s): " + ", ".join(unknown))
    now = clock()
    held = accepted_held_at(changes[HELD_AT_FIELD], now) if HELD_AT_FIELD in changes else None
    named = {k: v for k, v in changes.items() if k not in ("title", HELD_AT_FIELD)}

    def work(session: Session) -> DebateView:
        row = visible_debate(session, caller, debate_id, lock=True)
        current = repo.debate_row(row).settings
        settings = _settings_with(current, named)
        if settings.research_modes != current.research_modes:
            check_methods(caller, settings.research_modes)
        row.settings_json = settings.model_dump_json()
        if "title" in changes:
            row.title = str(changes["title"])[:TITLE_MAX_CHARS]
        if held is not None:
            row.held_at = held
        row.updated_at = now
        return debate_view(session, row)

    return store.transaction(work)


def weight_changes(cost: float | None, latency: float | None, quality: float | None) -> dict[str, float]:
    """The model-selection weights given, as settings changes; a weight not given is left out."""
    given = dict(zip(WEIGHT_FIELDS, (cost, latency, quality), strict=True))
    return {k: v for k, v in given.items() if v is not None}


def _settings_with(current: DebateSettings, changes: Mapping[str, Any]) -> DebateSettings:
    try:
        return DebateSettings.model_validate({**current.model_dump(), **changes})
    except ValidationError as exc:
        errors = [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
        raise InvalidChange("invalid debate settings", errors) from exc


def stored_json(value: Any) -> str:
    """How the service writes a JSON column (a speaker map, a feedback body): sorted keys, dates as text."""
    return json.dumps(value, sort_keys=True, default=str)
