"""Scoring a check under several models, and EvidenceVerify stores and results.

Revision ID: 0005_models_services
Revises: 0004_workers
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_models_services"
down_revision: str | None = "0004_workers"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "check_models",
        sa.Column("check_id", sa.String(64), nullable=False),
        sa.Column("model", sa.String(64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("requested_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("check_id", "model", name="pk_check_models"),
    )
    op.create_table(
        "model_results",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("check_id", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(64), nullable=False),
        sa.Column("family", sa.String(32), nullable=False),
        sa.Column("config_hash", sa.String(80), nullable=False),
        sa.Column("trace_hash", sa.String(80), nullable=False),
        sa.Column("result_json", sa.Text(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_model_results"),
        sa.UniqueConstraint("check_id", "version", "model", name="uq_model_results_check_id_version_model"),
    )
    op.create_index("ix_model_results_check_id", "model_results", ["check_id"])
    op.create_table(
        "evidence_stores",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("store_id", sa.String(40), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("store_json", sa.Text(), nullable=False),
        sa.Column("written_by", sa.String(40), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_evidence_stores"),
        sa.UniqueConstraint("store_id", "revision", name="uq_evidence_stores_store_id_revision"),
    )
    op.create_index("ix_evidence_stores_store_id", "evidence_stores", ["store_id"])
    op.create_table(
        "evidence_verifications",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("store_id", sa.String(40), nullable=False),
        sa.Column("store_revision", sa.Integer(), nullable=False),
        sa.Column("claim_id", sa.String(256), nullable=False),
        sa.Column("claim_json", sa.Text(), nullable=False),
        sa.Column("search_json", sa.Text(), nullable=True),
        sa.Column("judge", sa.String(64), nullable=False),
        sa.Column("independent_search", sa.Boolean(), nullable=False),
        sa.Column("as_of", _utc(), nullable=False),
        sa.Column("model", sa.String(64), nullable=False),
        sa.Column("config_hash", sa.String(80), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result_json", sa.Text(), nullable=False),
        sa.Column("created_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_evidence_verifications"),
    )
    op.create_index("ix_evidence_verifications_store_id", "evidence_verifications", ["store_id"])


def downgrade() -> None:
    op.drop_index("ix_evidence_verifications_store_id", table_name="evidence_verifications")
    op.drop_table("evidence_verifications")
    op.drop_index("ix_evidence_stores_store_id", table_name="evidence_stores")
    op.drop_table("evidence_stores")
    op.drop_index("ix_model_results_check_id", table_name="model_results")
    op.drop_table("model_results")
    op.drop_table("check_models")
