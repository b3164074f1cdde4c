"""Engine behaviour on real databases: pragmas, write locking, retries, timestamps, errors."""

from __future__ import annotations

import sqlite3
import threading
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import Session

from quizbot.errors import ConfigError, StorageError
from storage import Database, EngineOptions, mask_url, normalize_database_url
from storage.models import KnowledgeBase
from storage.repo import create_knowledge_base, get_knowledge_base
from tests.conftest import _Templates, fresh_database


def test_sqlite_connections_use_wal_foreign_keys_and_busy_timeout(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'a.db'}", EngineOptions(busy_timeout_ms=1234))
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 1234
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    db.dispose()
    normal = Database(f"sqlite:///{tmp_path / 'b.db'}", EngineOptions(sqlite_synchronous="NORMAL"))
    with normal.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1
    normal.dispose()


def test_sqlite_write_transactions_take_the_write_lock_at_begin(tmp_path: Path) -> None:
    """A writer holds the RESERVED lock from BEGIN, so others queue instead of failing late."""
    path = tmp_path / "lock.db"
    db = Database(f"sqlite:///{path}")
    db.write(lambda s: s.execute(text("CREATE TABLE t (x INTEGER)")))
    inside = threading.Event()
    release = threading.Event()

    def hold(session: Session) -> None:
        # Reads first, as read-modify-write code does: the write lock is already held here.
        session.execute(text("SELECT count(*) FROM t"))
        inside.set()
        release.wait(5)

    worker = threading.Thread(target=db.write, args=(hold,))
    worker.start()
    assert inside.wait(5)
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        other.execute("BEGIN IMMEDIATE")
    # A reader is never blocked by the writer (WAL).
    assert other.execute("SELECT count(*) FROM t").fetchone() == (0,)
    release.set()
    worker.join(5)
    other.execute("BEGIN IMMEDIATE")
    other.execute("ROLLBACK")
    other.close()
    db.dispose()


def test_write_waits_out_a_lock_held_longer_than_the_busy_timeout(tmp_path: Path) -> None:
    """Contention past the busy timeout is retried, never surfaced as 'database is locked'."""
    path = tmp_path / "busy.db"
    db = Database(f"sqlite:///{path}", EngineOptions(busy_timeout_ms=100))
    db.write(lambda s: s.execute(text("CREATE TABLE t (x INTEGER)")))
    blocker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")
    blocker.execute("INSERT INTO t VALUES (1)")
    timer = threading.Timer(0.6, lambda: blocker.execute("COMMIT"))
    timer.start()
    started = time.monotonic()
    db.write(lambda s: s.execute(text("INSERT INTO t VALUES (2)")))
    assert time.monotonic() - started >= 0.5  # it really had to wait for the blocker
    timer.join()
    assert db.read(lambda s: s.execute(text("SELECT count(*) FROM t")).scalar_one()) == 2
    blocker.close()
    db.dispose()


def test_a_postgresql_lock_wait_is_bounded_and_retried(
    tmp_path: Path, _templates: _Templates, caplog: pytest.LogCaptureFixture
) -> None:
    """A row lock held by another transaction past ``lock_timeout_ms`` fails the statement
    ("lock not available") and the write is retried until the lock is free, as a SQLite busy
    error is: a wait is never unbounded, and the caller still sees a plain success."""
    import psycopg

    with fresh_database("postgresql", tmp_path, _templates, migrated=False) as url:
        db = Database(url, EngineOptions(lock_timeout_ms=200))
        try:
            with db.engine.connect() as conn:
                assert conn.exec_driver_sql("SHOW lock_timeout").scalar() == "200ms"
            table = "CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER)"
            db.write(lambda s: s.execute(text(table)))
            db.write(lambda s: s.execute(text("INSERT INTO t VALUES (1, 0)")))
            holder = psycopg.connect(url.replace("postgresql+psycopg", "postgresql"))
            holder.execute("SELECT x FROM t WHERE id = 1 FOR UPDATE")  # the lock, held
            timer = threading.Timer(1.0, holder.commit)
            timer.start()
            caplog.set_level("DEBUG", logger="storage.engine")
            started = time.monotonic()
            db.write(lambda s: s.execute(text("UPDATE t SET x = 2 WHERE id = 1")))
            assert time.monotonic() - started >= 0.9  # it had to wait for the holder
            timer.join()
            holder.close()
            retried = [r for r in caplog.records if "retrying" in r.getMessage()]
            assert retried, "the wait ran past lock_timeout without failing: no bound"
            assert db.read(lambda s: s.execute(text("SELECT x FROM t")).scalar_one()) == 2
        finally:
            db.dispose()


def test_a_lock_timeout_that_outlasts_the_retries_names_its_cause() -> None:
    """When the retries are used up on "lock not available", the error says a lock was held
    too long (and which setting bounds it), not that the server may be down."""
    import psycopg
    from sqlalchemy.exc import OperationalError

    db = Database("postgresql+psycopg://alice:s3cret@127.0.0.1:1/quiz")
    cause = psycopg.errors.LockNotAvailable("canceling statement due to lock timeout")
    error = db._unavailable(OperationalError("UPDATE t SET x = 2", {}, cause))
    assert "lock timeout" in str(error) and "s3cret" not in str(error)
    assert "QUIZBOT_PG_LOCK_TIMEOUT_MS" in (error.hint or "")
    down = db._unavailable(OperationalError("SELECT 1", {}, psycopg.OperationalError("refused")))
    assert "is running" in (down.hint or "")
    db.dispose()


def test_timestamps_come_back_timezone_aware_utc(db: Database) -> None:
    plus_two = timezone(timedelta(hours=2))
    created = datetime(2026, 3, 1, 14, 30, 15, 123456, tzinfo=plus_two)
    kb = create_knowledge_base(db, "tz", version="1", source="test")

    def set_time(session: object) -> None:
        row = session.get(KnowledgeBase, kb.id)  # type: ignore[attr-defined]
        row.created_at = created
        session.add(row)  # type: ignore[attr-defined]

    db.write(set_time)
    loaded = get_knowledge_base(db, "tz")
    assert loaded.created_at.tzinfo is not None
    assert loaded.created_at.utcoffset() == timedelta(0)
    assert loaded.created_at == created
    assert loaded.created_at.hour == 12


def test_naive_timestamps_are_refused(db: Database) -> None:
    kb = create_knowledge_base(db, "naive", version="1", source="test")

    def set_naive(session: object) -> None:
        row = session.get(KnowledgeBase, kb.id)  # type: ignore[attr-defined]
        row.created_at = datetime(2026, 1, 1)
        session.add(row)  # type: ignore[attr-defined]

    with pytest.raises(Exception, match="naive datetime"):
        db.write(set_naive)
    assert get_knowledge_base(db, "naive").created_at.tzinfo == UTC


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgres://u:p@h:5432/d", "postgresql+psycopg://u:p@h:5432/d"),
        ("postgresql://u@h/d", "postgresql+psycopg://u@h/d"),
        ("postgresql+psycopg://u@h/d", "postgresql+psycopg://u@h/d"),
        ("sqlite:////tmp/x.db", "sqlite:////tmp/x.db"),
        ("sqlite+pysqlite:///rel.db", "sqlite:///rel.db"),
    ],
)
def test_urls_are_normalized_to_the_shipped_drivers(given: str, expected: str) -> None:
    assert normalize_database_url(given) == expected


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("sqlite://", "in-memory"),
        ("sqlite:///:memory:", "in-memory"),
        ("mysql://u@h/d", "not supported"),
        ("postgresql+psycopg2://u@h/d", "psycopg 3"),
        ("postgresql://u@h", "names no database"),
        ("not a url", "cannot parse"),
    ],
)
def test_bad_urls_are_config_errors_with_a_fix(url: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words) as info:
        normalize_database_url(url)
    assert info.value.hint


def test_mask_url_hides_the_password() -> None:
    masked = mask_url("postgresql+psycopg://alice:s3cret@db.example:5432/quiz")
    assert "s3cret" not in masked
    assert masked == "postgresql+psycopg://alice:***@db.example:5432/quiz"


def test_unreachable_postgres_is_a_storage_error_without_the_password() -> None:
    db = Database("postgresql+psycopg://alice:s3cret@127.0.0.1:1/quiz")
    with pytest.raises(StorageError) as info:
        db.ping()
    assert "s3cret" not in str(info.value)
    assert "127.0.0.1:1" in str(info.value)
    assert info.value.hint and "PostgreSQL" in info.value.hint


def test_unwritable_sqlite_location_is_a_storage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StorageError, match="cannot create the directory"):
        Database(f"sqlite:///{blocker / 'sub' / 'q.db'}")
