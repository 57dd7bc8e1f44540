"""Alembic environment: runs revisions on the connection ``icarus.store.migrate`` hands over."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

import icarus.store.debate_tables
import icarus.store.model_tables  # noqa: F401  (with the line above: every table on Base.metadata)
from icarus.store.engine import create_store_engine
from icarus.store.tables import Base


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite cannot ALTER most things; batch mode rebuilds the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _online() -> None:
    shared = context.config.attributes.get("connection")
    if shared is not None:
        _run(shared)
        return
    # Run by hand: `alembic -x url=... upgrade head` with script_location pointing here.
    url = context.get_x_argument(as_dictionary=True).get("url") or context.config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise RuntimeError("no database URL: pass -x url=... or use icarus.store.migrate(url)")
    engine = create_store_engine(url)
    try:
        with engine.begin() as connection:
            _run(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported; run them against a database")
_online()
