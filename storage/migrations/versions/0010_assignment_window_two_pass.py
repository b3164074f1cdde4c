"""Two-pass assignments: which pass an answer belongs to.

EBMQA's two-pass protocol asks every item with "I do not know" allowed (pass 1), then asks the
items abstained on again, this time forcing a guess (pass 2). Each pass is its own practice
session or evaluation run (so an item is still answered once per session and once per run);
``response.answer_pass`` records the pass on the answer itself: 1 or 2 for an answer given on a
two-pass assignment, NULL for every other answer (all answers stored before this revision).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("response") as batch:
        batch.add_column(sa.Column("answer_pass", sa.SmallInteger(), nullable=True))
        batch.create_check_constraint(
            "ck_response_answer_pass", "answer_pass IS NULL OR answer_pass IN (1, 2)"
        )


def downgrade() -> None:
    with op.batch_alter_table("response") as batch:
        batch.drop_constraint("ck_response_answer_pass", type_="check")
        batch.drop_column("answer_pass")
