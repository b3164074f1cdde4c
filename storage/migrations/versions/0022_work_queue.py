"""The work queue: procrastinate's schema in the application's PostgreSQL database.

Queued evaluations (``quizbot eval --queue``) and queued monitor nights (``QUIZBOT_QUEUE=1``)
are procrastinate jobs (:mod:`storage.jobs`): their tables, types, functions and triggers
(``procrastinate_jobs``, ``procrastinate_workers``, ``procrastinate_events``,
``procrastinate_periodic_defers``) are applied here from the schema file of the installed
procrastinate, in the same transaction as every other migration, so one ``quizbot db upgrade``
still does everything. Moving to a newer procrastinate with schema changes is a quizbot migration
of its own that applies procrastinate's migration files in order.

SQLite has no work queue (a queued run needs several processes on one database): nothing is
done there.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DROP = """
DROP TABLE IF EXISTS procrastinate_events, procrastinate_periodic_defers, procrastinate_jobs,
    procrastinate_workers CASCADE;
DO $$
DECLARE f record;
BEGIN
    FOR f IN SELECT p.oid::regprocedure AS signature FROM pg_proc p
             JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE p.proname LIKE 'procrastinate%' AND n.nspname = current_schema()
    LOOP
        EXECUTE 'DROP FUNCTION ' || f.signature || ' CASCADE';
    END LOOP;
END $$;
DROP TYPE IF EXISTS procrastinate_job_to_defer_v1, procrastinate_job_event_type,
    procrastinate_job_status CASCADE;
"""


def _execute_script(sql: str) -> None:
    """Run a multi-statement script as it is (no parameters: ``%`` stays ``%``), on the
    migration's own connection and transaction."""
    cursor = op.get_bind().connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(sql)
    finally:
        cursor.close()


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    from storage.jobs import queue_schema  # noqa: PLC0415

    _execute_script(queue_schema())


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _execute_script(_DROP)
