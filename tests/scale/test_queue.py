"""Queued evaluation on PostgreSQL: `eval --queue`, `quizbot worker`, `runs wait`, `runs list`.

Real parts only: the commands run as subprocesses (this worktree's code), the workers take their
jobs from procrastinate's tables in a fresh PostgreSQL database, and the model is the repository's
OpenAI-compatible test server reached over HTTP through litellm. SQLite refuses the queue with an
error naming PostgreSQL.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from quizbot.cli import cli
from storage import Database, open_database
from storage.jobs import shard_jobs
from tests.helpers.stub import stub_server

ROOT = Path(__file__).resolve().parents[2]
QUIZBOT = [sys.executable, "-c", "from quizbot.cli import main; main()"]
MODEL = "openai/queue-test"
POSTGRES_ONLY = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
# Report fields that differ between two runs of the same items by design.
RUN_FIELDS = {"run_id", "name"}


def _env(database_url: str, tmp_path: Path, base: str, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": database_url,
        "QUIZBOT_HOME": str(tmp_path / "home"),
        "QUIZBOT_MODEL_SETTINGS": json.dumps({MODEL: {"api_base": base}}),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "QUIZBOT_QUEUE_STALL_SECONDS": "2",  # a killed worker's shard goes back in ~2-3 s
        **extra,
    }


def _quizbot(
    env: dict[str, str], *args: str, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*QUIZBOT, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
        check=False,
    )  # fmt: skip


@contextmanager
def _workers(env: dict[str, str], logs: list[Path]) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Worker processes (one per log file); any still running afterwards is killed."""
    procs = [
        subprocess.Popen(
            [*QUIZBOT, "worker"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log.open("wb"),
        )
        for log in logs
    ]
    try:
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)


def _items(env: dict[str, str], tmp_path: Path, n: int) -> tuple[Path, Path]:
    """``n`` generated statements, and the model server's oracle for them: the right answer,
    except a wrong one for about a third of them (chosen by a hash of the item's id, so every
    run of the same items gets the same answers)."""
    made = tmp_path / "generated.jsonl"
    points = str(n // 15 + 1)
    done = _quizbot(
        env, "generate", "--kb", "clinical-core", "--points", points, "--out", str(made)
    )
    assert done.returncode == 0, done.stderr
    lines = made.read_text(encoding="utf-8").splitlines()[:n]
    assert len(lines) == n
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join(lines) + "\n", encoding="utf-8")
    oracle = []
    for line in lines:
        item = json.loads(line)
        wrong = hashlib.sha256(item["id"].encode()).digest()[0] % 3 == 0
        oracle.append(json.dumps({"text": item["text"], "label": item["label"] != wrong}))
    answers = tmp_path / "oracle.jsonl"
    answers.write_text("\n".join(oracle) + "\n", encoding="utf-8")
    return items, answers


def _stored(db: Database, run_id: int) -> tuple[int, int, int]:
    """(answers stored, distinct items answered, error answers) of a run."""
    row = db.read(
        lambda s: s.execute(
            text(
                "SELECT count(*), count(DISTINCT item_id), "
                "count(*) FILTER (WHERE outcome = 'error') FROM response WHERE run_id = :r"
            ),
            {"r": run_id},
        ).one()
    )
    return int(row[0]), int(row[1]), int(row[2])


def _figures(report: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in report.items() if key not in RUN_FIELDS}


def _until(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.slow
@POSTGRES_ONLY
def test_a_worker_killed_mid_run_loses_nothing_and_the_figures_equal_an_in_process_run(
    database_url: str, tmp_path: Path
) -> None:
    """The issue's done-when: 2 workers, 2,000 queued items, one worker killed with kill -9
    while both hold a shard; `runs wait` exits 0, every item is stored exactly once, and the
    report equals an in-process run of the same items."""
    n = 2000
    items, oracle = _items(_env(database_url, tmp_path, "http://127.0.0.1:9/v1"), tmp_path, n)
    with stub_server("--oracle", str(oracle), "--policy", "correct", "--latency-ms", "20") as base:
        env = _env(database_url, tmp_path, base)
        logs = [tmp_path / "worker-a.log", tmp_path / "worker-b.log"]
        db = open_database(database_url)
        try:
            with _workers(env, logs) as (victim, _survivor):
                # Both workers ready (the model client loaded) before the run is queued: on a
                # loaded machine one may otherwise start so late that the other asks it all.
                _until(
                    lambda: all("worker taking jobs" in log.read_text() for log in logs),
                    600,
                    "both workers ready",
                )
                queued = _quizbot(
                    env, "eval", "--model", MODEL, "--api-base", base, "--items", str(items),
                    "--concurrency", "8", "--queue", "--shards", "6", "--json",
                )  # fmt: skip
                assert queued.returncode == 0, queued.stderr
                answer = json.loads(queued.stdout)
                assert answer == {"run_id": answer["run_id"], "status": "queued", "shards": 6}
                run_id = int(answer["run_id"])
                # Kill one worker while both hold a shard and the run is well under way.
                _until(
                    lambda: sum(j.status == "doing" for j in shard_jobs(db, [run_id])) == 2,
                    600,
                    "both workers asking",
                )
                victim.send_signal(signal.SIGKILL)
                victim.wait(timeout=30)
                assert _stored(db, run_id)[0] < n, "the run ended before the kill"
                waited = _quizbot(env, "runs", "wait", str(run_id), "--timeout", "600", "--json")
                assert waited.returncode == 0, waited.stderr + logs[1].read_text()
            assert _stored(db, run_id) == (n, n, 0)  # every item once, none failed
            log = logs[1].read_text()
            assert "queued again" in log  # the survivor took the dead worker's shard over
            assert shard_jobs(db, [run_id]) == []  # finished shards leave the queue
        finally:
            db.dispose()
        in_process = _quizbot(
            env, "eval", "--model", MODEL, "--api-base", base, "--items", str(items),
            "--concurrency", "8", "--json",
        )  # fmt: skip
        assert in_process.returncode == 0, in_process.stderr
    queued_report = json.loads(waited.stdout)
    reference = json.loads(in_process.stdout)
    assert queued_report["status"] == "completed" and queued_report["n_items"] == n
    assert 0.55 < queued_report["metrics"]["average_accuracy"] < 0.8  # the oracle's third wrong
    assert _figures(queued_report) == _figures(reference)


@pytest.mark.slow
@POSTGRES_ONLY
def test_sigterm_releases_the_running_shard_and_the_worker_exits_0(
    database_url: str, tmp_path: Path
) -> None:
    """SIGTERM with no grace left: the running shard goes back on the queue (never failed, the
    run not interrupted), the worker exits 0, and another worker finishes the run."""
    with stub_server("--answer", "true", "--latency-ms", "40") as base:
        env = _env(database_url, tmp_path, base, QUIZBOT_WORKER_GRACE_SECONDS="0")
        items, _ = _items(env, tmp_path, 120)
        queued = _quizbot(
            env, "eval", "--model", MODEL, "--items", str(items), "--concurrency", "2",
            "--queue", "--shards", "1", "--json",
        )  # fmt: skip
        assert queued.returncode == 0, queued.stderr
        run_id = int(json.loads(queued.stdout)["run_id"])
        db = open_database(database_url)
        try:
            with _workers(env, [tmp_path / "first.log"]) as (first,):
                _until(lambda: _stored(db, run_id)[0] >= 5, 300, "the first answers")
                first.send_signal(signal.SIGTERM)
                assert first.wait(timeout=60) == 0, (tmp_path / "first.log").read_text()
            (job,) = shard_jobs(db, [run_id])
            assert job.status == "todo"  # released, not failed
            stored = _stored(db, run_id)[0]
            assert 5 <= stored < 120
            listed = _quizbot(env, "runs", "list", "--json")
            (row,) = json.loads(listed.stdout)["runs"]
            assert row["status"] == "running" and row["shards"]["queued"] == 1
            with _workers(env, [tmp_path / "second.log"]):
                waited = _quizbot(env, "runs", "wait", str(run_id), "--timeout", "300")
                assert waited.returncode == 0, waited.stderr
            assert _stored(db, run_id) == (120, 120, 0)
        finally:
            db.dispose()


@POSTGRES_ONLY
def test_runs_wait_times_out_with_124_and_a_failed_run_exits_69(
    database_url: str, tmp_path: Path
) -> None:
    """No worker: `runs wait` gives up with 124. A model that cannot be reached: the queued run
    is failed by its shard, and `runs wait` exits 69 as `eval` does."""
    with stub_server("--status", "404") as base:
        env = _env(database_url, tmp_path, base)
        items, _ = _items(env, tmp_path, 30)
        queued = _quizbot(
            env, "eval", "--model", MODEL, "--items", str(items), "--queue", "--shards", "2"
        )
        assert queued.returncode == 0, queued.stderr
        assert queued.stdout.startswith("run ") and "queued in 2 shard(s)" in queued.stdout
        run_id = queued.stdout.split()[1]
        timed_out = _quizbot(env, "runs", "wait", run_id, "--timeout", "0.5")
        assert timed_out.returncode == 124, timed_out.stderr
        assert "has not finished after 0.5 s (0/30 answers stored)" in timed_out.stderr
        with _workers(env, [tmp_path / "w.log"]):
            failed = _quizbot(env, "runs", "wait", run_id, "--timeout", "300")
        assert failed.returncode == 69, failed.stderr
        assert f"run {run_id} failed" in failed.stderr and "Traceback" not in failed.stderr


def test_the_queue_schema_comes_with_the_migrations_on_postgresql_only(db: Database) -> None:
    tables = set(
        db.read(
            lambda s: s.execute(
                text(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_name LIKE 'procrastinate%'"
                )
                if db.backend == "postgresql"
                else text("SELECT name FROM sqlite_master WHERE name LIKE 'procrastinate%'")
            ).scalars()
        )
    )
    expected = {
        "procrastinate_events",
        "procrastinate_jobs",
        "procrastinate_periodic_defers",
        "procrastinate_workers",
    }
    assert tables == (expected if db.backend == "postgresql" else set())


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_sqlite_refuses_the_queue_with_an_error_naming_postgresql(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    runner = CliRunner()
    queued = runner.invoke(
        cli, ["eval", "--model", "baseline/random", "--kb", "clinical-core", "--points", "1",
              "--queue"],
    )  # fmt: skip
    worker = runner.invoke(cli, ["worker"])
    schedules = tmp_path / "monitors.toml"
    schedules.write_text("", encoding="utf-8")
    monkeypatch.setenv("QUIZBOT_QUEUE", "1")
    monkeypatch.setenv("QUIZBOT_SCHEDULES_FILE", str(schedules))
    scheduler = runner.invoke(cli, ["scheduler", "start"])
    for result, what in (
        (queued, "eval --queue"),
        (worker, "quizbot worker"),
        (scheduler, "QUIZBOT_QUEUE=1"),
    ):
        assert result.exit_code == 78, (what, result.output)
        assert f"error: {what} needs PostgreSQL" in result.stderr, result.stderr
        assert "Traceback" not in result.output
    listed = runner.invoke(cli, ["runs", "list", "--json"])
    assert json.loads(listed.stdout)["runs"] == []  # nothing was recorded
