"""Exams kept secret: an assignment's secret seed, and answers held back from spaced review.

``assignments.secret_seed`` holds the seed an exam's items were drawn with (random unless the
instructor gave one); it is never shown nor exported, so the public defaults of ``quizbot
generate`` do not rebuild an exam. Assignments made before keep their public ``config.seed``
and a NULL here.

``review_sync.held_sessions`` lists a student's exam sessions that were still sealed when their
answers were turned into review cards (:mod:`quizbot.practice.sealed`): those answers wait
there and are reviewed once the exam is complete. Rows stored before start with an empty list.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("assignments") as batch:
        batch.add_column(sa.Column("secret_seed", sa.String(length=100), nullable=True))
    with op.batch_alter_table("review_sync") as batch:
        batch.add_column(sa.Column("held_sessions", JSON, nullable=False, server_default="[]"))


def downgrade() -> None:
    with op.batch_alter_table("review_sync") as batch:
        batch.drop_column("held_sessions")
    with op.batch_alter_table("assignments") as batch:
        batch.drop_column("secret_seed")
