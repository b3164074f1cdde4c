"""The work queue: procrastinate jobs in the application's own PostgreSQL database.

quizbot does not run a queue of its own: queued evaluation shards and monitor nights are
`procrastinate <https://procrastinate.readthedocs.io>`_ jobs, whose tables live beside
quizbot's (migration 0022 applies procrastinate's schema) and need no broker. This module is the
only one that imports procrastinate; code above it defers jobs and runs a worker through the
plain functions here:

* :func:`defer_shards` puts a run's K shard jobs on the ``eval`` queue, :func:`defer_night` one
  monitor x model x night on the ``nights`` queue (one waiting job per night at most);
* :func:`shard_jobs` reads the shard jobs of runs (``runs list``, ``runs wait``);
* :func:`run_worker` runs jobs until SIGTERM or SIGINT (procrastinate's worker: LISTEN/NOTIFY
  and polling, heartbeats, graceful shutdown). A job still running after the grace period is
  cancelled and put back on the queue (released), never lost; a job that raised is retried with
  backoff up to :attr:`WorkerOptions.attempts` times.

A worker killed outright (``kill -9``, a lost machine) stops sending heartbeats; every live
worker looks, under one PostgreSQL advisory lock so that two never requeue the same job, for jobs
held by a worker silent for :attr:`WorkerOptions.stall_seconds` and puts them back on the queue
(procrastinate's stalled-job API). Whatever the dead worker already stored is not asked again:
the shard's run skips stored items.

SQLite has no queue: :func:`require_queue` names PostgreSQL.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from procrastinate import App, BaseRetryStrategy, PsycopgConnector, RetryDecision
from procrastinate.exceptions import AlreadyEnqueued, JobAborted
from procrastinate.jobs import Job
from procrastinate.schema import SchemaManager
from sqlalchemy import text
from sqlalchemy.engine import make_url

from quizbot.errors import ConfigError
from storage.engine import Database

__all__ = [
    "EVAL_QUEUE",
    "NIGHTS_QUEUE",
    "NIGHT_TASK",
    "QUEUES",
    "SHARD_TASK",
    "ShardJob",
    "WorkerOptions",
    "defer_night",
    "defer_shards",
    "queue_schema",
    "require_queue",
    "run_worker",
    "shard_jobs",
]

log = logging.getLogger(__name__)
# "Deferred 1 job" per job queued: the command's own output says what was queued.
logging.getLogger("procrastinate.jobs").setLevel(logging.WARNING)
logging.getLogger("procrastinate.blueprints").setLevel(logging.WARNING)

EVAL_QUEUE = "eval"
NIGHTS_QUEUE = "nights"
QUEUES = (EVAL_QUEUE, NIGHTS_QUEUE)
SHARD_TASK = "quizbot.eval_shard"
NIGHT_TASK = "quizbot.monitor_night"
_REAPER_LOCK = 0x71756972  # "quir": one worker at a time requeues stalled jobs

ShardHandler = Callable[[int, int, int], Awaitable[None]]
"""(run id, shard index, shard count) -> None: ask and store one shard of a queued run."""
NightHandler = Callable[[str, str, str, str | None], None]
"""(monitor, model, night as ISO date, schedules file or None) -> None: one monitor night."""


def queue_schema() -> str:
    """procrastinate's schema (tables, types, functions, triggers) as one SQL script."""
    return SchemaManager.get_schema()


def require_queue(db: Database, what: str) -> None:
    """Raise :class:`ConfigError` unless ``db`` is PostgreSQL, which the work queue lives in."""
    if db.backend != "postgresql":
        raise ConfigError(
            f"{what} needs PostgreSQL: the work queue lives in the database, and this one is "
            f"SQLite ({db.masked_url})",
            hint="set DATABASE_URL=postgresql+psycopg://USER:PASSWORD@HOST:5432/DBNAME and run "
            "`quizbot db upgrade`; without a queue, run it in this process (leave out --queue "
            "and QUIZBOT_QUEUE)",
        )


def _conninfo(db: Database) -> str:
    """The libpq connection string of ``db`` (its SQLAlchemy URL less the driver name)."""
    return make_url(db.url).set(drivername="postgresql").render_as_string(hide_password=False)


def _app(db: Database, *, pool_size: int = 2) -> App:
    connector = PsycopgConnector(conninfo=_conninfo(db), min_size=1, max_size=max(2, pool_size))
    return App(connector=connector)


def _shard_lock(run_id: int, shard: int) -> str:
    return f"run:{run_id}:shard:{shard}"


def defer_shards(db: Database, run_id: int, shards: int) -> list[int]:
    """Queue the ``shards`` jobs of run ``run_id`` on the ``eval`` queue; return their job ids.

    Each shard holds a lock of its own, so two jobs of one shard never run at once, and a
    shard already waiting is not queued twice (its id is left out).
    """
    require_queue(db, "a queued run")
    app = _app(db)
    ids: list[int] = []
    with app.open():
        for shard in range(shards):
            lock = _shard_lock(run_id, shard)
            deferrer = app.configure_task(
                SHARD_TASK, queue=EVAL_QUEUE, lock=lock, queueing_lock=lock
            )
            try:
                ids.append(deferrer.defer(run_id=run_id, shard=shard, shards=shards))
            except AlreadyEnqueued:
                continue
    return ids


def defer_night(
    db: Database, monitor: str, model: str, night: str, schedules_file: str | None
) -> int | None:
    """Queue one monitor x model x night on the ``nights`` queue; ``None`` if it is already
    waiting (the night's claim keeps it from running twice anyway)."""
    require_queue(db, "QUIZBOT_QUEUE=1")
    lock = f"night:{monitor}:{model}:{night}"
    app = _app(db)
    with app.open():
        deferrer = app.configure_task(NIGHT_TASK, queue=NIGHTS_QUEUE, queueing_lock=lock)
        try:
            return deferrer.defer(
                monitor=monitor, model=model, night=night, schedules_file=schedules_file
            )
        except AlreadyEnqueued:
            return None


@dataclass(frozen=True)
class ShardJob:
    """One shard job of a queued run, as the queue holds it."""

    job_id: int
    run_id: int
    shard: int
    shards: int
    status: str  # procrastinate's: todo, doing, succeeded, failed, cancelled, aborted
    attempts: int
    worker_id: int | None


def shard_jobs(db: Database, run_ids: Sequence[int] | None = None) -> list[ShardJob]:
    """The shard jobs of ``run_ids`` (every run when ``None``), oldest first; none on SQLite."""
    if db.backend != "postgresql":
        return []
    wanted = "" if run_ids is None else "AND (args->>'run_id')::bigint = ANY(:runs)"
    stmt = text(
        "SELECT id, (args->>'run_id')::bigint, (args->>'shard')::int, (args->>'shards')::int, "
        "status::text, attempts, worker_id FROM procrastinate_jobs "
        f"WHERE task_name = :task {wanted} ORDER BY id"
    )
    params: dict[str, Any] = {"task": SHARD_TASK}
    if run_ids is not None:
        params["runs"] = list(run_ids)
    rows = db.read(lambda s: s.execute(stmt, params).all())
    return [ShardJob(*row) for row in rows]


@dataclass(frozen=True)
class WorkerOptions:
    """How a worker runs."""

    queues: tuple[str, ...] = QUEUES
    concurrency: int = 1  # jobs at once
    stall_seconds: float = 30.0  # a worker silent this long is dead: its jobs go back
    grace_seconds: float = 30.0  # on SIGTERM, how long a running job may finish
    attempts: int = 5  # runs of a job that raises, before it is left failed
    poll_seconds: float = 1.0  # besides LISTEN/NOTIFY (requeued jobs are not notified)
    name: str | None = None

    @property
    def heartbeat_seconds(self) -> float:
        """How often a worker tells the database it is alive (well inside the stall time)."""
        return max(0.2, min(10.0, self.stall_seconds / 5))


class _Retry(BaseRetryStrategy):
    """Released jobs (cancelled at shutdown) go back at once; failed ones with backoff, up to
    ``attempts`` runs."""

    def __init__(self, attempts: int) -> None:
        self.attempts = attempts

    def get_retry_decision(self, *, exception: BaseException, job: Job) -> RetryDecision | None:
        if isinstance(exception, asyncio.CancelledError | JobAborted):
            return RetryDecision(retry_in={"seconds": 0})
        if job.attempts + 1 >= self.attempts:
            return None
        return RetryDecision(retry_in={"seconds": min(60, 2**job.attempts)})


async def _requeue_stalled(app: App, conninfo: str, options: WorkerOptions) -> None:
    """Every few seconds, put back the jobs of workers silent for ``stall_seconds``."""
    every = max(0.5, options.stall_seconds / 3)
    conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
    try:
        while True:
            cursor = await conn.execute("SELECT pg_try_advisory_lock(%s)", (_REAPER_LOCK,))
            row = await cursor.fetchone()
            if row is not None and row[0]:
                try:
                    stalled = await app.job_manager.get_stalled_jobs(
                        seconds_since_heartbeat=options.stall_seconds
                    )
                    for job in stalled:
                        log.warning(
                            "job %s (%s %s) was held by a worker silent for %.0f s: queued again",
                            job.id, job.task_name, job.task_kwargs, options.stall_seconds,
                        )  # fmt: skip
                        await app.job_manager.retry_job(job)
                finally:
                    await conn.execute("SELECT pg_advisory_unlock(%s)", (_REAPER_LOCK,))
            await asyncio.sleep(every)
    finally:
        await conn.close()


def _register(
    app: App, options: WorkerOptions, on_shard: ShardHandler, on_night: NightHandler
) -> None:
    retry = _Retry(options.attempts)

    async def run_shard(run_id: int, shard: int, shards: int) -> None:
        await on_shard(run_id, shard, shards)

    def run_night(monitor: str, model: str, night: str, schedules_file: str | None = None) -> None:
        on_night(monitor, model, night, schedules_file)

    app.task(name=SHARD_TASK, queue=EVAL_QUEUE, retry=retry)(run_shard)
    app.task(name=NIGHT_TASK, queue=NIGHTS_QUEUE, retry=retry)(run_night)


async def run_worker(
    db: Database, options: WorkerOptions, *, on_shard: ShardHandler, on_night: NightHandler
) -> None:
    """Run queued jobs until SIGTERM or SIGINT (then finish or release the running ones)."""
    require_queue(db, "quizbot worker")
    unknown = sorted(set(options.queues) - set(QUEUES))
    if unknown:
        raise ConfigError(
            f"unknown queue(s): {', '.join(unknown)}", hint=f"use {' and/or '.join(QUEUES)}"
        )
    app = _app(db, pool_size=options.concurrency + 3)
    _register(app, options, on_shard, on_night)
    name = options.name or f"{socket.gethostname()}:{os.getpid()}"
    async with app.open_async():
        reaper = asyncio.create_task(_requeue_stalled(app, _conninfo(db), options))
        try:
            await app.run_worker_async(
                queues=list(options.queues),
                name=name,
                concurrency=options.concurrency,
                shutdown_graceful_timeout=options.grace_seconds,
                fetch_job_polling_interval=options.poll_seconds,
                update_heartbeat_interval=options.heartbeat_seconds,
                stalled_worker_timeout=options.stall_seconds,
                delete_jobs="successful",
            )
        finally:
            reaper.cancel()
            await asyncio.gather(reaper, return_exceptions=True)


def queue_names(value: Iterable[str] | None) -> tuple[str, ...]:
    """The queues a worker listens to (all of them when none are named)."""
    names = tuple(v for v in (value or ()) if v)
    return names or QUEUES
