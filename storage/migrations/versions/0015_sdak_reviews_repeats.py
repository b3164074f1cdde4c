"""SDAK: repeat groups of runs and admins' reason reviews.

``eval_run.repeat_of`` links the repeats of ``quizbot eval --repeats N`` to the first run of
their group (the first run itself and every ordinary run keep NULL). ``reason_reviews`` holds
one sound/unsound mark per SDAK answer (``response``), with who marked it and when; the reason
itself is read again from the answer's raw text. Nothing stored before is changed.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("eval_run") as batch:
        batch.add_column(sa.Column("repeat_of", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_eval_run_repeat_of", "eval_run", ["repeat_of"], ["id"], ondelete="CASCADE"
        )
        batch.create_index("ix_eval_run_repeat_of", ["repeat_of"])
    op.create_table(
        "reason_reviews",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("response_id", sa.Integer(), nullable=False),
        sa.Column("sound", sa.Boolean(), nullable=False),
        sa.Column("reviewer", sa.String(200), nullable=False),
        sa.Column("reviewed_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["response_id"], ["response.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("response_id"),
    )


def downgrade() -> None:
    op.drop_table("reason_reviews")
    with op.batch_alter_table("eval_run") as batch:
        batch.drop_index("ix_eval_run_repeat_of")
        batch.drop_constraint("fk_eval_run_repeat_of", type_="foreignkey")
        batch.drop_column("repeat_of")
