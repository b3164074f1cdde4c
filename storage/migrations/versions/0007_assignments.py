"""Assignments: one fixed set of items put to students and models alike.

``assignments`` names the set (its knowledge base, exam or practice mode, an optional cohort and
window, and how the items were made); ``assignment_items`` fixes the items in order, once.
Practice sessions and evaluation runs made for an assignment point at it (``assignment_id``,
NULL for everything stored before and for everything not made for one), so an assignment's
results never pick up an unrelated run or session.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "assignments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("kb_name", sa.String(100), nullable=False),
        sa.Column("mode", sa.String(20), nullable=False),
        sa.Column("cohort", sa.String(100), nullable=True),
        sa.Column("opens_at", TS, nullable=True),
        sa.Column("closes_at", TS, nullable=True),
        sa.Column("config", JSON, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint("mode IN ('exam', 'practice')", name="ck_assignments_mode"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "assignment_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(80), nullable=False),
        sa.ForeignKeyConstraint(["assignment_id"], ["assignments.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["item_id"], ["item.id"], ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("assignment_id", "item_id", name="uq_assignment_items_item"),
        sa.UniqueConstraint("assignment_id", "position", name="uq_assignment_items_position"),
    )
    op.create_index("ix_assignment_items_item_id", "assignment_items", ["item_id"])
    for table in ("eval_run", "quiz_session"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("assignment_id", sa.Integer(), nullable=True))
            batch.create_foreign_key(
                f"fk_{table}_assignment_id", "assignments", ["assignment_id"], ["id"],
                ondelete="SET NULL",
            )  # fmt: skip
            batch.create_index(f"ix_{table}_assignment_id", ["assignment_id"])


def downgrade() -> None:
    for table in ("quiz_session", "eval_run"):
        with op.batch_alter_table(table) as batch:
            batch.drop_index(f"ix_{table}_assignment_id")
            batch.drop_constraint(f"fk_{table}_assignment_id", type_="foreignkey")
            batch.drop_column("assignment_id")
    op.drop_index("ix_assignment_items_item_id", table_name="assignment_items")
    op.drop_table("assignment_items")
    op.drop_table("assignments")
