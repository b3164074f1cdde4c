"""Queued evaluation throughput: 2 `quizbot worker` processes vs 1 in-process `quizbot eval`.

In one run, on a fresh PostgreSQL database and the repository's OpenAI-compatible test server
(tests/helpers/model_server.py, real HTTP through litellm): the same N statements are asked
once in-process (`quizbot eval`) and once queued (`eval --queue --shards K`, 2 workers), first
against a zero-latency server (CPU-bound: litellm's 3-4 ms a call) and then against a 50 ms
server (latency-bound). Throughput is items / (the run's finished_at - started_at), read from the
database, so process start-up is left out of both; the workers are warmed up by a small queued
run first. Prints one line per server and the ratios as JSON. Usage:

    .venv/bin/python bench/queue_eval.py [--items 2000] [--concurrency 8] [--shards 8]
        [--postgres postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from tempfile import TemporaryDirectory

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from storage import open_database  # noqa: E402
from storage.repo import get_run  # noqa: E402
from tests.helpers.stub import SERVER, stub_server  # noqa: E402

QUIZBOT = [sys.executable, "-c", "from quizbot.cli import main; main()"]
MODEL = "openai/bench-queue"


@contextmanager
def fresh_database(admin: str) -> Iterator[str]:
    """A new PostgreSQL database (dropped afterwards); yields its quizbot URL."""
    name = f"quizbot_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    info = psycopg.conninfo.conninfo_to_dict(admin)
    url = (
        f"postgresql+psycopg://{info.get('user', 'postgres')}@{info.get('host', '127.0.0.1')}:"
        f"{info.get('port', '5432')}/{name}"
    )
    try:
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def quizbot(env: dict[str, str], *args: str) -> str:
    """Run a quizbot command; its stdout (fails loudly with its stderr)."""
    done = subprocess.run(
        [*QUIZBOT, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"quizbot {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def seconds(url: str, run_id: int) -> float:
    """How long run ``run_id`` took, from its first answer asked to its last stored."""
    db = open_database(url)
    try:
        run = get_run(db, run_id)
    finally:
        db.dispose()
    assert run.status == "completed" and run.started_at and run.finished_at, run
    return (run.finished_at - run.started_at).total_seconds()


def measure(
    url: str, home: Path, items: Path, latency: int, args: argparse.Namespace
) -> dict[str, float]:
    """Items a second in-process and queued (2 workers) against a server of ``latency`` ms."""
    print(f"{latency} ms: load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])}",
          file=sys.stderr)  # fmt: skip
    server = Path(args.model_server) if args.model_server else SERVER
    with stub_server("--answer", "true", "--latency-ms", str(latency), server=server) as base:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "DATABASE_URL": url,
            "QUIZBOT_HOME": str(home),
            "QUIZBOT_MODEL_SETTINGS": json.dumps({MODEL: {"api_base": base}}),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "QUIZBOT_LOG_LEVEL": "WARNING",
        }
        common = ["--model", MODEL, "--concurrency", str(args.concurrency), "--json"]
        alone = json.loads(quizbot(env, "eval", "--items", str(items), *common))
        one = seconds(url, int(alone["run_id"]))
        workers = [
            subprocess.Popen(
                [*QUIZBOT, "worker", "--queues", "eval"],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _ in range(2)
        ]
        try:
            warm = home / "warm.jsonl"
            warm.write_text("".join(items.read_text().splitlines(True)[:32]))
            for _ in range(2):  # both workers import litellm and open their pools
                queued = json.loads(
                    quizbot(env, "eval", "--items", str(warm), *common, "--queue", "--shards", "2")
                )
                quizbot(env, "runs", "wait", str(queued["run_id"]), "--json")
            queued = json.loads(
                quizbot(
                    env,
                    "eval",
                    "--items",
                    str(items),
                    *common,
                    "--queue",
                    "--shards",
                    str(args.shards),
                )
            )
            quizbot(env, "runs", "wait", str(queued["run_id"]), "--json")
            two = seconds(url, int(queued["run_id"]))
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(timeout=60)
    n = args.items
    return {
        "latency_ms": latency,
        "in_process_items_per_s": round(n / one, 1),
        "two_workers_items_per_s": round(n / two, 1),
        "ratio": round(one / two, 2),
    }


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "QUIZBOT_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test"
        ),
    )
    parser.add_argument(
        "--model-server",
        default=None,
        help="an OpenAI-compatible stub script taking --port/--answer/--latency-ms (e.g. "
        "../shared/tools/stub_openai.py); default tests/helpers/model_server.py",
    )
    args = parser.parse_args()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"load average before: {load}", file=sys.stderr)
    with TemporaryDirectory() as tmp, fresh_database(args.postgres) as url:
        home = Path(tmp)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "DATABASE_URL": url, "QUIZBOT_HOME": tmp}
        made = home / "generated.jsonl"
        points = str(args.items // 15 + 1)
        quizbot(env, "generate", "--kb", "clinical-core", "--points", points, "--out", str(made))
        items = home / "items.jsonl"
        items.write_text("".join(made.read_text().splitlines(True)[: args.items]))
        started = time.monotonic()
        rows = [measure(url, home, items, latency, args) for latency in (0, 50)]
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"load average after: {load}", file=sys.stderr)
    for row in rows:
        print(
            f"{row['latency_ms']:>3} ms server: in-process {row['in_process_items_per_s']:>7} "
            f"items/s, 2 workers {row['two_workers_items_per_s']:>7} items/s, "
            f"ratio {row['ratio']:.2f}",
            file=sys.stderr,
        )
    print(json.dumps({"items": args.items, "concurrency": args.concurrency,
                      "shards": args.shards, "seconds": round(time.monotonic() - started),
                      "results": rows}))  # fmt: skip


if __name__ == "__main__":
    main()
