"""Items left out of one assignment's scoring (``assignment_retired_items``).

An instructor retires an item from an assignment's results (e.g. one with negative
discrimination): the results are scored again without it and say so. Its answers are kept.
Unlike ``retired_items`` it concerns that assignment only. Nothing stored before is changed.

Revision ID: 0017
Revises: 0015
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "assignment_retired_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(80), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("retired_by", sa.String(200), nullable=False),
        sa.Column("retired_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["assignment_id"], ["assignments.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["item_id"], ["item.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("assignment_id", "item_id", name="uq_assignment_retired_item"),
    )
    op.create_index(
        "ix_assignment_retired_items_assignment_id",
        "assignment_retired_items",
        ["assignment_id"],
    )


def downgrade() -> None:
    op.drop_index(
        "ix_assignment_retired_items_assignment_id", table_name="assignment_retired_items"
    )
    op.drop_table("assignment_retired_items")
