"""Storing a student's next practice plan (storage/practice_plans.py): one row per student and
KB, replaced by the newest, also when two app replicas renew the same plan at the same moment
(issue 32). Real databases: a SQLite file and PostgreSQL."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from sqlalchemy import text
from sqlmodel import Session, select

from quizbot.domain import RespondentKind
from storage import Database
from storage.models import PracticePlanRow
from storage.practice_plans import store_plan
from storage.repo import get_or_create_respondent

KB = "clinical-core"


def _student(db: Database, name: str) -> int:
    respondent = get_or_create_respondent(db, RespondentKind.HUMAN, name)
    assert respondent.id is not None
    return respondent.id


def _store(db: Database, respondent_id: int, seed: str) -> None:
    store_plan(
        db,
        respondent_id,
        KB,
        params={"topics": [], "format": "statement", "length": 10},
        basis=seed * 8,
        config={"seed": seed},
    )


def _plans(db: Database, respondent_id: int) -> list[str]:
    query = select(PracticePlanRow).where(PracticePlanRow.respondent_id == respondent_id)
    return db.read(lambda s: [str(r.config["seed"]) for r in s.exec(query).all()])


def test_a_stored_plan_is_replaced_by_the_next(db: Database) -> None:
    ann = _student(db, "ann")
    _store(db, ann, "aaaa")
    _store(db, ann, "bbbb")
    assert _plans(db, ann) == ["bbbb"]


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)  # one writer on SQLite
def test_two_replicas_storing_the_same_students_plan_at_once_both_succeed(
    db: Database,
) -> None:
    """Replica B replaces the plan in a transaction not yet committed while replica A stores
    its own: A waits for B and then replaces B's plan, as two stores one after the other would
    (it once failed on PostgreSQL: A's delete found B's row gone, and its insert then hit the
    row B had inserted)."""
    bea = _student(db, "bea")
    _store(db, bea, "old0")
    failures: list[BaseException] = []
    with Session(db.engine) as other:  # replica B, mid-transaction
        other.execute(text("DELETE FROM practice_plans WHERE respondent_id = :r"), {"r": bea})
        other.add(
            PracticePlanRow(
                respondent_id=bea, kb_name=KB, params={}, basis="b" * 64, config={"seed": "bbbb"}
            )
        )
        other.flush()

        def replica_a() -> None:
            try:
                _store(db, bea, "aaaa")
            except BaseException as exc:  # reported below, with the thread's own error
                failures.append(exc)

        a = threading.Thread(target=replica_a)
        a.start()
        _wait_blocked(db)  # A is waiting for B's lock: the overlap the test is about
        other.commit()
    a.join(timeout=30)
    assert not a.is_alive()
    assert failures == []
    assert _plans(db, bea) == ["aaaa"]


def _wait_blocked(db: Database, bound_s: float = 20.0) -> None:
    """Until a session of this database waits for a lock (replica A behind replica B)."""
    query = text(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock'"
    )
    began = time.monotonic()
    while time.monotonic() - began < bound_s:
        with db.engine.connect() as conn:
            waiting: Any = conn.execute(query).scalar_one()
        if waiting:
            return
        time.sleep(0.05)
    raise AssertionError(f"no session waited for a lock within {bound_s:.0f} s")
