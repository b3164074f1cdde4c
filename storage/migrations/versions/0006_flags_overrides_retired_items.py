"""Correcting knowledge without a release: flags on items, KB overrides, retired items.

``item_flags`` holds what people flag in the practice chat and what a reviewer decided;
``kb_overrides`` holds corrections of single triplets of a knowledge base (applied whenever the
KB is loaded); ``retired_items`` holds items never to be asked again. Only new tables: nothing
stored before is touched.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "item_flags",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(80), nullable=False),
        sa.Column("quiz_session_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(20), nullable=False),
        sa.Column("comment", sa.String(1000), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("decision", sa.String(20), nullable=True),
        sa.Column("decided_by", sa.String(200), nullable=True),
        sa.Column("decided_at", TS, nullable=True),
        sa.CheckConstraint(
            "reason IN ('wrong_key', 'ambiguous', 'other')", name="ck_item_flags_reason"
        ),
        sa.CheckConstraint(
            "state IN ('open', 'resolved', 'dismissed')", name="ck_item_flags_state"
        ),
        sa.CheckConstraint(
            "decision IS NULL OR decision IN ('retire', 'true', 'false', 'dismiss')",
            name="ck_item_flags_decision",
        ),
        sa.ForeignKeyConstraint(["item_id"], ["item.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["quiz_session_id"], ["quiz_session.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_item_flags_item_id", "item_flags", ["item_id"])
    op.create_index("ix_item_flags_state_item", "item_flags", ["state", "item_id"])

    op.create_table(
        "kb_overrides",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kb_name", sa.String(100), nullable=False),
        sa.Column("head", sa.String(500), nullable=False),
        sa.Column("relation", sa.String(100), nullable=False),
        sa.Column("tail", sa.String(500), nullable=False),
        sa.Column("kind", sa.String(30), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("source", sa.String(100), nullable=False),
        sa.Column("created_by", sa.String(200), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint(
            "kind IN ('true_not_negative', 'false_remove', 'reviewed_false')",
            name="ck_kb_overrides_kind",
        ),
        sa.UniqueConstraint(
            "kb_name", "head", "relation", "tail", "kind", name="uq_kb_overrides_triplet_kind"
        ),
        sa.PrimaryKeyConstraint("id"),
    )

    op.create_table(
        "retired_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(80), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("flag_id", sa.Integer(), nullable=True),
        sa.Column("retired_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["item.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["flag_id"], ["item_flags.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("item_id"),
    )


def downgrade() -> None:
    op.drop_table("retired_items")
    op.drop_table("kb_overrides")
    op.drop_index("ix_item_flags_state_item", table_name="item_flags")
    op.drop_index("ix_item_flags_item_id", table_name="item_flags")
    op.drop_table("item_flags")
