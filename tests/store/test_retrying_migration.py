"""Revision 0008 lets a check say ``retrying``; going back turns a retrying check into a queued one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from icarus.store import Store
from icarus.store.migrate import alembic_config

NOW = datetime(2026, 12, 1, tzinfo=UTC)
INSERT = text(
    "INSERT INTO check_requests (id, input_kind, input_json, state, submitted_at, updated_at) "
    "VALUES (:id, 'text', '{}', :state, :now, :now)"
)


def _migrate(store: Store, action: str, revision: str) -> None:
    config = alembic_config()
    with store.engine.begin() as connection:
        config.attributes["connection"] = connection
        getattr(command, action)(config, revision)


def test_retrying_is_a_state_after_0008_and_none_before(store: Store) -> None:
    with store.engine.begin() as connection:
        connection.execute(INSERT, {"id": "a", "state": "retrying", "now": NOW})
        connection.execute(INSERT, {"id": "b", "state": "recorded", "now": NOW})
    _migrate(store, "downgrade", "0007_debate_held_at")
    with store.engine.connect() as connection:
        states = dict(connection.execute(text("SELECT id, state FROM check_requests")).all())
    assert states == {"a": "queued", "b": "recorded"}  # the retry is still due: its job runs it again
    with pytest.raises(IntegrityError), store.engine.begin() as connection:
        connection.execute(INSERT, {"id": "c", "state": "retrying", "now": NOW})
    _migrate(store, "upgrade", "head")
    with store.engine.begin() as connection:
        connection.execute(INSERT, {"id": "c", "state": "retrying", "now": NOW})
    with pytest.raises(IntegrityError), store.engine.begin() as connection:
        connection.execute(INSERT, {"id": "d", "state": "waiting", "now": NOW})
