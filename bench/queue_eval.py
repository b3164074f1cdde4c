"""Queued evaluation throughput: 2 `quizbot worker` processes vs 1 in-process `quizbot eval`.

In one run, on a fresh PostgreSQL database and the repository's OpenAI-compatible test server
(tests/helpers/model_server.py, real HTTP through litellm): the same N statements are asked
once in-process (`quizbot eval`) and once queued (`eval --queue --shards K`, 2 workers), first
against a zero-latency server (CPU-bound: litellm's 3-4 ms a call) and then against a 50 ms
server (latency-bound). Throughput is items / (the run's finished_at - started_at), read from the
database, so process start-up is left out of both; the workers are warmed up by a small queued
run first. Prints one line per server and the ratios as JSON. Usage:

    .venv/bin/python bench/queue_eval.py [--items 2000] [--concurrency 8] [--shards 8]
        [--postgres postgresql://postgres@127.0.0.1:5432/test] [--zero-latency nginx]

Every process on the machine shares its cores, so the bench also samples, while each run
stores its answers, the CPU of the processes asking (the eval process or the two workers), of
the model server and of PostgreSQL (every ``postgres`` process), and prints each one's CPU per
item. On 2 cores, two workers can beat one process by at most 2w / (w + s + p) (w, s, p: the
askers', the model server's and PostgreSQL's CPU per item), printed as the ceiling.
``--zero-latency nginx`` serves the zero-latency model from nginx (a fixed OpenAI chat
completion answered by its C code, about a tenth of a millisecond of CPU a call) instead of the
Python stub, so that the model server takes almost nothing from the two cores; the 50 ms server
is the stub either way.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from storage import open_database  # noqa: E402
from storage.repo import get_run  # noqa: E402
from tests.helpers.net import free_port  # noqa: E402
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


def window(url: str, run_id: int) -> tuple[float, float]:
    """When run ``run_id`` asked its first item and stored its last (Unix seconds)."""
    db = open_database(url)
    try:
        run = get_run(db, run_id)
    finally:
        db.dispose()
    assert run.status == "completed" and run.started_at and run.finished_at, run

    def unix(moment: datetime) -> float:
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()

    return unix(run.started_at), unix(run.finished_at)


TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float | None:
    """CPU seconds (user + system) process ``pid`` has used, or None if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


def _postgres_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == "postgres":
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


class CpuSampler:
    """Every 0.1 s, the CPU used so far by each group of processes (a process that ends keeps
    the last figure read: at most 0.1 s of its CPU is missed)."""

    def __init__(self, groups: dict[str, Callable[[], list[int]]]) -> None:
        self.groups = groups
        self.seen: dict[str, dict[int, float]] = {name: {} for name in groups}
        self.samples: list[tuple[float, dict[str, float]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            now = time.time()
            for name, pids in self.groups.items():
                for pid in pids():
                    used = _cpu(pid)
                    if used is not None:
                        self.seen[name][pid] = used
            self.samples.append((now, {n: sum(s.values()) for n, s in self.seen.items()}))
            self._stop.wait(0.1)

    def __enter__(self) -> CpuSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def between(self, start: float, end: float) -> dict[str, float]:
        """CPU seconds each group used from ``start`` to ``end`` (the samples nearest inside)."""
        inside = [s for s in self.samples if start <= s[0] <= end]
        if len(inside) < 2:
            return {name: float("nan") for name in self.groups}
        first, last = inside[0], inside[-1]
        scale = (end - start) / (last[0] - first[0])  # the few ms either side the samples miss
        return {name: (last[1][name] - first[1][name]) * scale for name in self.groups}


ANSWER = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL.split("/", 1)[1],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "true"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
)


@contextmanager
def nginx_model(folder: Path) -> Iterator[tuple[str, int]]:
    """A zero-latency model server: nginx answering every request with one fixed chat
    completion ("true"); yields its base URL and its worker's pid."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    temp = {k: folder / k for k in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    conf = folder / "nginx.conf"
    conf.write_text(
        f"daemon off;\nworker_processes 1;\npid {folder}/nginx.pid;\n"
        f"error_log {folder}/error.log;\nevents {{ worker_connections 1024; }}\n"
        "http {\n  access_log off;\n"
        f"  client_body_temp_path {temp['body']};\n  proxy_temp_path {temp['proxy']};\n"
        f"  fastcgi_temp_path {temp['fastcgi']};\n  uwsgi_temp_path {temp['uwsgi']};\n"
        f"  scgi_temp_path {temp['scgi']};\n  keepalive_requests 1000000;\n"
        f"  server {{\n    listen 127.0.0.1:{port};\n    location / {{\n"
        f"      default_type application/json;\n      return 200 '{ANSWER}';\n    }}\n  }}\n}}\n"
    )
    proc = subprocess.Popen([nginx, "-c", str(conf), "-p", str(folder)], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    said = proc.stderr.read() if proc.stderr else b""
                    raise SystemExit(f"nginx did not start: {said!r}") from None
                time.sleep(0.1)
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        yield f"http://127.0.0.1:{port}/v1", int(children[0]) if children else proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@contextmanager
def model_server(latency: int, args: argparse.Namespace, home: Path) -> Iterator[tuple[str, int]]:
    """The model server for ``latency`` ms: its base URL and the pid whose CPU is its cost."""
    if latency == 0 and args.zero_latency == "nginx":
        with nginx_model(home / "nginx") as served:
            yield served
        return
    server = Path(args.model_server) if args.model_server else SERVER
    before = set(_children())
    with stub_server("--answer", "true", "--latency-ms", str(latency), server=server) as base:
        (pid,) = set(_children()) - before
        yield base, pid


def _children() -> list[int]:
    """This process's child processes."""
    me = os.getpid()
    return [int(p) for p in Path(f"/proc/{me}/task/{me}/children").read_text().split()]


def measure(
    url: str, home: Path, items: Path, latency: int, args: argparse.Namespace
) -> dict[str, Any]:
    """Items a second in-process and queued (2 workers) against a server of ``latency`` ms."""
    print(f"{latency} ms: load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])}",
          file=sys.stderr)  # fmt: skip
    askers: list[int] = []
    with (
        model_server(latency, args, home) as (base, server_pid),
        CpuSampler(
            {
                "askers": lambda: askers,
                "model server": lambda: [server_pid],
                "PostgreSQL": _postgres_pids,
            }
        ) as cpu,
    ):
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
        alone_proc = subprocess.Popen(
            [*QUIZBOT, "eval", "--items", str(items), *common],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        askers[:] = [alone_proc.pid]
        out, err = alone_proc.communicate()
        if alone_proc.returncode != 0:
            raise SystemExit(f"quizbot eval failed ({alone_proc.returncode}):\n{err}")
        one_window = window(url, int(json.loads(out)["run_id"]))
        one_cpu = cpu.between(*one_window)
        askers[:] = []
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
        askers[:] = [w.pid for w in workers]
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
            two_window = window(url, int(queued["run_id"]))
            time.sleep(0.3)  # a sample after the run's end
            two_cpu = cpu.between(*two_window)
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(timeout=60)
    n = args.items
    one, two = one_window[1] - one_window[0], two_window[1] - two_window[0]

    def per_item(used: dict[str, float]) -> dict[str, float]:
        return {name: round(1000 * seconds / n, 2) for name, seconds in used.items()}

    w, s, p = (per_item(two_cpu)[k] for k in ("askers", "model server", "PostgreSQL"))
    return {
        "latency_ms": latency,
        "in_process_items_per_s": round(n / one, 1),
        "two_workers_items_per_s": round(n / two, 1),
        "ratio": round(one / two, 2),
        "cpu_ms_per_item_in_process": per_item(one_cpu),
        "cpu_ms_per_item_two_workers": per_item(two_cpu),
        "ceiling_on_2_cores": round(2 * w / (w + s + p), 2),
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
        "--zero-latency",
        choices=("stub", "nginx"),
        default="stub",
        help="what serves the zero-latency model: the stub script (default) or nginx",
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
            f"ratio {row['ratio']:.2f} (ceiling on 2 cores {row['ceiling_on_2_cores']:.2f})",
            file=sys.stderr,
        )
        for label, key in (("in-process", "in_process"), ("2 workers", "two_workers")):
            shares = row[f"cpu_ms_per_item_{key}"]
            print(
                f"      CPU ms per item, {label}: "
                + ", ".join(f"{name} {ms:.2f}" for name, ms in shares.items()),
                file=sys.stderr,
            )
    print(json.dumps({"items": args.items, "concurrency": args.concurrency,
                      "shards": args.shards, "seconds": round(time.monotonic() - started),
                      "results": rows}))  # fmt: skip


if __name__ == "__main__":
    main()
