"""QUIZBOT_QUEUE=1: the scheduler queues each monitor night (one job per monitor and model) and
a `quizbot worker` runs it; the night's claim keeps a night queued twice from running twice.

Real parts: PostgreSQL, the scheduler's own job function, a worker subprocess, the test model
server over HTTP.
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from quizbot.monitoring.scheduler import nightly_job, scheduled_night
from schedules.config import load_monitors
from storage import Database, open_database
from storage.jobs import NIGHT_TASK, defer_night
from tests.helpers.stub import stub_server
from tests.scale.test_queue import POSTGRES_ONLY, _env, _workers

MODELS = ["openai/night-a", "openai/night-b"]
TOML = """
[[monitor]]
name = "queued"
models = ["openai/night-a", "openai/night-b"]
cron = "0 2 * * *"
kb = "clinical-core"
points = 3
anchor_points = 1
"""


def _nights(db: Database) -> list[tuple[str, str, int | None]]:
    return db.read(
        lambda s: [
            (str(model), str(status), run)
            for model, status, run in s.execute(
                text("SELECT model, status, run_id FROM monitor_night ORDER BY model")
            ).all()
        ]
    )


def _night_jobs(db: Database) -> list[tuple[str, str]]:
    return db.read(
        lambda s: [
            (str(args["model"]), str(status))
            for args, status in s.execute(
                text(
                    "SELECT args, status::text FROM procrastinate_jobs WHERE task_name = :t "
                    "ORDER BY id"
                ),
                {"t": NIGHT_TASK},
            ).all()
        ]
    )


@pytest.mark.slow
@POSTGRES_ONLY
def test_the_scheduler_queues_one_job_per_model_and_a_worker_runs_each_night_once(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schedules = tmp_path / "monitors.toml"
    schedules.write_text(TOML, encoding="utf-8")
    (spec,) = load_monitors(schedules)
    with stub_server("--answer", "true") as base:
        env = _env(database_url, tmp_path, base, QUIZBOT_QUEUE="1")
        env["QUIZBOT_MODEL_SETTINGS"] = json.dumps({m: {"api_base": base} for m in MODELS})
        for key in ("DATABASE_URL", "QUIZBOT_HOME", "QUIZBOT_QUEUE", "QUIZBOT_MODEL_SETTINGS"):
            monkeypatch.setenv(key, env[key])
        db = open_database(database_url)
        try:
            nightly_job("queued", str(schedules))
            nightly_job("queued", str(schedules))  # fired twice: still one waiting job a model
            assert _night_jobs(db) == [(MODELS[0], "todo"), (MODELS[1], "todo")]
            assert _nights(db) == []  # the scheduler itself ran nothing
            with _workers(env, [tmp_path / "worker.log"]):
                deadline = time.monotonic() + 600
                while [status for _, status, _ in _nights(db)] != ["completed", "completed"]:
                    assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
                    time.sleep(0.2)
                night = scheduled_night(spec, datetime.now().astimezone())
                # The same night queued again (a second scheduler, a retry): its claim says
                # it is done, so it is not run again.
                assert defer_night(db, "queued", MODELS[0], night.isoformat(), str(schedules))
                deadline = time.monotonic() + 300
                while _night_jobs(db):  # finished jobs leave the queue
                    assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
                    time.sleep(0.2)
            nights = _nights(db)
            assert [(model, status) for model, status, _ in nights] == [
                (MODELS[0], "completed"),
                (MODELS[1], "completed"),
            ]
            runs = db.read(lambda s: s.execute(text("SELECT count(*) FROM eval_run")).scalar_one())
            assert runs == 2  # one run a model: the night queued twice ran once
            assert "already claimed or completed" in (tmp_path / "worker.log").read_text()
        finally:
            db.dispose()
