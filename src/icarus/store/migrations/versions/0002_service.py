"""The service's tables: check requests, jobs, runs, events, API tokens and removals.

Revision ID: 0002_service
Revises: 0001_initial
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_service"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_REFUSAL = "check_runs is append-only: a run records its version once"


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "check_requests",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("input_kind", sa.String(16), nullable=False),
        sa.Column("input_json", sa.Text(), nullable=False),
        sa.Column("policy", sa.String(64), nullable=True),
        sa.Column("post_id", sa.String(32), nullable=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("state_reason", sa.String(64), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("submitted_at", _utc(), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.CheckConstraint(
            "state IN ('queued', 'running', 'recorded', 'pending', 'failed')", name="ck_check_requests_state"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_check_requests"),
    )
    op.create_index("ix_check_requests_post_id", "check_requests", ["post_id"])
    op.create_index("ix_check_requests_submitted_at", "check_requests", ["submitted_at"])
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("check_id", sa.String(64), nullable=False),
        sa.Column("run_key", sa.String(64), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("due_at", _utc(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("lease_until", _utc(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("outcome", sa.Text(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("finished_at", _utc(), nullable=True),
        sa.CheckConstraint("state IN ('scheduled', 'running', 'done', 'cancelled')", name="ck_jobs_state"),
        sa.PrimaryKeyConstraint("id", name="pk_jobs"),
        sa.UniqueConstraint("check_id", "run_key", name="uq_jobs_check_id_run_key"),
    )
    op.create_index("ix_jobs_check_id", "jobs", ["check_id"])
    op.create_index("ix_jobs_state_due_at", "jobs", ["state", "due_at"])
    op.create_table(
        "check_runs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("check_id", sa.String(64), nullable=False),
        sa.Column("run_key", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(["check_id"], ["checks.id"], name="fk_check_runs_check_id_checks"),
        sa.PrimaryKeyConstraint("id", name="pk_check_runs"),
        sa.UniqueConstraint("check_id", "run_key", name="uq_check_runs_check_id_run_key"),
    )
    op.create_table(
        "check_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("check_id", sa.String(64), nullable=False),
        sa.Column("at", _utc(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("data_json", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_check_events"),
    )
    op.create_index("ix_check_events_check_id", "check_events", ["check_id"])
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("token_hash", sa.String(80), nullable=False),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("rate_per_minute", sa.Integer(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("revoked_at", _utc(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_api_tokens"),
        sa.UniqueConstraint("token_hash", name="uq_api_tokens_token_hash"),
    )
    op.create_table(
        "removals",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("subject_kind", sa.String(32), nullable=False),
        sa.Column("subject_id", sa.String(2048), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("hidden_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_removals"),
        sa.UniqueConstraint("subject_kind", "subject_id", name="uq_removals_subject_kind_subject_id"),
    )
    _refuse_changes("check_runs")


def downgrade() -> None:
    _allow_changes("check_runs")
    op.drop_table("removals")
    op.drop_table("api_tokens")
    op.drop_index("ix_check_events_check_id", table_name="check_events")
    op.drop_table("check_events")
    op.drop_table("check_runs")
    op.drop_index("ix_jobs_state_due_at", table_name="jobs")
    op.drop_index("ix_jobs_check_id", table_name="jobs")
    op.drop_table("jobs")
    op.drop_index("ix_check_requests_submitted_at", table_name="check_requests")
    op.drop_index("ix_check_requests_post_id", table_name="check_requests")
    op.drop_table("check_requests")


def _refuse_changes(table: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"CREATE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
            f"BEGIN RAISE EXCEPTION '{_REFUSAL}'; END $$"
        )
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only()"
        )
        return
    for action in ("UPDATE", "DELETE"):
        op.execute(
            f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{_REFUSAL}'); END"
        )


def _allow_changes(table: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP TRIGGER {table}_append_only ON {table}")
        op.execute(f"DROP FUNCTION {table}_append_only()")
        return
    for action in ("update", "delete"):
        op.execute(f"DROP TRIGGER {table}_no_{action}")
