"""Database.unit: several repository calls in one transaction, on both backends."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from storage import Database
from storage.engine import UnitBrokenError


def _table(db: Database) -> None:
    db.write(lambda s: s.execute(text("CREATE TABLE uow (x INTEGER NOT NULL)")))


def _insert(db: Database, x: int) -> None:
    db.write(lambda s: s.execute(text("INSERT INTO uow (x) VALUES (:x)"), {"x": x}))


def _values(db: Database) -> list[int]:
    return db.read(lambda s: [r[0] for r in s.execute(text("SELECT x FROM uow ORDER BY x"))])


def _half_then_fails(session: Session) -> None:
    """A write whose first insert succeeds and whose second fails (NOT NULL)."""
    session.execute(text("INSERT INTO uow (x) VALUES (99)"))
    session.execute(text("INSERT INTO uow (x) VALUES (NULL)"))


def _count_commits(db: Database) -> list[int]:
    commits = [0]

    @event.listens_for(db.engine, "commit")
    def _on_commit(_conn: Any) -> None:
        commits[0] += 1

    return commits


def test_a_unit_commits_once_and_its_reads_see_its_writes(db: Database) -> None:
    _table(db)
    commits = _count_commits(db)

    def work() -> list[int]:
        _insert(db, 1)
        _insert(db, 2)
        seen = _values(db)  # inside the unit: its own writes, not yet committed
        _insert(db, 3)
        return seen

    assert db.unit(work) == [1, 2]
    assert commits[0] == 1
    assert _values(db) == [1, 2, 3]


def test_the_same_calls_outside_a_unit_commit_each(db: Database) -> None:
    """The contrast that makes the test above mean something."""
    _table(db)
    commits = _count_commits(db)
    _insert(db, 1)
    _insert(db, 2)
    assert commits[0] == 2


def test_a_failing_unit_leaves_nothing(db: Database) -> None:
    _table(db)

    def work() -> None:
        _insert(db, 1)
        _insert(db, 2)
        raise ValueError("late failure")

    with pytest.raises(ValueError, match="late failure"):
        db.unit(work)
    assert _values(db) == []


def test_a_caught_failure_inside_a_unit_undoes_only_its_own_write(db: Database) -> None:
    """A write that fails and is caught (as the spaced-review hook does) rolls back to its
    savepoint; the unit's other writes commit, on PostgreSQL too (no aborted transaction)."""
    _table(db)

    def work() -> None:
        _insert(db, 1)
        with contextlib.suppress(Exception):  # the point of the test
            db.write(_half_then_fails)
        _insert(db, 2)

    db.unit(work)
    assert _values(db) == [1, 2]


def _savepoints(db: Database) -> list[str]:
    seen: list[str] = []

    @event.listens_for(db.engine, "before_cursor_execute")
    def _on_statement(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "SAVEPOINT" in statement.upper():
            seen.append(statement)

    return seen


def test_a_write_without_savepoint_runs_in_the_units_transaction(db: Database) -> None:
    _table(db)
    savepoints = _savepoints(db)

    def work() -> None:
        db.write(lambda s: s.execute(text("INSERT INTO uow (x) VALUES (1)")), savepoint=False)
        assert savepoints == []  # the round trips it exists to save
        _insert(db, 2)
        assert savepoints  # the contrast: a default write takes one

    db.unit(work)
    assert _values(db) == [1, 2]


def test_a_caught_failure_of_a_write_without_savepoint_commits_nothing(db: Database) -> None:
    """What the savepoint would have undone cannot be: the unit's later statements and the
    unit itself refuse, so neither its earlier writes nor half of the failed one commit
    (on SQLite the failed write's first insert would otherwise stay in the transaction)."""
    _table(db)

    def caught_then_goes_on() -> None:
        _insert(db, 1)
        with contextlib.suppress(Exception):  # the misuse the guard is for
            db.write(_half_then_fails, savepoint=False)
        _insert(db, 2)

    with pytest.raises(UnitBrokenError, match="without a savepoint failed"):
        db.unit(caught_then_goes_on)
    assert _values(db) == []

    def caught_then_returns() -> None:
        _insert(db, 1)
        with contextlib.suppress(Exception):
            db.write(_half_then_fails, savepoint=False)

    with pytest.raises(UnitBrokenError):
        db.unit(caught_then_returns)
    assert _values(db) == []


def test_a_failure_of_a_write_without_savepoint_ends_the_unit_with_its_error(
    db: Database,
) -> None:
    _table(db)

    def work() -> None:
        _insert(db, 1)
        db.write(lambda s: s.execute(text("INSERT INTO uow (x) VALUES (NULL)")), savepoint=False)

    with pytest.raises(IntegrityError):
        db.unit(work)
    assert _values(db) == []
    _insert(db, 3)  # the database is usable afterwards
    assert _values(db) == [3]


def test_a_unit_inside_a_unit_joins_it(db: Database) -> None:
    _table(db)
    commits = _count_commits(db)

    def inner() -> None:
        _insert(db, 2)

    def outer() -> None:
        _insert(db, 1)
        db.unit(inner)
        raise ValueError("outer fails after the inner unit returned")

    with pytest.raises(ValueError):
        db.unit(outer)
    assert commits[0] == 0  # the inner unit did not commit on its own
    assert _values(db) == []
