"""When a debate took place: ``debates.held_at``. Existing debates are dated by their upload time.

Revision ID: 0007_debate_held_at
Revises: 0006_list_columns
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_debate_held_at"
down_revision: str | None = "0006_list_columns"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable: making it NOT NULL on SQLite needs a batch rebuild of ``debates``, which the foreign keys
    # of segments, claims and panels pointing at it would trip. Every new row is written with a value.
    op.add_column("debates", sa.Column("held_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE debates SET held_at = created_at WHERE held_at IS NULL")


def downgrade() -> None:
    op.execute("ALTER TABLE debates DROP COLUMN held_at")
