"""Spaced review: one FSRS card per student x knowledge point.

``review_cards`` holds each card as FSRS's own dictionary plus its due time (indexed with the
student, so "what is due" is one range query); ``review_sync`` records how far each student's
answers have been turned into cards (the backfill and the answer hook share it).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
BIG = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "review_cards",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("respondent_id", sa.Integer(), nullable=False),
        sa.Column("fact", sa.String(80), nullable=False),
        sa.Column("kb_name", sa.String(100), nullable=False),
        sa.Column("relation", sa.String(100), nullable=False),
        sa.Column("head", sa.String(500), nullable=False),
        sa.Column("tail", sa.String(500), nullable=False),
        sa.Column("card", JSON, nullable=False),
        sa.Column("due", TS, nullable=False),
        sa.Column("last_review", TS, nullable=True),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("lapses", sa.Integer(), nullable=False),
        sa.Column("last_response_id", BIG, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["respondent_id"], ["respondent.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("respondent_id", "fact", name="uq_review_cards_respondent_fact"),
    )
    op.create_index("ix_review_cards_respondent_due", "review_cards", ["respondent_id", "due"])
    op.create_table(
        "review_sync",
        sa.Column("respondent_id", sa.Integer(), nullable=False),
        sa.Column("last_response_id", BIG, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["respondent_id"], ["respondent.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("respondent_id"),
    )


def downgrade() -> None:
    op.drop_table("review_sync")
    op.drop_index("ix_review_cards_respondent_due", table_name="review_cards")
    op.drop_table("review_cards")
