"""The schema comes from Alembic revisions only, and matches the ORM tables exactly."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from icarus.store import Store, migrate
from icarus.store.migrate import alembic_config, current_revision, head_revision
from icarus.store.tables import Base

TABLES = {
    "subjects",
    "checks",
    "report_versions",
    "snapshots",
    "check_requests",
    "jobs",
    "check_runs",
    "check_events",
    "api_tokens",
    "removals",
    "workers",
    "check_models",
    "model_results",
    "evidence_stores",
    "evidence_verifications",
}


def test_open_migrates_to_head(store: Store) -> None:
    assert set(inspect(store.engine).get_table_names()) >= TABLES
    with store.engine.connect() as connection:
        assert current_revision(connection) == head_revision() == "0008_retrying_state"


def test_migrated_schema_matches_the_orm_tables(store: Store) -> None:
    # A column or constraint added to tables.py without a revision shows up here, not in production.
    with store.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


def test_migrating_again_is_a_no_op(store: Store, db_url: str) -> None:
    migrate(db_url)
    store.open()
    with store.engine.connect() as connection:
        assert current_revision(connection) == head_revision()


def test_downgrade_to_base_and_back(store: Store) -> None:
    config = alembic_config()
    with store.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "base")
    assert not TABLES & set(inspect(store.engine).get_table_names())
    store.open()
    assert set(inspect(store.engine).get_table_names()) >= TABLES
