"""Model spend: calls reserved per account and UTC day (the only SQL about spend limits).

:func:`reserve` adds calls to an account's day only if the total stays within the limit, in one
conditional ``UPDATE`` (PostgreSQL locks the row and re-checks the condition; SQLite writes one at
a time), so two requests at once can never both pass a limit that only one fits under.
:func:`release` gives back calls reserved but not made.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import ColumnElement, and_, case, select, update
from sqlmodel import Session, col

from storage.engine import Database
from storage.models import ModelSpendRow
from storage.repo import _insert
from storage.types import utcnow

__all__ = ["calls_on", "release", "reserve"]

MAX_NAME = 100


def _ensure_row(session: Session, user: str, day: date) -> None:
    stmt = _insert(session, ModelSpendRow.__table__).on_conflict_do_nothing()  # type: ignore[attr-defined]
    session.execute(
        stmt, [{"user_name": user[:MAX_NAME], "day": day, "calls": 0, "updated_at": utcnow()}]
    )


def _matches(user: str, day: date) -> ColumnElement[bool]:
    return and_(col(ModelSpendRow.user_name) == user[:MAX_NAME], col(ModelSpendRow.day) == day)


def reserve(db: Database, user: str, day: date, calls: int, *, limit: int | None) -> int | None:
    """Add ``calls`` to ``user``'s count on ``day`` if the new total is at most ``limit`` (None:
    no limit); return the new total, or None (nothing added) when it would go over."""
    if calls < 0:
        raise ValueError("calls must be >= 0")

    def _reserve(session: Session) -> int | None:
        _ensure_row(session, user, day)
        stmt = (
            update(ModelSpendRow)
            .where(_matches(user, day))
            .values(calls=col(ModelSpendRow.calls) + calls, updated_at=utcnow())
            .returning(col(ModelSpendRow.calls))
        )
        if limit is not None:
            stmt = stmt.where(col(ModelSpendRow.calls) + calls <= limit)
        total = session.execute(stmt).scalar()
        return None if total is None else int(total)

    return db.write(_reserve)


def release(db: Database, user: str, day: date, calls: int) -> None:
    """Give back ``calls`` reserved on ``day`` and not made (never below zero)."""
    if calls <= 0:
        return

    def _release(session: Session) -> None:
        current = col(ModelSpendRow.calls)
        session.execute(
            update(ModelSpendRow)
            .where(_matches(user, day))
            .values(calls=case((current >= calls, current - calls), else_=0), updated_at=utcnow())
        )

    db.write(_release)


def calls_on(db: Database, user: str, day: date) -> int:
    """The calls ``user`` has reserved on ``day`` (0 when none)."""
    stmt = select(col(ModelSpendRow.calls)).where(_matches(user, day))
    return db.read(lambda s: int(s.execute(stmt).scalar() or 0))
