"""Workers and their heartbeats, so diagnostics can show which worker last said it was alive, and when.

Revision ID: 0004_workers
Revises: 0003_debates
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_workers"
down_revision: str | None = "0003_debates"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "workers",
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", _utc(), nullable=False),
        sa.Column("heartbeat_at", _utc(), nullable=False),
        sa.Column("jobs_held", sa.Integer(), nullable=False),
        sa.Column("stopped_at", _utc(), nullable=True),
        sa.PrimaryKeyConstraint("name", name="pk_workers"),
    )
    op.create_index("ix_workers_heartbeat_at", "workers", ["heartbeat_at"])


def downgrade() -> None:
    op.drop_index("ix_workers_heartbeat_at", table_name="workers")
    op.drop_table("workers")
