"""Schema migrations, run in code: ``migrate(url)`` is ``alembic upgrade head`` without an alembic.ini.

The application creates and changes its schema only through these revisions (never ``create_all``), so a
database made on a laptop and one made in production have been through the same steps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text
from sqlalchemy.engine import URL

from icarus.store.engine import create_store_engine

__all__ = ["MIGRATIONS_DIR", "alembic_config", "current_revision", "head_revision", "migrate", "upgrade"]

MIGRATIONS_DIR: Final = Path(__file__).resolve().parent / "migrations"

# Any constant will do; it only has to be the same in every process migrating the same database.
_PG_MIGRATION_LOCK: Final = 0x1CA2_5000


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def upgrade(engine: Engine) -> None:
    """Bring the database behind ``engine`` to the newest revision, in one transaction."""
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Two processes starting at once must not both create the tables; SQLite's BEGIN IMMEDIATE
            # already serialises them.
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def migrate(url: str | URL) -> None:
    engine = create_store_engine(url)
    try:
        upgrade(engine)
    finally:
        engine.dispose()


def current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()
