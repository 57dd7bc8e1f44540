"""What lists show of a check's latest version, on its ``checks`` row: version, label, band, as-of and a
short headline. Existing checks are filled in from their latest version.

Revision ID: 0006_list_columns
Revises: 0005_models_services
Create Date: 2026-12-02
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from icarus.store.tables import HEADLINE_CHARS, list_headline

revision: str = "0006_list_columns"
down_revision: str | None = "0005_models_services"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ("latest_version", "latest_label", "latest_band", "latest_as_of", "headline")
BACKFILL_BATCH = 500


def upgrade() -> None:
    op.add_column("checks", sa.Column("latest_version", sa.Integer(), nullable=True))
    op.add_column("checks", sa.Column("latest_label", sa.String(32), nullable=True))
    op.add_column("checks", sa.Column("latest_band", sa.String(16), nullable=True))
    op.add_column("checks", sa.Column("latest_as_of", sa.DateTime(timezone=True), nullable=True))
    op.add_column("checks", sa.Column("headline", sa.String(HEADLINE_CHARS), nullable=True))
    _backfill(op.get_bind())


def _backfill(connection: sa.Connection) -> None:
    """Each check's latest version into its new columns, read a batch of versions at a time."""
    latest = sa.text(
        "SELECT v.check_id, v.version, v.label, v.band, v.as_of, v.result_json FROM report_versions v "
        "WHERE v.version = (SELECT max(w.version) FROM report_versions w WHERE w.check_id = v.check_id) "
        "AND v.check_id > :after ORDER BY v.check_id LIMIT :batch"
    )
    fill = sa.text(
        "UPDATE checks SET latest_version = :version, latest_label = :label, latest_band = :band, "
        "latest_as_of = :as_of, headline = :headline WHERE id = :check_id"
    )
    after = ""
    while rows := connection.execute(latest, {"after": after, "batch": BACKFILL_BATCH}).all():
        connection.execute(
            fill,
            [
                {
                    "check_id": check_id,
                    "version": version,
                    "label": label,
                    "band": band,
                    "as_of": as_of,
                    "headline": list_headline(json.loads(result_json)),
                }
                for check_id, version, label, band, as_of, result_json in rows
            ],
        )
        after = rows[-1][0]


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN on both databases (SQLite 3.35+): a batch rebuild of ``checks`` would
    # trip the foreign keys that point at it.
    for column in reversed(COLUMNS):
        op.execute(f"ALTER TABLE checks DROP COLUMN {column}")
