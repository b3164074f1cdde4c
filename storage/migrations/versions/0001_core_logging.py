"""Core logging: knowledge bases, knowledge points, items, respondents, runs, responses.

Revision ID: 0001
Revises:
Create Date: 2026-11-21

Self-contained on purpose: migrations never import quizbot code, whose types may change later.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime(timezone=True)
BIGID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "knowledge_base",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("version", sa.String(50), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("source", sa.String(50), nullable=False),
        sa.Column("license", sa.Text(), nullable=False),
        sa.Column("meta", JSON, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "respondent",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("display_name", sa.String(200), nullable=False),
        sa.Column("cohort", sa.String(100), nullable=True),
        sa.Column("meta", JSON, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint("kind IN ('human', 'model', 'baseline')", name="ck_respondent_kind"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("kind", "name", name="uq_respondent_kind_name"),
    )
    op.create_index("ix_respondent_cohort", "respondent", ["cohort"])
    op.create_table(
        "eval_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=True),
        sa.Column("respondent_id", sa.Integer(), nullable=False),
        sa.Column("model_requested", sa.String(200), nullable=False),
        sa.Column("model_reported", sa.String(200), nullable=True),
        sa.Column("config", JSON, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("n_items", sa.Integer(), nullable=False),
        sa.Column("error_text", sa.Text(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("started_at", TS, nullable=True),
        sa.Column("finished_at", TS, nullable=True),
        sa.CheckConstraint(
            "status IN ('pending', 'running', 'completed', 'failed', 'interrupted')",
            name="ck_eval_run_status",
        ),
        sa.ForeignKeyConstraint(["respondent_id"], ["respondent.id"], ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_eval_run_respondent_id", "eval_run", ["respondent_id"])
    op.create_table(
        "knowledge_point",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kb_id", sa.Integer(), nullable=False),
        sa.Column("relation", sa.String(100), nullable=False),
        sa.Column("head", sa.String(500), nullable=False),
        sa.Column("tail", sa.String(500), nullable=False),
        sa.Column("head_type", sa.String(100), nullable=False),
        sa.Column("tail_type", sa.String(100), nullable=False),
        sa.Column("head_ref", sa.String(100), nullable=True),
        sa.Column("tail_ref", sa.String(100), nullable=True),
        sa.Column("meta", JSON, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["kb_id"], ["knowledge_base.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("kb_id", "relation", "head", "tail", name="uq_knowledge_point_triplet"),
    )
    op.create_index("ix_knowledge_point_kb_relation", "knowledge_point", ["kb_id", "relation"])
    op.create_table(
        "item",
        sa.Column("id", sa.String(80), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("kb_id", sa.Integer(), nullable=False),
        sa.Column("knowledge_point_id", sa.Integer(), nullable=True),
        sa.Column("relation", sa.String(100), nullable=False),
        sa.Column("head", sa.String(500), nullable=False),
        sa.Column("tail", sa.String(500), nullable=False),
        sa.Column("polarity", sa.String(10), nullable=False),
        sa.Column("transform", sa.String(20), nullable=True),
        sa.Column("label", sa.Boolean(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("prototype", sa.Text(), nullable=True),
        sa.Column("options", JSON, nullable=True),
        sa.Column("answer_keys", JSON, nullable=True),
        sa.Column("pair_key", sa.String(80), nullable=True),
        sa.Column("rephrase_model", sa.String(200), nullable=True),
        sa.Column("generator_version", sa.String(20), nullable=False),
        sa.Column("lineage", JSON, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint("kind IN ('statement', 'choice')", name="ck_item_kind"),
        sa.CheckConstraint("polarity IN ('positive', 'negative')", name="ck_item_polarity"),
        sa.ForeignKeyConstraint(["kb_id"], ["knowledge_base.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["knowledge_point_id"], ["knowledge_point.id"], ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_item_kb_relation", "item", ["kb_id", "relation"])
    op.create_index("ix_item_knowledge_point_id", "item", ["knowledge_point_id"])
    op.create_index("ix_item_pair_key", "item", ["pair_key"])
    op.create_table(
        "response",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(80), nullable=False),
        sa.Column("respondent_id", sa.Integer(), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=True),
        sa.Column("raw_text", sa.Text(), nullable=True),
        sa.Column("parsed_answer", sa.String(50), nullable=True),
        sa.Column("parse_reason", sa.String(200), nullable=True),
        sa.Column("outcome", sa.String(20), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("prompt_tokens", sa.Integer(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=True),
        sa.Column("total_tokens", sa.Integer(), nullable=True),
        sa.Column("provider_model", sa.String(200), nullable=True),
        sa.Column("cached", sa.Boolean(), nullable=False),
        sa.Column("error_text", sa.Text(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint(
            "outcome IN ('correct', 'incorrect', 'abstained', 'unparsed', 'error')",
            name="ck_response_outcome",
        ),
        sa.ForeignKeyConstraint(["item_id"], ["item.id"], ondelete="RESTRICT"),
        sa.ForeignKeyConstraint(["respondent_id"], ["respondent.id"], ondelete="RESTRICT"),
        sa.ForeignKeyConstraint(["run_id"], ["eval_run.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_id", "item_id", name="uq_response_run_item"),
    )
    op.create_index("ix_response_item_id", "response", ["item_id"])
    op.create_index("ix_response_respondent_created", "response", ["respondent_id", "created_at"])


def downgrade() -> None:
    for table in (
        "response",
        "item",
        "knowledge_point",
        "eval_run",
        "respondent",
        "knowledge_base",
    ):
        op.drop_table(table)
