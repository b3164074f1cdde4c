"""The scheduler's job store table comes under migration.

APScheduler's SQLAlchemy job store used to create ``apscheduler_jobs`` itself on first start, so
the schema had a table no migration knew. This revision creates it (with the columns and index
APScheduler 3 expects) unless a scheduler already did, and drops the stored jobs: each holds a
pickled reference to the job function, whose module moved with this release
(``quizbot.monitoring.scheduler``). The scheduler re-creates every job from the schedules file on
its next start, so only a night missed while it was down before the upgrade is not caught up.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "apscheduler_jobs"


def upgrade() -> None:
    bind = op.get_bind()
    if sa.inspect(bind).has_table(TABLE):
        op.execute(sa.text(f"DELETE FROM {TABLE}"))
        return
    op.create_table(
        TABLE,
        sa.Column("id", sa.Unicode(191), nullable=False),
        sa.Column("next_run_time", sa.Float(25), nullable=True),
        sa.Column("job_state", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(f"ix_{TABLE}_next_run_time", TABLE, ["next_run_time"])


def downgrade() -> None:
    op.drop_index(f"ix_{TABLE}_next_run_time", table_name=TABLE)
    op.drop_table(TABLE)
