"""The scheduler: real APScheduler jobs through the job store in the application database."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from quizbot.config import load_settings
from quizbot.domain import NightStatus
from quizbot.monitoring.scheduler import JOB_FUNC, build_scheduler, scheduled_night, start, stop
from schedules.config import MonitorSpec
from storage import Database
from storage.monitoring import get_monitor, list_nights

QUIZBOT = str(Path(sys.executable).with_name("quizbot"))
SMALL = """
[[monitor]]
name = "tiny"
models = ["baseline/always-true"]
points = 2
anchor_points = 1
cron = "0 2 * * *"
"""


@pytest.fixture
def schedules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, database_url: str) -> Path:
    path = tmp_path / "monitors.toml"
    path.write_text(SMALL)
    monkeypatch.setenv("QUIZBOT_SCHEDULES_FILE", str(path))
    monkeypatch.setenv("DATABASE_URL", database_url)
    return path


def _wait_for_nights(db: Database, name: str, count: int, timeout: float = 60) -> list[object]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            monitor = get_monitor(db, name)
        except Exception:
            monitor = None
        if monitor is not None and monitor.id is not None:
            nights = list_nights(db, monitor.id, status=NightStatus.COMPLETED)
            if len(nights) >= count:
                return list(nights)
        time.sleep(0.2)
    raise AssertionError(f"no completed night of {name} within {timeout} s")


def test_a_job_runs_through_the_database_job_store(db: Database, schedules: Path) -> None:
    scheduler = build_scheduler(db)
    scheduler.start()
    try:
        scheduler.add_job(JOB_FUNC, "date", run_date=datetime.now(UTC) + timedelta(seconds=1),
                          args=["tiny", str(schedules)], id="monitor:tiny")  # fmt: skip
        (night,) = _wait_for_nights(db, "tiny", 1)
    finally:
        stop(scheduler)
    spec = MonitorSpec(name="tiny", models=("baseline/always-true",), cron="0 2 * * *")
    assert night.scheduled_date == scheduled_night(spec, datetime.now(UTC))  # type: ignore[attr-defined]


def test_jobs_survive_a_restart_and_a_missed_night_runs_once(db: Database, schedules: Path) -> None:
    settings = load_settings()
    scheduler, jobs = start(db, settings)
    assert jobs == ["monitor:tiny"]
    stored = scheduler.get_job("monitor:tiny")
    assert stored is not None and stored.next_run_time > datetime.now(UTC)
    stop(scheduler, wait=False)

    # While "down", three nights were missed: move the stored next run three days back.
    offline = build_scheduler(db)
    offline.start(paused=True)
    offline.modify_job("monitor:tiny", next_run_time=datetime.now(UTC) - timedelta(days=3))
    stop(offline, wait=False)  # paused: leaves the stored job as modified

    scheduler, _ = start(db, load_settings())  # unchanged job: kept as stored
    try:
        nights = _wait_for_nights(db, "tiny", 1)
        time.sleep(2)  # a second (wrong) catch-up run would show up by now
        monitor = get_monitor(db, "tiny")
        assert monitor.id is not None
        assert len(list_nights(db, monitor.id)) == 1, "coalesced: the missed nights run once"
        job = scheduler.get_job("monitor:tiny")
        assert job is not None and job.next_run_time > datetime.now(UTC)
    finally:
        stop(scheduler)
    assert len(nights) == 1


def test_a_changed_or_removed_monitor_changes_its_job(db: Database, schedules: Path) -> None:
    scheduler, _ = start(db, load_settings())
    stop(scheduler, wait=False)
    schedules.write_text(SMALL.replace('"0 2 * * *"', '"30 4 * * 1"').replace("tiny", "weekly"))
    scheduler, jobs = start(db, load_settings())
    try:
        assert jobs == ["monitor:weekly"]
        assert scheduler.get_job("monitor:tiny") is None
        job = scheduler.get_job("monitor:weekly")
        assert job is not None and job.next_run_time.weekday() == 0
    finally:
        stop(scheduler, wait=False)


def test_scheduled_night_is_the_latest_fire_time_not_the_wall_clock() -> None:
    spec = MonitorSpec(name="n", models=("baseline/random",), cron="0 2 * * *")
    # Delayed to 01:00 the next day: still the previous night's run.
    assert scheduled_night(spec, datetime(2026, 5, 3, 1, 0, tzinfo=UTC)) == date(2026, 5, 2)
    assert scheduled_night(spec, datetime(2026, 5, 3, 2, 0, tzinfo=UTC)) == date(2026, 5, 3)


def test_two_processes_never_run_the_same_night_twice(
    db: Database, schedules: Path, database_url: str
) -> None:
    command = [QUIZBOT, "monitor", "run", "tiny", "--date", "2026-02-01", "--json"]
    procs = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outcomes = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outcomes.append(out)
    assert sum('"status": "completed"' in out for out in outcomes) == 1
    assert sum('"status": "skipped"' in out for out in outcomes) == 2
    monitor = get_monitor(db, "tiny")
    assert monitor.id is not None
    assert len(list_nights(db, monitor.id)) == 1
