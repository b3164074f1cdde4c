"""`quizbot worker`: run queued evaluation shards and monitor nights until stopped.

Workers take their jobs from the work queue in the PostgreSQL database (:mod:`storage.jobs`,
procrastinate); start as many as the model servers and machines allow, anywhere that reaches the
database. A shard is asked through the one evaluation entry point
(:func:`quizbot.evaluation.service.run_shard`), a night through the monitors' own
(:func:`quizbot.monitoring.queued.run_queued_night`).
"""

from __future__ import annotations

import asyncio

import click

from quizbot.cli.base import App, cli, database_for, split_list


@cli.command("worker")
@click.option(
    "--concurrency",
    type=click.IntRange(min=1, max=64),
    default=1,
    show_default=True,
    help="Jobs (shards, nights) this worker runs at once; each shard keeps its own requests in "
    "flight (the run's --concurrency).",
)
@click.option(
    "--queues",
    default="eval,nights",
    show_default=True,
    help="Comma-separated queues to take jobs from: eval (queued runs), nights (monitor "
    "nights queued by the scheduler with QUIZBOT_QUEUE=1).",
)
@click.pass_obj
def worker_cmd(app: App, concurrency: int, queues: str) -> None:
    """Run queued jobs until stopped (PostgreSQL only).

    SIGTERM or Ctrl-C: no new job is taken, running ones may finish for
    QUIZBOT_WORKER_GRACE_SECONDS, then go back on the queue; exits 0. A worker killed outright
    loses nothing: after QUIZBOT_QUEUE_STALL_SECONDS without its heartbeat another worker takes
    its jobs over, and answers already stored are not asked again.
    """
    from quizbot.evaluation.service import run_shard
    from quizbot.monitoring.queued import run_queued_night
    from storage.jobs import WorkerOptions, queue_names, require_queue, run_worker

    settings = app.settings
    with database_for(app) as database:
        require_queue(database, "quizbot worker")
        options = WorkerOptions(
            queues=queue_names(split_list(queues)),
            concurrency=concurrency,
            stall_seconds=settings.queue_stall_seconds,
            grace_seconds=settings.worker_grace_seconds,
        )

        async def on_shard(run_id: int, shard: int, shards: int) -> None:
            await run_shard(database, run_id, shard, shards, settings=settings)

        def on_night(monitor: str, model: str, night: str, schedules_file: str | None) -> None:
            run_queued_night(database, monitor, model, night, schedules_file, settings=settings)

        # The model client (litellm, seconds to import on a busy machine) is loaded before the
        # worker says it is ready, so its first shard starts asking at once.
        import quizbot.providers.litellm_provider  # noqa: F401

        click.echo(
            f"worker taking jobs from {', '.join(options.queues)} "
            f"({concurrency} at once); SIGTERM or Ctrl-C stops it",
            err=True,
        )
        asyncio.run(run_worker(database, options, on_shard=on_shard, on_night=on_night))
    click.echo("worker stopped", err=True)
