"""Practice sessions for people, and monitoring (monitors, nights, drift results, alerts).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21

A response now belongs to exactly one of an evaluation run or a practice session. On SQLite the
response table is rebuilt (batch mode) to add the session column and constraints; its rows are
copied across unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "quiz_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("respondent_id", sa.Integer(), nullable=False),
        sa.Column("kb_name", sa.String(100), nullable=False),
        sa.Column("config", JSON, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("finished_at", TS, nullable=True),
        sa.CheckConstraint(
            "status IN ('active', 'finished', 'abandoned')", name="ck_quiz_session_status"
        ),
        sa.ForeignKeyConstraint(["respondent_id"], ["respondent.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_quiz_session_respondent_id", "quiz_session", ["respondent_id"])

    with op.batch_alter_table("response") as batch:
        batch.alter_column("run_id", existing_type=sa.Integer(), nullable=True)
        batch.add_column(sa.Column("quiz_session_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_response_quiz_session_id",
            "quiz_session",
            ["quiz_session_id"],
            ["id"],
            ondelete="CASCADE",
        )
        batch.create_unique_constraint("uq_response_session_item", ["quiz_session_id", "item_id"])
        batch.create_check_constraint(
            "ck_response_one_container", "(run_id IS NULL) <> (quiz_session_id IS NULL)"
        )

    op.create_table(
        "monitor",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("definition", JSON, nullable=False),
        sa.Column("source_file", sa.String(500), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "monitor_night",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("monitor_id", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("scheduled_date", sa.Date(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("claimed_by", sa.String(200), nullable=False),
        sa.Column("error_text", sa.Text(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("finished_at", TS, nullable=True),
        sa.CheckConstraint(
            "status IN ('claimed', 'completed', 'failed')", name="ck_monitor_night_status"
        ),
        sa.ForeignKeyConstraint(["monitor_id"], ["monitor.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["run_id"], ["eval_run.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("monitor_id", "model", "scheduled_date", name="uq_monitor_night"),
    )
    op.create_table(
        "drift_result",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("monitor_night_id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.String(150), nullable=False),
        sa.Column("metric", sa.String(100), nullable=False),
        sa.Column("test", sa.String(100), nullable=True),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("baseline_value", sa.Float(), nullable=True),
        sa.Column("effect", sa.Float(), nullable=True),
        sa.Column("p_value", sa.Float(), nullable=True),
        sa.Column("p_adjusted", sa.Float(), nullable=True),
        sa.Column("n", sa.Integer(), nullable=True),
        sa.Column("compared_run_ids", JSON, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(["monitor_night_id"], ["monitor_night.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_drift_result_night", "drift_result", ["monitor_night_id", "scope", "metric"]
    )
    op.create_table(
        "alert",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("monitor_night_id", sa.Integer(), nullable=False),
        sa.Column("drift_result_id", sa.Integer(), nullable=True),
        sa.Column("severity", sa.String(20), nullable=False),
        sa.Column("metric", sa.String(100), nullable=False),
        sa.Column("effect", sa.Float(), nullable=True),
        sa.Column("p_value", sa.Float(), nullable=True),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("run_ids", JSON, nullable=False),
        sa.Column("delivered_at", TS, nullable=True),
        sa.Column("delivery_error", sa.Text(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint("severity IN ('info', 'warning', 'critical')", name="ck_alert_severity"),
        sa.ForeignKeyConstraint(["drift_result_id"], ["drift_result.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["monitor_night_id"], ["monitor_night.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_alert_monitor_night_id", "alert", ["monitor_night_id"])


def downgrade() -> None:
    for table in ("alert", "drift_result", "monitor_night", "monitor"):
        op.drop_table(table)
    op.execute("DELETE FROM response WHERE run_id IS NULL")
    with op.batch_alter_table("response") as batch:
        batch.drop_constraint("ck_response_one_container", type_="check")
        batch.drop_constraint("uq_response_session_item", type_="unique")
        batch.drop_constraint("fk_response_quiz_session_id", type_="foreignkey")
        batch.drop_column("quiz_session_id")
        batch.alter_column("run_id", existing_type=sa.Integer(), nullable=False)
    op.drop_table("quiz_session")
