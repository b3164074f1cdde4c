"""The figures ``/metrics`` exposes, read from the database in a few grouped queries.

Everything here is a count or a night's stored summary: the same answer from every app process
sharing the database, so Prometheus may scrape any of them. Nothing names a person: practice
answers are counted by outcome only, never by student, cohort or session.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import col

from storage.engine import Database
from storage.models import (
    EvalRun,
    IncidentState,
    Monitor,
    MonitorIncident,
    MonitorNight,
    NightStatus,
    Response,
)

__all__ = ["Counts", "LastNight", "counts", "last_nights"]


@dataclass(frozen=True)
class LastNight:
    """The latest night of one monitor x model with a given outcome."""

    monitor: str
    model: str
    night: date
    status: str
    summary: dict[str, Any] | None
    claimed_at: datetime
    finished_at: datetime | None


def last_nights(db: Database, statuses: tuple[NightStatus, ...]) -> list[LastNight]:
    """Per monitor x model, its latest night whose status is one of ``statuses``."""
    wanted = [s.value for s in statuses]
    latest = (
        select(
            col(MonitorNight.monitor_id).label("monitor_id"),
            col(MonitorNight.model).label("model"),
            func.max(col(MonitorNight.scheduled_date)).label("night"),
        )
        .where(col(MonitorNight.status).in_(wanted))
        .group_by(col(MonitorNight.monitor_id), col(MonitorNight.model))
        .subquery()
    )
    query = (
        select(
            col(Monitor.name), col(MonitorNight.model), col(MonitorNight.scheduled_date),
            col(MonitorNight.status), col(MonitorNight.summary), col(MonitorNight.created_at),
            col(MonitorNight.finished_at),
        )
        .join(Monitor, col(Monitor.id) == col(MonitorNight.monitor_id))
        .join(
            latest,
            (latest.c.monitor_id == col(MonitorNight.monitor_id))
            & (latest.c.model == col(MonitorNight.model))
            & (latest.c.night == col(MonitorNight.scheduled_date)),
        )
        .where(col(MonitorNight.status).in_(wanted))
        .order_by(col(Monitor.name), col(MonitorNight.model))
    )  # fmt: skip
    return db.read(lambda s: [LastNight(*row) for row in s.execute(query).all()])


@dataclass(frozen=True)
class Counts:
    """Every count ``/metrics`` shows, by its labels."""

    nights: dict[tuple[str, str, str], int]  # (monitor, model, status)
    incidents: dict[tuple[str, str, str, str], int]  # (monitor, model, severity, state), active
    runs: dict[str, int]  # status
    calls: dict[str, int]  # outcome of the answers of runs (models)
    practice: dict[str, int]  # outcome of practice answers (people; counts only)


def counts(db: Database) -> Counts:
    """Read every count in one transaction (five grouped queries)."""
    nights = (
        select(col(Monitor.name), col(MonitorNight.model), col(MonitorNight.status), func.count())
        .join(Monitor, col(Monitor.id) == col(MonitorNight.monitor_id))
        .group_by(col(Monitor.name), col(MonitorNight.model), col(MonitorNight.status))
    )
    active = [IncidentState.OPEN.value, IncidentState.ACKNOWLEDGED.value]
    incidents = (
        select(
            col(Monitor.name), col(MonitorIncident.model), col(MonitorIncident.severity),
            col(MonitorIncident.state), func.count(),
        )
        .join(Monitor, col(Monitor.id) == col(MonitorIncident.monitor_id))
        .where(col(MonitorIncident.state).in_(active))
        .group_by(
            col(Monitor.name), col(MonitorIncident.model), col(MonitorIncident.severity),
            col(MonitorIncident.state),
        )
    )  # fmt: skip
    runs = select(col(EvalRun.status), func.count()).group_by(col(EvalRun.status))
    calls = (
        select(col(Response.outcome), func.count())
        .where(col(Response.run_id).is_not(None))
        .group_by(col(Response.outcome))
    )
    practice = (
        select(col(Response.outcome), func.count())
        .where(col(Response.quiz_session_id).is_not(None))
        .group_by(col(Response.outcome))
    )

    def _do(session: Any) -> Counts:
        return Counts(
            nights={(m, mod, st): n for m, mod, st, n in session.execute(nights).all()},
            incidents={
                (m, mod, sev, st): n for m, mod, sev, st, n in session.execute(incidents).all()
            },
            runs={status: n for status, n in session.execute(runs).all()},
            calls={outcome: n for outcome, n in session.execute(calls).all()},
            practice={outcome: n for outcome, n in session.execute(practice).all()},
        )

    return db.read(_do)
