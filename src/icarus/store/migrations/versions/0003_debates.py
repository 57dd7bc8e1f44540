"""Live debates: organisations and plans, debates, segments, claims, panels, claim verdicts, feedback, events.

Revision ID: 0003_debates
Revises: 0002_service
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_debates"
down_revision: str | None = "0002_service"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "plans",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("methods_json", sa.Text(), nullable=False),
        sa.Column("claim_quota", sa.Integer(), nullable=True),
        sa.Column("spend_limit", sa.Float(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_plans"),
        sa.UniqueConstraint("name", name="uq_plans_name"),
    )
    op.create_table(
        "organisations",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("plan_id", sa.Integer(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(["plan_id"], ["plans.id"], name="fk_organisations_plan_id_plans"),
        sa.PrimaryKeyConstraint("id", name="pk_organisations"),
        sa.UniqueConstraint("name", name="uq_organisations_name"),
    )
    op.create_table(
        "token_organisations",
        sa.Column("token_id", sa.Integer(), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisations.id"],
            name="fk_token_organisations_organisation_id_organisations",
        ),
        sa.ForeignKeyConstraint(
            ["token_id"], ["api_tokens.id"], name="fk_token_organisations_token_id_api_tokens"
        ),
        sa.PrimaryKeyConstraint("token_id", name="pk_token_organisations"),
    )
    op.create_index("ix_token_organisations_organisation_id", "token_organisations", ["organisation_id"])
    op.create_table(
        "debates",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("title", sa.String(512), nullable=False),
        sa.Column("settings_json", sa.Text(), nullable=False),
        sa.Column("speakers_json", sa.Text(), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("detection_state", sa.String(16), nullable=False),
        sa.Column("skip_speakers", sa.Boolean(), nullable=False),
        sa.Column("detection_due_at", _utc(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.CheckConstraint("mode IN ('live', 'file')", name="ck_debates_mode"),
        sa.CheckConstraint(
            "detection_state IN ('idle', 'deferred', 'requested', 'running', 'done')",
            name="ck_debates_detection_state",
        ),
        sa.ForeignKeyConstraint(
            ["organisation_id"], ["organisations.id"], name="fk_debates_organisation_id_organisations"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_debates"),
    )
    op.create_index("ix_debates_organisation_id", "debates", ["organisation_id"])
    op.create_table(
        "debate_segments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("debate_id", sa.String(32), nullable=False),
        sa.Column("segment_id", sa.String(128), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("speaker_label", sa.String(128), nullable=True),
        sa.Column("start_s", sa.Float(), nullable=True),
        sa.Column("end_s", sa.Float(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("detected", sa.Boolean(), nullable=False),
        sa.Column("received_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(["debate_id"], ["debates.id"], name="fk_debate_segments_debate_id_debates"),
        sa.PrimaryKeyConstraint("id", name="pk_debate_segments"),
        sa.UniqueConstraint("debate_id", "segment_id", name="uq_debate_segments_debate_id_segment_id"),
    )
    op.create_index("ix_debate_segments_debate_id_seq", "debate_segments", ["debate_id", "seq"])
    op.create_table(
        "debate_claims",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("debate_id", sa.String(32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("text_key", sa.String(512), nullable=False),
        sa.Column("speaker_label", sa.String(128), nullable=True),
        sa.Column("segment_ids_json", sa.Text(), nullable=False),
        sa.Column("checkworthiness", sa.Float(), nullable=False),
        sa.Column("claim_type", sa.String(32), nullable=False),
        sa.Column("manually_added", sa.Boolean(), nullable=False),
        sa.Column("withheld", sa.String(16), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("released_at", _utc(), nullable=True),
        sa.ForeignKeyConstraint(["debate_id"], ["debates.id"], name="fk_debate_claims_debate_id_debates"),
        sa.PrimaryKeyConstraint("id", name="pk_debate_claims"),
    )
    op.create_index("ix_debate_claims_debate_id_text_key", "debate_claims", ["debate_id", "text_key"])
    op.create_table(
        "debate_panels",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("debate_id", sa.String(32), nullable=False),
        sa.Column("research_mode", sa.String(32), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("manual", sa.Boolean(), nullable=False),
        sa.Column("escalated", sa.Boolean(), nullable=False),
        sa.Column("strong_language", sa.Boolean(), nullable=False),
        sa.Column("lease_owner", sa.String(64), nullable=True),
        sa.Column("lease_until", _utc(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("search_failures", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", _utc(), nullable=True),
        sa.Column("research_delay_reason", sa.String(32), nullable=True),
        sa.Column("verdict", sa.String(32), nullable=True),
        sa.Column("panel_json", sa.Text(), nullable=True),
        sa.Column("fingerprint", sa.Text(), nullable=True),
        sa.Column("corrected_verdict", sa.String(32), nullable=True),
        sa.Column("cost", sa.Float(), nullable=False),
        sa.Column("billed_token_id", sa.Integer(), nullable=True),
        sa.Column("billed_organisation_id", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("finished_at", _utc(), nullable=True),
        sa.CheckConstraint("state IN ('pending', 'running', 'done')", name="ck_debate_panels_state"),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["debate_claims.id"], name="fk_debate_panels_claim_id_debate_claims"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_debate_panels"),
    )
    op.create_index("ix_debate_panels_claim_id", "debate_panels", ["claim_id"])
    op.create_index("ix_debate_panels_debate_id", "debate_panels", ["debate_id"])
    op.create_index("ix_debate_panels_billed_organisation_id", "debate_panels", ["billed_organisation_id"])
    op.create_index("ix_debate_panels_state_next_attempt_at", "debate_panels", ["state", "next_attempt_at"])
    op.create_table(
        "claim_verdicts",
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("verdict_json", sa.Text(), nullable=True),
        sa.Column("history_json", sa.Text(), nullable=False),
        sa.Column("updated_at", _utc(), nullable=False),
        sa.Column("adjudication_json", sa.Text(), nullable=True),
        sa.Column("adjudication_due_at", _utc(), nullable=True),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["debate_claims.id"], name="fk_claim_verdicts_claim_id_debate_claims"
        ),
        sa.PrimaryKeyConstraint("claim_id", name="pk_claim_verdicts"),
    )
    op.create_index("ix_claim_verdicts_adjudication_due_at", "claim_verdicts", ["adjudication_due_at"])
    op.create_table(
        "adjudication_budget",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("day", sa.String(10), nullable=True),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_adjudication_budget"),
    )
    op.create_table(
        "winner_selections",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=False),
        sa.Column("panel_id", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("token_id", sa.Integer(), nullable=True),
        sa.Column("at", _utc(), nullable=False),
        sa.CheckConstraint(
            "state IN ('current', 'superseded', 'rejected')", name="ck_winner_selections_state"
        ),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["debate_claims.id"], name="fk_winner_selections_claim_id_debate_claims"
        ),
        sa.ForeignKeyConstraint(
            ["panel_id"], ["debate_panels.id"], name="fk_winner_selections_panel_id_debate_panels"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_winner_selections"),
    )
    op.create_index("ix_winner_selections_claim_id", "winner_selections", ["claim_id"])
    op.create_table(
        "debate_feedback",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("debate_id", sa.String(32), nullable=False),
        sa.Column("claim_id", sa.Integer(), nullable=True),
        sa.Column("panel_id", sa.Integer(), nullable=True),
        sa.Column("token_id", sa.Integer(), nullable=True),
        sa.Column("data_json", sa.Text(), nullable=False),
        sa.Column("at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_debate_feedback"),
    )
    op.create_index("ix_debate_feedback_debate_id", "debate_feedback", ["debate_id"])
    op.create_table(
        "debate_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("debate_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("data_json", sa.Text(), nullable=False),
        sa.Column("at", _utc(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_debate_events"),
        sa.UniqueConstraint("debate_id", "seq", name="uq_debate_events_debate_id_seq"),
    )


def downgrade() -> None:
    op.drop_table("debate_events")
    op.drop_index("ix_debate_feedback_debate_id", table_name="debate_feedback")
    op.drop_table("debate_feedback")
    op.drop_index("ix_winner_selections_claim_id", table_name="winner_selections")
    op.drop_table("winner_selections")
    op.drop_table("adjudication_budget")
    op.drop_index("ix_claim_verdicts_adjudication_due_at", table_name="claim_verdicts")
    op.drop_table("claim_verdicts")
    for index in (
        "ix_debate_panels_state_next_attempt_at",
        "ix_debate_panels_billed_organisation_id",
        "ix_debate_panels_debate_id",
        "ix_debate_panels_claim_id",
    ):
        op.drop_index(index, table_name="debate_panels")
    op.drop_table("debate_panels")
    op.drop_index("ix_debate_claims_debate_id_text_key", table_name="debate_claims")
    op.drop_table("debate_claims")
    op.drop_index("ix_debate_segments_debate_id_seq", table_name="debate_segments")
    op.drop_table("debate_segments")
    op.drop_index("ix_debates_organisation_id", table_name="debates")
    op.drop_table("debates")
    op.drop_index("ix_token_organisations_organisation_id", table_name="token_organisations")
    op.drop_table("token_organisations")
    op.drop_table("organisations")
    op.drop_table("plans")
