"""Test-only access behind the repository's back: what an attacker or a buggy script could do."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, select, text, update

from icarus.scoring.canonical import canonical_json
from icarus.store import Store
from icarus.store.tables import ReportVersion


def rewrite(store: Store, check_id: str, version: int, **values: Any) -> None:
    """Overwrite columns of a stored version, switching the append-only trigger off just for that."""
    with store.engine.begin() as connection:
        restore = _disable_update_guard(connection)
        connection.execute(
            update(ReportVersion)
            .where(ReportVersion.check_id == check_id, ReportVersion.version == version)
            .values(values)
        )
        restore()


def tamper(store: Store, check_id: str, version: int, column: str, edit: Callable[[Any], Any]) -> None:
    """Edit one stored JSON column (``result_json`` or ``ledger_json``) of a version."""
    with store.engine.connect() as connection:
        stored = connection.execute(
            select(getattr(ReportVersion, column)).where(
                ReportVersion.check_id == check_id, ReportVersion.version == version
            )
        ).scalar_one()
    rewrite(store, check_id, version, **{column: canonical_json(edit(json.loads(stored)))})


def _disable_update_guard(connection: Connection) -> Callable[[], None]:
    """Switch off the trigger that refuses UPDATE; the returned function switches it back on."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("ALTER TABLE report_versions DISABLE TRIGGER report_versions_append_only"))
        enable = "ALTER TABLE report_versions ENABLE TRIGGER report_versions_append_only"
    else:
        enable = connection.execute(
            text(
                "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'report_versions_no_update'"
            )
        ).scalar_one()
        connection.execute(text("DROP TRIGGER report_versions_no_update"))

    def restore() -> None:
        connection.execute(text(enable))

    return restore
