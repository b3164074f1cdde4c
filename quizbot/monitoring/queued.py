"""Monitor nights through the work queue (``QUIZBOT_QUEUE=1``, PostgreSQL only).

The scheduler then does not run a night in its own process: :func:`enqueue_nights` puts one job
per monitor and model on the ``nights`` queue (:mod:`storage.jobs`), and a ``quizbot worker``
runs it with :func:`run_queued_night`, which is :func:`quizbot.monitoring.nights.run_night`
itself. The night's claim (``monitor_night``, one row per monitor x model x night) still decides
who runs it: a job queued twice, or a night also run by hand, runs once.
"""

from __future__ import annotations

import logging
from datetime import date
from pathlib import Path

from quizbot.config import Settings
from quizbot.monitoring.nights import NightResult, run_night
from schedules.config import MonitorSpec, find_monitor, load_monitors, schedules_path
from storage import Database
from storage.jobs import defer_night

__all__ = ["enqueue_nights", "run_queued_night"]

log = logging.getLogger(__name__)


def enqueue_nights(
    db: Database, spec: MonitorSpec, night: date, schedules_file: Path | None
) -> list[int]:
    """Queue monitor ``spec``'s night ``night``: one job per model; returns the job ids (a model
    whose night is already waiting is left out)."""
    source = str(schedules_file) if schedules_file is not None else None
    queued = [defer_night(db, spec.name, model, night.isoformat(), source) for model in spec.models]
    return [job for job in queued if job is not None]


def run_queued_night(
    db: Database,
    monitor: str,
    model: str,
    night: str,
    schedules_file: str | None,
    *,
    settings: Settings,
) -> NightResult:
    """Run one queued monitor x model x night (a worker's job), reading the monitor's definition
    afresh from the schedules file (the one it was queued from, else the settings' own)."""
    path = Path(schedules_file) if schedules_file else schedules_path(settings)
    spec = find_monitor(load_monitors(path), monitor)
    result = run_night(db, spec, model, date.fromisoformat(night), settings=settings)
    log.info(
        "monitor %s, %s, night %s: %s %s", monitor, model, night, result.status, result.message
    )
    return result
