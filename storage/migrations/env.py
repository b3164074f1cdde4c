"""Alembic environment: runs on the connection that :mod:`storage.migrate` hands over.

That connection already holds the migration lock and an open transaction, so every migration of
one upgrade commits or rolls back together.
"""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import storage.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from storage.migrate import include_name

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only storage.migrate runs migrations
    raise RuntimeError("run migrations through `quizbot db upgrade`, not the alembic command")

context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=True,  # SQLite needs table rebuilds for most ALTERs
    compare_type=True,
    include_name=include_name,  # procrastinate's tables are its own (migration 0022)
)
with context.begin_transaction():
    context.run_migrations()
