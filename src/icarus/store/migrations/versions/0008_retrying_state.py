"""A check whose run failed and waits for its next attempt says so: ``check_requests.state`` may be
``retrying``.

Revision ID: 0008_retrying_state
Revises: 0007_debate_held_at
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008_retrying_state"
down_revision: str | None = "0007_debate_held_at"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CONSTRAINT = "ck_check_requests_state"
BEFORE = ("queued", "running", "recorded", "pending", "failed")
AFTER = ("queued", "running", "retrying", "recorded", "pending", "failed")


def _allowed(states: tuple[str, ...]) -> str:
    return "state IN (" + ", ".join(f"'{state}'" for state in states) + ")"


def _replace(states: tuple[str, ...]) -> None:
    # SQLite cannot alter a constraint: batch mode copies the table (nothing references check_requests, so
    # the copy trips no foreign key); PostgreSQL alters it in place.
    with op.batch_alter_table("check_requests") as batch:
        batch.drop_constraint(CONSTRAINT, type_="check")
        batch.create_check_constraint(CONSTRAINT, _allowed(states))


def upgrade() -> None:
    _replace(AFTER)


def downgrade() -> None:
    op.execute("UPDATE check_requests SET state = 'queued' WHERE state = 'retrying'")
    _replace(BEFORE)
