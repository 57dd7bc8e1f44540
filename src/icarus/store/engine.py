"""Engines for the store: one place that knows how SQLite and PostgreSQL differ."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError, OperationalError

__all__ = ["create_store_engine", "database_unavailable", "normalise_url"]

SQLITE_BUSY_TIMEOUT_S = 30.0


def normalise_url(url: str | URL) -> URL:
    """Plain ``postgresql://`` (and ``postgres://``) URLs mean psycopg 3, the driver we ship.

    SQLAlchemy would otherwise pick psycopg2, which is not installed.
    """
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def database_unavailable(exc: BaseException) -> bool:
    """True for errors that mean the database is out of reach (down, restarting, the connection cut), as
    opposed to a bad query: the caller may answer "try again shortly" or wait and retry."""
    return isinstance(exc, DBAPIError) and (exc.connection_invalidated or isinstance(exc, OperationalError))


def create_store_engine(url: str | URL) -> Engine:
    parsed = normalise_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, pool_pre_ping=True)
    database = parsed.database
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})
    _real_sqlite_transactions(engine)
    return engine


def _real_sqlite_transactions(engine: Engine) -> None:
    """Make SQLite transactions real transactions.

    The sqlite3 module delays BEGIN until the first write, so a read-then-insert (allocating the next
    version number) is not atomic and DDL commits silently. We take over BEGIN ourselves and use
    BEGIN IMMEDIATE: writers queue on the database lock (up to the busy timeout) from the start of the
    transaction, instead of failing when a reader tries to become a writer. Read-only sessions ask for a
    plain deferred BEGIN with the execution option ``sqlite_begin="DEFERRED"`` so they never queue.
    """

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the driver stops issuing BEGIN/COMMIT on its own
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")  # readers do not wait for the writer
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "IMMEDIATE")
        connection.exec_driver_sql("BEGIN DEFERRED" if mode == "DEFERRED" else "BEGIN IMMEDIATE")
