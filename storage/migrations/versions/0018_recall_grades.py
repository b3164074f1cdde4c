"""Open recall: students' own marks on unverified entries, and a judge model's verdicts.

``recall_self_grades`` holds a student's mark (right or wrong) on an entry of their recall answer
that the scorer could not verify; nothing scored reads it. ``recall_judgements`` holds a judge
model's verdict on an entry as an answer to a recall question, once per question, entry, judge
and prompt version. Nothing stored before is changed.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "recall_self_grades",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("response_id", sa.Integer(), nullable=False),
        sa.Column("entry_key", sa.String(200), nullable=False),
        sa.Column("entry", sa.String(200), nullable=False),
        sa.Column("verdict", sa.String(10), nullable=False),
        sa.Column("graded_at", TS, nullable=False),
        sa.CheckConstraint("verdict IN ('right', 'wrong')", name="ck_recall_self_grade_verdict"),
        sa.ForeignKeyConstraint(["response_id"], ["response.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("response_id", "entry_key", name="uq_recall_self_grade_entry"),
    )
    op.create_index("ix_recall_self_grades_response_id", "recall_self_grades", ["response_id"])
    op.create_table(
        "recall_judgements",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(80), nullable=False),
        sa.Column("entry_key", sa.String(200), nullable=False),
        sa.Column("entry", sa.String(200), nullable=False),
        sa.Column("judge_model", sa.String(200), nullable=False),
        sa.Column("prompt_version", sa.String(40), nullable=False),
        sa.Column("verdict", sa.String(10), nullable=False),
        sa.Column("reply", sa.Text(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint(
            "verdict IN ('correct', 'incorrect', 'unclear')", name="ck_recall_judgement_verdict"
        ),
        sa.ForeignKeyConstraint(["item_id"], ["item.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(
            "item_id", "entry_key", "judge_model", "prompt_version", name="uq_recall_judgement"
        ),
    )
    op.create_index("ix_recall_judgements_item_id", "recall_judgements", ["item_id"])


def downgrade() -> None:
    op.drop_index("ix_recall_judgements_item_id", table_name="recall_judgements")
    op.drop_table("recall_judgements")
    op.drop_index("ix_recall_self_grades_response_id", table_name="recall_self_grades")
    op.drop_table("recall_self_grades")
