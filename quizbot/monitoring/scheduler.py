"""The nightly scheduler: APScheduler 3 with its job store in the application database.

Each enabled monitor is one cron job (``monitor:NAME``) stored in the ``apscheduler_jobs`` table,
so jobs and their next run times survive restarts. Every job is ``coalesce=True`` with no
misfire grace limit: nights missed while the scheduler was down run **once** when it starts
again, never once per missed night.

Jobs are synchronised with the schedules file at start-up without resetting them: a job whose
cron, zone and arguments are unchanged is left as stored, so a missed run is still due; a changed
one is replaced; a monitor removed from the file loses its job.

Two schedulers on one database may both fire a job; the per-night claim in
:mod:`quizbot.monitoring.nights` makes sure only one of them runs it.

With ``QUIZBOT_QUEUE=1`` (PostgreSQL only) a job runs no night itself: it queues one job per
model for ``quizbot worker`` processes (:mod:`quizbot.monitoring.queued`).

The night a job runs for is the date of the latest scheduled time at or before now, in the
monitor's zone (:func:`scheduled_night`): a run delayed past midnight still reports the night it
was scheduled for.
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import STATE_PAUSED, BaseScheduler
from apscheduler.triggers.cron import CronTrigger

from quizbot.config import Settings, load_settings
from quizbot.monitoring.nights import run_monitor, sync_monitors
from schedules.config import (
    MonitorSpec,
    cron_trigger,
    find_monitor,
    load_monitors,
    schedules_path,
)
from storage import Database, open_database

__all__ = [
    "JOB_PREFIX",
    "JOB_TABLE",
    "build_scheduler",
    "nightly_job",
    "scheduled_night",
    "start",
    "stop",
    "sync_jobs",
    "trigger_for",
]

log = logging.getLogger(__name__)

JOB_TABLE = "apscheduler_jobs"
JOB_PREFIX = "monitor:"
# By reference: the job store keeps the name, not code.
JOB_FUNC = "quizbot.monitoring.scheduler:nightly_job"
_LOOKBACK = timedelta(days=62)  # long enough for a monthly cron


def trigger_for(spec: MonitorSpec) -> CronTrigger:
    """The cron trigger of a monitor, in its time zone (crontab weekday numbers)."""
    return cron_trigger(spec.cron, spec.tz)


def scheduled_night(spec: MonitorSpec, now: datetime) -> date:
    """The date (in the monitor's zone) of the latest scheduled run at or before ``now``."""
    trigger = trigger_for(spec)
    now = now.astimezone(spec.tz)
    fire = trigger.get_next_fire_time(None, now - _LOOKBACK)
    latest = None
    while fire is not None and fire <= now:
        latest = fire
        fire = trigger.get_next_fire_time(fire, fire + timedelta(seconds=1))
    return (latest or now).astimezone(spec.tz).date()


def nightly_job(name: str, schedules_file: str | None = None) -> None:
    """The job the scheduler runs: one night of monitor ``name`` for every model.

    Reads settings and the schedules file afresh, so a job stored last week runs today's
    definition. Errors are logged, never raised into the scheduler.
    """
    try:
        settings = load_settings()
        path = Path(schedules_file) if schedules_file else schedules_path(settings)
        spec = find_monitor(load_monitors(path), name)
        now = datetime.now(UTC)  # the real clock: APScheduler fired this job by it
        night = scheduled_night(spec, now)
        db = open_database(settings.effective_database_url, settings.engine_options())
        try:
            if settings.queue:  # QUIZBOT_QUEUE=1: workers run the night, one job per model
                from quizbot.monitoring.queued import enqueue_nights  # noqa: PLC0415

                jobs = enqueue_nights(db, spec, night, path)
                log.info("monitor %s, night %s: %d job(s) queued", name, night, len(jobs))
                return
            for result in run_monitor(db, spec, when=night, now=now, settings=settings):
                log.info(
                    "monitor %s, %s, night %s: %s %s",
                    name, result.model, night, result.status, result.message,
                )  # fmt: skip
        finally:
            db.dispose()
    except Exception:
        log.exception("monitor %s: the nightly job failed", name)


def _job_kwargs(spec: MonitorSpec, source: Path) -> dict[str, Any]:
    return {
        "func": JOB_FUNC,
        "trigger": trigger_for(spec),
        "id": f"{JOB_PREFIX}{spec.name}",
        "name": f"monitor {spec.name}",
        "args": [spec.name, str(source)],
        "coalesce": True,
        "misfire_grace_time": None,
        "max_instances": 1,
        "replace_existing": True,
    }


def sync_jobs(scheduler: BaseScheduler, specs: list[MonitorSpec], source: Path) -> list[str]:
    """Make the stored jobs match ``specs`` without resetting unchanged ones; return job ids."""
    wanted = {f"{JOB_PREFIX}{s.name}": s for s in specs if s.enabled}
    for job in scheduler.get_jobs():
        if job.id.startswith(JOB_PREFIX) and job.id not in wanted:
            log.info("removing the job of monitor %s (no longer in the schedules file)", job.id)
            scheduler.remove_job(job.id)
    for job_id, spec in wanted.items():
        kwargs = _job_kwargs(spec, source)
        stored = scheduler.get_job(job_id)
        if (
            stored is not None
            and str(stored.trigger) == str(kwargs["trigger"])
            and list(stored.args) == kwargs["args"]
        ):
            continue  # unchanged: keep its next run time, so a missed night is still due
        scheduler.add_job(**kwargs)
    return sorted(wanted)


def build_scheduler(db: Database, *, timezone: Any = UTC) -> BackgroundScheduler:
    """A scheduler whose jobs live in ``db`` (not started); jobs run in its thread pool."""
    store = SQLAlchemyJobStore(engine=db.engine, tablename=JOB_TABLE)
    return BackgroundScheduler(
        jobstores={"default": store},
        job_defaults={"coalesce": True, "misfire_grace_time": None, "max_instances": 1},
        timezone=timezone,
    )


def stop(scheduler: BaseScheduler, *, wait: bool = True) -> None:
    """Shut a scheduler down without firing anything on the way out.

    APScheduler 3 wakes a paused scheduler's thread when shutting down, and that last pass runs
    due jobs into the already stopped executor, losing them (their next run time moves on).
    Detaching the job store first leaves the stored jobs exactly as they were.
    """
    if scheduler.state == STATE_PAUSED:
        scheduler.remove_jobstore("default", shutdown=False)
    scheduler.shutdown(wait=wait)


def start(db: Database, settings: Settings) -> tuple[BackgroundScheduler, list[str]]:
    """Load the schedules file, store the monitors, sync the jobs, and start the scheduler.

    The scheduler starts paused, so nothing fires while the stored jobs are compared with the
    file; then it resumes and runs whatever is due, missed nights included (once). It runs in
    background threads: ``quizbot serve`` keeps it beside the app, ``quizbot scheduler start``
    waits in the foreground until stopped. Stop it with :func:`stop`.
    """
    if settings.queue:
        from storage.jobs import require_queue  # noqa: PLC0415 - procrastinate, when queueing

        require_queue(db, "QUIZBOT_QUEUE=1")
    path = schedules_path(settings)
    specs = load_monitors(path)
    sync_monitors(db, specs, path)
    scheduler = build_scheduler(db)
    scheduler.start(paused=True)
    try:
        jobs = sync_jobs(scheduler, specs, path)
    except BaseException:
        stop(scheduler, wait=False)
        raise
    log.info("scheduler: %d monitor job(s): %s", len(jobs), ", ".join(jobs) or "none")
    scheduler.resume()
    return scheduler, jobs
