"""Item sets: item banks from elsewhere (MultifacetEval, MedQA, EBMQA-style files), imported.

``item_sets`` names a set with its source format, licence, file name and import time; its items
are ordinary ``item`` rows under a knowledge base of their own (source ``itemset``, no points),
and ``item_set_items`` keeps their order.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "item_sets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("format", sa.String(40), nullable=False),
        sa.Column("licence", sa.Text(), nullable=False),
        sa.Column("source_file", sa.String(255), nullable=False),
        sa.Column("kb_id", sa.Integer(), nullable=False),
        sa.Column("n_items", sa.Integer(), nullable=False),
        sa.Column("meta", JSON, nullable=False),
        sa.Column("imported_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["kb_id"], ["knowledge_base.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "item_set_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_set_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(80), nullable=False),
        sa.ForeignKeyConstraint(["item_set_id"], ["item_sets.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["item_id"], ["item.id"], ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("item_set_id", "item_id", name="uq_item_set_items_item"),
        sa.UniqueConstraint("item_set_id", "position", name="uq_item_set_items_position"),
    )
    op.create_index("ix_item_set_items_item_id", "item_set_items", ["item_id"])


def downgrade() -> None:
    op.drop_index("ix_item_set_items_item_id", table_name="item_set_items")
    op.drop_table("item_set_items")
    op.drop_table("item_sets")
