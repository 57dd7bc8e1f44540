"""Initial schema: subjects, checks, append-only report versions and snapshot metadata.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-20
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_APPEND_ONLY = ("report_versions", "snapshots")
_REFUSAL = "is append-only: add a new version instead of changing or deleting one"


def upgrade() -> None:
    op.create_table(
        "subjects",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("subject_id", sa.String(2048), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("first_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_subjects"),
        sa.UniqueConstraint("kind", "subject_id", name="uq_subjects_kind_subject_id"),
    )
    op.create_table(
        "checks",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("subject_pk", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("status IN ('pending', 'recorded')", name="ck_checks_status"),
        sa.ForeignKeyConstraint(["subject_pk"], ["subjects.id"], name="fk_checks_subject_pk_subjects"),
        sa.PrimaryKeyConstraint("id", name="pk_checks"),
    )
    op.create_index("ix_checks_subject_pk", "checks", ["subject_pk"])
    op.create_table(
        "report_versions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("check_id", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("as_of", sa.DateTime(timezone=True), nullable=False),
        sa.Column("policy", sa.String(64), nullable=False),
        sa.Column("config_hash", sa.String(80), nullable=False),
        sa.Column("code_hash", sa.String(80), nullable=False),
        sa.Column("ledger_hash", sa.String(80), nullable=False),
        sa.Column("trace_hash", sa.String(80), nullable=False),
        sa.Column("label", sa.String(32), nullable=False),
        sa.Column("band", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("what_changed", sa.Text(), nullable=False),
        sa.Column("ledger_json", sa.Text(), nullable=False),
        sa.Column("result_json", sa.Text(), nullable=False),
        sa.CheckConstraint("version >= 1", name="ck_report_versions_version_positive"),
        sa.CheckConstraint("reason IN ('first', 'recheck', 'correction')", name="ck_report_versions_reason"),
        sa.ForeignKeyConstraint(["check_id"], ["checks.id"], name="fk_report_versions_check_id_checks"),
        sa.PrimaryKeyConstraint("id", name="pk_report_versions"),
        sa.UniqueConstraint("check_id", "version", name="uq_report_versions_check_id_version"),
        sa.UniqueConstraint(
            "check_id", "ledger_hash", "trace_hash", name="uq_report_versions_check_id_ledger_hash_trace_hash"
        ),
    )
    op.create_table(
        "snapshots",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("ref", sa.String(80), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("content_type", sa.String(255), nullable=True),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("archived", sa.Boolean(), nullable=False),
        sa.Column("archive_url", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_snapshots"),
        sa.UniqueConstraint("ref", "url", name="uq_snapshots_ref_url"),
    )
    for table in _APPEND_ONLY:
        _refuse_changes(table)


def downgrade() -> None:
    for table in _APPEND_ONLY:
        _allow_changes(table)
    op.drop_table("snapshots")
    op.drop_table("report_versions")
    op.drop_index("ix_checks_subject_pk", table_name="checks")
    op.drop_table("checks")
    op.drop_table("subjects")


# The repository has no update or delete path; these triggers make the database refuse one too, so an
# ad-hoc script cannot silently rewrite a published report.


def _refuse_changes(table: str) -> None:
    message = f"{table} {_REFUSAL}"
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"CREATE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
            f"BEGIN RAISE EXCEPTION '{message}'; END $$"
        )
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only()"
        )
        op.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {table}_append_only()"
        )
        return
    for action in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{message}'); END"
        )


def _allow_changes(table: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP TRIGGER {table}_no_truncate ON {table}")
        op.execute(f"DROP TRIGGER {table}_append_only ON {table}")
        op.execute(f"DROP FUNCTION {table}_append_only()")
        return
    for action in ("update", "delete"):
        op.execute(f"DROP TRIGGER {table}_no_{action}")
