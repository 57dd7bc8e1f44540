"""Engines for the store: one place that knows how SQLite and PostgreSQL differ.

Every engine the store opens cleans the text it sends: a NUL character in any bound string becomes U+FFFD
(see ``storable``), on SQLite as on PostgreSQL, so no text (a submitted claim, an X payload, a fetched
page, a title, a debate segment, an error) can make a write fail, and both databases hold the same text.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError, OperationalError

__all__ = [
    "LOST_CHARACTER",
    "create_store_engine",
    "database_unavailable",
    "normalise_url",
    "postgres_connect_args",
    "storable",
]

LOST_CHARACTER: Final = "\ufffd"
"""What a NUL character is stored as: Unicode's mark for a character that could not be kept."""

SQLITE_BUSY_TIMEOUT_S = 30.0
PG_CONNECT_TIMEOUT_S = 5  # a database host that does not answer is "unavailable" (503), not a hung request
# TCP keepalives on both ends, in seconds (idle, interval) and probes. A worker host that vanishes (a cut
# link, a dead machine) is noticed by the server within idle + interval x count ≈ 25 s, which ends its
# transaction and frees the job rows it locked, so the job can be handed out again; without them the server
# waits for the operating system's default (about two hours).
PG_KEEPALIVE_IDLE_S = 10
PG_KEEPALIVE_INTERVAL_S = 5
PG_KEEPALIVE_COUNT = 3


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
        engine = create_engine(parsed, pool_pre_ping=True, connect_args=postgres_connect_args(parsed))
    else:
        database = parsed.database
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})
        _real_sqlite_transactions(engine)
    _text_without_nul(engine)
    return engine


def storable(value: Any) -> Any:
    """``value`` as a text column can hold it: NUL becomes ``LOST_CHARACTER`` in every string, also inside
    the dicts, lists and tuples a statement's parameters come in. PostgreSQL refuses NUL in text (the
    write fails); SQLite would keep it, and the two databases would then hold different text."""
    if isinstance(value, str):
        return value.replace("\x00", LOST_CHARACTER) if "\x00" in value else value
    if isinstance(value, Mapping):
        return {key: storable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [storable(item) for item in value]
    if isinstance(value, tuple):
        return tuple(storable(item) for item in value)
    return value


def _text_without_nul(engine: Engine) -> None:
    """Clean every statement's parameters on their way to the driver: the one boundary all the store's
    writes (and the lookups that must match them) pass, whichever table or code path they come from."""

    @event.listens_for(engine, "before_cursor_execute", retval=True)
    def _clean(
        _connection: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool
    ) -> tuple[str, Any]:
        return statement, storable(parameters)


def postgres_connect_args(url: URL) -> dict[str, Any]:
    """libpq connection settings for the store; any the database URL names itself are left to it."""
    server_keepalives = (
        f"-c tcp_keepalives_idle={PG_KEEPALIVE_IDLE_S} -c tcp_keepalives_interval={PG_KEEPALIVE_INTERVAL_S}"
        f" -c tcp_keepalives_count={PG_KEEPALIVE_COUNT}"
    )
    wanted: dict[str, Any] = {
        "connect_timeout": PG_CONNECT_TIMEOUT_S,
        "keepalives": 1,
        "keepalives_idle": PG_KEEPALIVE_IDLE_S,
        "keepalives_interval": PG_KEEPALIVE_INTERVAL_S,
        "keepalives_count": PG_KEEPALIVE_COUNT,
    }
    chosen = {name: value for name, value in wanted.items() if name not in url.query}
    # Server options from the URL (a search_path, say) are kept: connect_args would replace them whole.
    given = url.query.get("options", "")
    given = " ".join(given) if isinstance(given, tuple) else given
    if "tcp_keepalives" not in given:
        chosen["options"] = f"{given} {server_keepalives}".strip()
    return chosen


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
