"""What clients see through the proxy when a replica dies: deploy/nginx.conf against another config.

Two replicas (tests/helpers/tiny_replica.py under uvicorn, each POST answered after
``--handler-ms``, so that requests are in flight at any moment, as a Gradio event's join is)
behind nginx with the
configuration scripts/cluster.sh writes from ``--config`` (default deploy/nginx.conf; the same
templating as tests/scale/test_replicas.py). ``--clients`` clients, each with its own sticky
cookie and kept-alive connections, POST a small JSON body in a loop; after ``--kill-after``
seconds the first replica is killed with SIGKILL. Every response is counted by status, and
those after the kill apart: a request in flight at the kill that the proxy does not send to the
live replica comes back 502. ``--against FILE`` runs another nginx config the same way,
interleaved, ``--runs`` rounds of each. Usage (from the repository root; needs nginx):

    PYTHONPATH=$PWD .venv/bin/python bench/proxy_failover.py [--runs 4] [--against OLD.conf]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from tests.helpers.net import free_port, stop_process, wait_for_http
from tests.scale.test_replicas import nginx_config

ROOT = Path(__file__).resolve().parents[1]


def _replica(port: int, handler_s: float) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HANDLER_S": str(handler_s)}
    command = [sys.executable, "-m", "uvicorn", "tests.helpers.tiny_replica:app"]
    command += ["--port", str(port), "--log-level", "error", "--timeout-keep-alive", "75"]
    return subprocess.Popen(command, cwd=ROOT, env=env)


async def _clients(
    base: str, clients: int, requests_each: int, kill_after: float, victim: int
) -> tuple[collections.Counter[str], collections.Counter[str]]:
    everything: collections.Counter[str] = collections.Counter()
    after: collections.Counter[str] = collections.Counter()
    killed = asyncio.Event()
    body = b'{"data": ["True"], "fn_index": 12, "session_hash": "abc"}'

    async def client(i: int, http: httpx.AsyncClient) -> None:
        for _ in range(requests_each):
            try:
                response = await http.post(
                    f"{base}/gradio_api/queue/join",
                    content=body,
                    headers={"Cookie": f"quizbot_session=client-{i}"},
                )
                outcome = str(response.status_code)
            except httpx.HTTPError as exc:
                outcome = type(exc).__name__
            everything[outcome] += 1
            if killed.is_set():
                after[outcome] += 1
            await asyncio.sleep(0.01)

    async def killer() -> None:
        await asyncio.sleep(kill_after)
        os.kill(victim, signal.SIGKILL)
        killed.set()

    async with httpx.AsyncClient(timeout=30) as http:
        await asyncio.gather(killer(), *(client(i, http) for i in range(clients)))
    return everything, after


def run_once(config: Path, args: argparse.Namespace, work: Path) -> tuple[int, int, int]:
    """One run with ``config``: (requests, requests after the kill, 502s after the kill)."""
    folder = Path(tempfile.mkdtemp(dir=work))
    (folder / "logs").mkdir()
    (folder / "tmp").mkdir()
    ports = [free_port(), free_port()]
    listen = free_port()
    conf = folder / "nginx.conf"
    conf.write_text(nginx_config(config.read_text(encoding="utf-8"), ports, listen), "utf-8")
    replicas = [_replica(port, args.handler_ms / 1000) for port in ports]
    nginx = None
    try:
        for proc, port in zip(replicas, ports, strict=True):
            wait_for_http(f"http://127.0.0.1:{port}/healthz", timeout=60, process=proc)
        nginx = subprocess.Popen(
            ["nginx", "-p", str(folder), "-c", str(conf), "-g", "daemon off;"],
            stderr=subprocess.DEVNULL,
        )
        wait_for_http(f"http://127.0.0.1:{listen}/healthz", timeout=20, process=nginx)
        everything, after = asyncio.run(
            _clients(
                f"http://127.0.0.1:{listen}",
                args.clients,
                args.requests,
                args.kill_after,
                replicas[0].pid,
            )
        )
    finally:
        if nginx is not None:
            stop_process(nginx)
        for proc in replicas:
            stop_process(proc)
    return sum(everything.values()), sum(after.values()), after["502"]


def main() -> int:
    """Run the rounds; print each run and the sums per config."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=ROOT / "deploy" / "nginx.conf")
    parser.add_argument("--against", type=Path, help="another nginx config, same markers")
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--clients", type=int, default=40)
    parser.add_argument("--requests", type=int, default=60, help="requests of each client")
    parser.add_argument("--handler-ms", type=float, default=20.0)
    parser.add_argument("--kill-after", type=float, default=0.6, help="seconds into a run")
    args = parser.parse_args()
    if shutil.which("nginx") is None:
        print("nginx is not installed (apt-get install nginx)", file=sys.stderr)
        return 2
    configs = {"config": args.config.resolve()}
    if args.against is not None:
        configs["against"] = args.against.resolve()
    work = Path(tempfile.mkdtemp(prefix="quizbot-failover-"))
    sums = {label: [0, 0, 0] for label in configs}
    try:
        for round_ in range(args.runs):
            for label, config in configs.items():
                began = time.perf_counter()
                total, after, bad = run_once(config, args, work)
                for i, value in enumerate((total, after, bad)):
                    sums[label][i] += value
                print(
                    f"round {round_ + 1} {label:8} {total} requests, {after} after the kill, "
                    f"{bad} answered 502 ({time.perf_counter() - began:.0f} s)",
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for label, (total, after, bad) in sums.items():
        print(
            f"{label:8} {bad} of {after} requests after the kill answered 502 ({total} in all; "
            f"{configs[label]})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
