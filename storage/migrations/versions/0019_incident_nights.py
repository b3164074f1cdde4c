"""Incidents keep a record of every night they lived through.

``monitor_incident.nights`` holds one entry per completed night from the night an incident
opened (or reopened) until it closes: the night's figure for the incident's metric, its alerts,
the anchor items that flipped and whether anyone was told (an acknowledged incident collects
nights silently and notifies only when its state changes). Incidents stored before start with
an empty record.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("monitor_incident") as batch:
        batch.add_column(sa.Column("nights", JSON, nullable=False, server_default="[]"))


def downgrade() -> None:
    with op.batch_alter_table("monitor_incident") as batch:
        batch.drop_column("nights")
