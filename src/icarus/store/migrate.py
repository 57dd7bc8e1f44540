"""Schema migrations, run in code: ``migrate(url)`` is ``alembic upgrade head`` without an alembic.ini.

The application creates and changes its schema only through these revisions (never ``create_all``), so a
database made on a laptop and one made in production have been through the same steps.

Most opens find the database already at the newest revision. That is read from the revision files' own
``revision = "..."`` lines and the ``alembic_version`` table, without importing Alembic (a tenth of a second
of a short command's start); anything else (a database behind, ahead, branched, or a revision file this
reading does not understand) goes through Alembic as before.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Final

from sqlalchemy import Connection, Engine, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError

from icarus.store.engine import create_store_engine

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = [
    "MIGRATIONS_DIR",
    "alembic_config",
    "current_revision",
    "head_in_files",
    "head_revision",
    "is_at_head",
    "migrate",
    "upgrade",
]

MIGRATIONS_DIR: Final = Path(__file__).resolve().parent / "migrations"

# Any constant will do; it only has to be the same in every process migrating the same database.
_PG_MIGRATION_LOCK: Final = 0x1CA2_5000

# ``revision: str = "0002_service"`` and ``down_revision: str | None = "0001_initial"`` (or ``None``), as
# Alembic's template writes them; a merge revision's tuple does not match, which sends the open to Alembic.
_REVISION_LINE: Final = re.compile(
    r'^(?P<name>revision|down_revision)(?:\s*:[^=\n]*)?\s*=\s*(?:"(?P<value>[^"\n]+)"|None)\s*$', re.MULTILINE
)


def alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


@cache
def head_in_files(versions: Path = MIGRATIONS_DIR / "versions") -> str | None:
    """The one revision in ``versions`` that no other revision file names as its ``down_revision``, read
    as text; None when the files are not a single plain chain this reading understands (Alembic then
    decides). Cached: the files do not change while the process runs."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in sorted(versions.glob("*.py")):
        if path.name == "__init__.py":
            continue
        found = {m["name"]: m["value"] for m in _REVISION_LINE.finditer(path.read_text(encoding="utf-8"))}
        if found.keys() != {"revision", "down_revision"} or found["revision"] is None:
            return None
        revisions.add(found["revision"])
        if found["down_revision"] is not None:
            parents.add(found["down_revision"])
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 and parents <= revisions else None


def is_at_head(engine: Engine) -> bool:
    """True when the database's ``alembic_version`` holds exactly the newest revision file's revision.
    Reads without a write lock; any error reading it (no such table yet, no database) answers False."""
    head = head_in_files()
    if head is None:
        return False
    try:
        with engine.execution_options(sqlite_begin="DEFERRED").connect() as connection:
            stored = {row[0] for row in connection.execute(text("SELECT version_num FROM alembic_version"))}
    except DBAPIError:
        return False
    return stored == {head}


def upgrade(engine: Engine) -> None:
    """Bring the database behind ``engine`` to the newest revision, in one transaction."""
    if is_at_head(engine):
        return
    from alembic import command

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
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()
