"""State the app's replicas share: rate-limit buckets, Gradio session owners, upload volumes.

Until now ``quizbot serve`` held these in its own memory, so two replicas behind a proxy each
allowed the whole login and answer rate, and a Gradio session hash claimed on one replica was free
on the other. ``rate_buckets`` holds one token bucket per limit and key, ``gradio_sessions`` the
account that first used each session hash, ``upload_usage`` each upload's size for the hourly
volume. Times are seconds since the epoch (the replicas' clocks, kept in step by NTP). Nothing
stored before is changed.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rate_buckets",
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.Column("allowed", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_index("ix_rate_buckets_updated_at", "rate_buckets", ["updated_at"])
    op.create_table(
        "gradio_sessions",
        sa.Column("session_hash", sa.String(128), nullable=False),
        sa.Column("owner", sa.String(100), nullable=False),
        sa.Column("claimed_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("session_hash"),
    )
    op.create_index("ix_gradio_sessions_claimed_at", "gradio_sessions", ["claimed_at"])
    op.create_table(
        "upload_usage",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(100), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_upload_usage_owner", "upload_usage", ["owner"])


def downgrade() -> None:
    op.drop_index("ix_upload_usage_owner", table_name="upload_usage")
    op.drop_table("upload_usage")
    op.drop_index("ix_gradio_sessions_claimed_at", table_name="gradio_sessions")
    op.drop_table("gradio_sessions")
    op.drop_index("ix_rate_buckets_updated_at", table_name="rate_buckets")
    op.drop_table("rate_buckets")
