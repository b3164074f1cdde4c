"""Cache of model calls for interactive use; each monitor night keeps its summary.

The cache is never read by evaluation or monitoring runs. A night's summary (metrics with
intervals, overall/anchor/rotating/per relation) and the model id the provider reported are
stored with the night, so the monitor page reads one row per night instead of every response.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON_TYPE = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "model_call_cache",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("provider_model", sa.String(200), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=True),
        sa.Column("total_tokens", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key"),
    )
    op.add_column("monitor_night", sa.Column("provider_model", sa.String(200), nullable=True))
    op.add_column("monitor_night", sa.Column("summary", JSON_TYPE, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("monitor_night") as batch:
        batch.drop_column("summary")
        batch.drop_column("provider_model")
    op.drop_table("model_call_cache")
