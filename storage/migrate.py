"""Schema migrations (Alembic), applied by ``quizbot db upgrade`` and on first start.

An upgrade runs in one transaction under a lock (``pg_advisory_xact_lock`` on PostgreSQL,
``BEGIN IMMEDIATE`` on SQLite), so two processes starting against the same empty database apply
the migrations once. On SQLite, foreign-key enforcement is off during the upgrade and checked in
full before commit, as SQLite's own procedure for table rebuilds requires.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError

from quizbot.errors import SchemaError
from storage.engine import Database, EngineOptions

__all__ = [
    "SchemaStatus",
    "current_revision",
    "ensure_schema",
    "head_revision",
    "include_name",
    "schema_status",
    "upgrade",
]

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
_LOCK_KEY = 0x71756978  # "quix": one advisory lock id for quizbot migrations


def include_name(name: str | None, type_: str, parent_names: object) -> bool:
    """Whether a database object is quizbot's to compare with the models: procrastinate's
    tables (the work queue, applied from its own schema by migration 0022) are not."""
    return not (type_ == "table" and bool(name) and str(name).startswith("procrastinate_"))


def _config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def _script() -> ScriptDirectory:
    return ScriptDirectory.from_config(_config())


def head_revision() -> str:
    """The newest migration this version of quizbot knows."""
    head = _script().get_current_head()
    assert head is not None
    return head


def _current(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


def current_revision(db: Database) -> str | None:
    """The revision the database is at, or ``None`` for a database never migrated."""
    try:
        with db.engine.connect() as conn:
            return _current(conn)
    except OperationalError as exc:
        raise db._unavailable(exc) from exc


@dataclass(frozen=True)
class SchemaStatus:
    """Where a database stands relative to this code's migrations."""

    current: str | None
    head: str
    has_tables: bool

    @property
    def up_to_date(self) -> bool:
        """True when no migration is pending."""
        return self.current == self.head

    @property
    def empty(self) -> bool:
        """True for a database with no tables at all (safe to create from scratch)."""
        return self.current is None and not self.has_tables


def schema_status(db: Database) -> SchemaStatus:
    """Read the current revision and whether the database has any tables."""
    try:
        with db.engine.connect() as conn:
            current = _current(conn)
            has_tables = bool(inspect(conn).get_table_names())
    except OperationalError as exc:
        raise db._unavailable(exc) from exc
    return SchemaStatus(current=current, head=head_revision(), has_tables=has_tables)


def _known(revision: str | None) -> bool:
    if revision is None:
        return True
    try:
        return _script().get_revision(revision) is not None
    except Exception:  # alembic raises several types for unknown ids
        return False


def upgrade(db: Database, revision: str = "head") -> tuple[str | None, str | None]:
    """Apply migrations up to ``revision``; return (revision before, revision after).

    A second call is a no-op. Raises :class:`SchemaError` if the database was migrated by a newer
    quizbot than this one.
    """
    migration_db = Database(
        db.url,
        EngineOptions(
            sqlite_synchronous=db.options.sqlite_synchronous,
            busy_timeout_ms=db.options.busy_timeout_ms,
            lock_timeout_ms=db.options.lock_timeout_ms,
            pool_size=1,
            sqlite_foreign_keys=False,
        ),
    )
    try:
        with migration_db.engine.connect() as raw:
            conn = raw.execution_options(quizbot_write=True)
            with conn.begin():
                if db.backend == "postgresql":
                    # Another quizbot migrating (replicas starting together) is waited for as
                    # long as it takes; the tables' locks then wait lock_timeout_ms at most.
                    conn.exec_driver_sql("SET LOCAL lock_timeout = 0")
                    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})
                    timeout = int(migration_db.options.lock_timeout_ms)
                    conn.exec_driver_sql(f"SET LOCAL lock_timeout = {timeout}")
                before = _current(conn)
                if not _known(before):
                    raise SchemaError(
                        f"database {db.masked_url} is at schema revision {before}, which this "
                        "version of quizbot does not know (it was upgraded by a newer quizbot)",
                        hint="upgrade quizbot, or point DATABASE_URL at another database",
                    )
                cfg = _config()
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, revision)
                if db.backend == "sqlite":
                    bad = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if bad:
                        raise SchemaError(
                            f"migration would break {len(bad)} foreign key(s), first: {bad[0]}; "
                            "nothing was changed"
                        )
                after = _current(conn)
    except OperationalError as exc:
        raise db._unavailable(exc) from exc
    finally:
        migration_db.dispose()
    if before != after:
        log.info("database schema upgraded from %s to %s", before or "empty", after)
    return before, after


def ensure_schema(db: Database) -> SchemaStatus:
    """Make the database usable at startup.

    An empty database is migrated automatically; an up-to-date one is left alone. A database
    behind this code, or one with tables but no quizbot history, raises :class:`SchemaError`
    naming the fix, so nobody's data is changed without being asked.
    """
    status = schema_status(db)
    if status.up_to_date:
        return status
    if status.empty:
        upgrade(db)
        return schema_status(db)
    if status.current is None:
        raise SchemaError(
            f"database {db.masked_url} has tables but no quizbot schema version",
            hint="point DATABASE_URL at an empty database or one created by quizbot",
        )
    if not _known(status.current):
        raise SchemaError(
            f"database {db.masked_url} is at schema revision {status.current}, newer than this "
            f"quizbot (which knows up to {status.head})",
            hint="upgrade quizbot",
        )
    raise SchemaError(
        f"database {db.masked_url} is at schema revision {status.current}; this quizbot needs "
        f"{status.head}",
        hint="run `quizbot db upgrade` (back the database up first if it matters)",
    )
