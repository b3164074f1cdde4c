"""Login locks per account name and client address.

``login_locks`` counts wrong passwords for one name from one address and holds that pair's lock
(its length doubling with each lock in a row), so five wrong guesses from a stranger no longer
lock the account for everyone. ``users.failed_logins`` and ``users.locked_until`` stay, as what
``quizbot user list`` shows. Nothing stored before is changed.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "login_locks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("address", sa.String(100), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("locks", sa.Integer(), nullable=False),
        sa.Column("locked_until", TS, nullable=True),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name", "address", name="uq_login_locks_name_address"),
    )
    op.create_index("ix_login_locks_name", "login_locks", ["name"])


def downgrade() -> None:
    op.drop_index("ix_login_locks_name", table_name="login_locks")
    op.drop_table("login_locks")
