"""Releasing a monitor night whose claim was left behind by a process that died.

A claimed night is taken over automatically only after ``stale_after`` (six hours); an
administrator who knows the process is gone releases it at once: the night becomes ``failed``
(with who released it, and whose claim it was), which the next ``monitor run`` or scheduled
night takes over and resumes, keeping its run.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import NamedTuple

from sqlalchemy import Select, select, update
from sqlmodel import Session, col

from quizbot.errors import InputError, NotFoundError
from storage.engine import Database
from storage.models import Monitor, MonitorNight, NightStatus
from storage.types import utcnow

__all__ = ["ClaimedNight", "claimed_nights", "release_night"]


class ClaimedNight(NamedTuple):
    """A night as an administrator needs to see it to decide whether to release it."""

    id: int
    monitor: str
    model: str
    scheduled_date: date
    status: str
    claimed_by: str
    claimed_at: datetime


def _select() -> Select[int | None, str, str, date, str, str, datetime]:
    return select(
        col(MonitorNight.id),
        col(Monitor.name),
        col(MonitorNight.model),
        col(MonitorNight.scheduled_date),
        col(MonitorNight.status),
        col(MonitorNight.claimed_by),
        col(MonitorNight.created_at),
    ).join(Monitor, col(Monitor.id) == col(MonitorNight.monitor_id))


def claimed_nights(db: Database) -> list[ClaimedNight]:
    """Every night still ``claimed`` (running, or left behind by a process that died)."""
    stmt = _select().where(col(MonitorNight.status) == NightStatus.CLAIMED.value)
    stmt = stmt.order_by(col(MonitorNight.created_at), col(MonitorNight.id))
    return db.read(lambda s: [ClaimedNight(*row) for row in s.execute(stmt).all()])


def release_night(db: Database, night_id: int, *, released_by: str) -> ClaimedNight:
    """Mark claimed night ``night_id`` as failed so it can be taken over now; return it as it
    was. :class:`NotFoundError` for no such night, :class:`InputError` for one not claimed."""

    def _do(session: Session) -> ClaimedNight:
        row = session.execute(_select().where(col(MonitorNight.id) == night_id)).one_or_none()
        if row is None:
            raise NotFoundError(
                f"no monitor night with id {night_id}",
                hint="`quizbot monitor release` with no id lists the claimed nights",
            )
        night = ClaimedNight(*row)
        if night.status != NightStatus.CLAIMED.value:
            raise InputError(
                f"night {night_id} is {night.status}, not claimed: there is nothing to release"
            )
        session.execute(
            update(MonitorNight)
            .where(
                col(MonitorNight.id) == night_id,
                col(MonitorNight.status) == NightStatus.CLAIMED.value,
            )
            .values(
                status=NightStatus.FAILED.value,
                finished_at=utcnow(),
                error_text=(
                    f"released by {released_by}: the claim of {night.claimed_by or 'unknown'} "
                    f"(since {night.claimed_at:%Y-%m-%d %H:%M} UTC) was given up"
                ),
            )
        )
        return night

    return db.write(_do)
