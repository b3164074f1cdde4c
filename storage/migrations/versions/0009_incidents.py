"""Incidents: consecutive alerts of one monitor x model x metric, with a state people change.

``monitor_incident`` groups the alerts of one monitor x model x metric on consecutive nights
into one incident (open, acknowledged, resolved, or accepted as the new baseline), with the
alerting nights as evidence and every state change as an event. Nothing stored before changes:
alerts keep their rows; incidents start with the first night run after this migration.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "monitor_incident",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("monitor_id", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("metric", sa.String(100), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("severity", sa.String(20), nullable=False),
        sa.Column("opened_on", sa.Date(), nullable=False),
        sa.Column("last_alert_on", sa.Date(), nullable=False),
        sa.Column("quiet_nights", sa.Integer(), nullable=False),
        sa.Column("closed_on", sa.Date(), nullable=True),
        sa.Column("baseline_from", sa.Date(), nullable=True),
        sa.Column("evidence", JSON, nullable=False),
        sa.Column("events", JSON, nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.CheckConstraint(
            "state IN ('open', 'acknowledged', 'resolved', 'accepted')",
            name="ck_monitor_incident_state",
        ),
        sa.CheckConstraint("kind IN ('drift', 'operational')", name="ck_monitor_incident_kind"),
        sa.CheckConstraint(
            "severity IN ('info', 'warning', 'critical')", name="ck_monitor_incident_severity"
        ),
        sa.ForeignKeyConstraint(["monitor_id"], ["monitor.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_monitor_incident_key",
        "monitor_incident",
        ["monitor_id", "model", "metric", "state"],
    )


def downgrade() -> None:
    op.drop_index("ix_monitor_incident_key", table_name="monitor_incident")
    op.drop_table("monitor_incident")
