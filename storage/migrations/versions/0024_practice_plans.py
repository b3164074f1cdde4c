"""A student's next practice session planned ahead: ``practice_plans``.

When a free-practice session ends, the next one (same KB, topics, format and length, a fresh
seed) is planned and stored with a digest of what it was computed from; the student's next start
records it when the digest still matches instead of planning at the start (issue 32). One row
per student and KB; nothing stored before is changed, and a missing row only means a start
plans as before.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "practice_plans",
        sa.Column("respondent_id", sa.Integer(), nullable=False),
        sa.Column("kb_name", sa.String(100), nullable=False),
        sa.Column("params", JSON, nullable=False),
        sa.Column("basis", sa.String(64), nullable=False),
        sa.Column("config", JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["respondent_id"], ["respondent.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("respondent_id", "kb_name"),
    )


def downgrade() -> None:
    op.drop_table("practice_plans")
