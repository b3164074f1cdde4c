"""Model spend: how many model calls each account has reserved on each UTC day.

``model_spend`` holds one row per account name and UTC day with the calls reserved that day
(:mod:`quizbot.spend` reserves before asking and gives back what was not asked). The unique
(user, day) pair makes the reservation one conditional UPDATE, atomic on both backends.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "model_spend",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_name", sa.String(100), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("calls >= 0", name="ck_model_spend_calls"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_name", "day", name="uq_model_spend_user_day"),
    )


def downgrade() -> None:
    op.drop_table("model_spend")
