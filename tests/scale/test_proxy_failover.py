"""A request in flight when a replica dies reaches the live replica through deploy/nginx.conf.

A Gradio event's join is a POST. The proxy (the config scripts/cluster.sh writes from
deploy/nginx.conf) must send one that the dead replica had received and not answered to the
other replica, rather than answer 502: tests/helpers/tiny_replica.py stands in for the replicas
(each POST held 2 s, a file marks which replica holds it), so the request is in flight at the
kill every time. docs/performance.md (Part 14) has the figures of bench/proxy_failover.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers.net import free_port, stop_process, wait_for_http
from tests.scale.test_replicas import NGINX, REQUIRE_NGINX, ROOT, nginx_config

pytestmark = pytest.mark.skipif(
    NGINX is None and not REQUIRE_NGINX, reason="nginx is not installed (needed as the proxy)"
)
HELD_S = 2.0  # how long a replica holds a POST: the kill comes while it does


def _replica(port: int, marks: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HANDLER_S": str(HELD_S), "MARK_DIR": str(marks)}
    command = [sys.executable, "-m", "uvicorn", "tests.helpers.tiny_replica:app"]
    command += ["--port", str(port), "--log-level", "error"]
    return subprocess.Popen(command, cwd=ROOT, env=env)


def test_a_post_in_flight_at_a_replicas_death_is_answered_by_the_live_replica(
    tmp_path: Path,
) -> None:
    assert NGINX is not None
    marks = tmp_path / "marks"
    marks.mkdir()
    prefix = tmp_path / "nginx"
    (prefix / "logs").mkdir(parents=True)
    (prefix / "tmp").mkdir()
    ports = [free_port(), free_port()]
    listen = free_port()
    template = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    conf = prefix / "nginx.conf"
    conf.write_text(nginx_config(template, ports, listen), encoding="utf-8")
    replicas = [_replica(port, marks) for port in ports]
    nginx = None
    try:
        for proc, port in zip(replicas, ports, strict=True):
            wait_for_http(f"http://127.0.0.1:{port}/healthz", timeout=60, process=proc)
        nginx = subprocess.Popen(
            [NGINX, "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"],
            stderr=subprocess.DEVNULL,
        )
        wait_for_http(f"http://127.0.0.1:{listen}/healthz", timeout=20, process=nginx)
        answer: dict[str, Any] = {}

        def post() -> None:
            response = httpx.post(
                f"http://127.0.0.1:{listen}/gradio_api/queue/join",
                content=b'{"data": ["True"], "fn_index": 12, "session_hash": "abc"}',
                headers={"Cookie": "quizbot_session=one-student"},
                timeout=30,
            )
            answer.update(status=response.status_code, body=response.text)

        sender = threading.Thread(target=post)
        sender.start()
        deadline = time.monotonic() + 20
        while not any(marks.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.01)
        holder = int(next(marks.iterdir()).name)  # the replica holding the request
        os.kill(holder, signal.SIGKILL)
        sender.join(30)
        live = next(p.pid for p in replicas if p.pid != holder)
        assert answer.get("status") == 200, (answer, (prefix / "logs" / "error.log").read_text())
        assert answer["body"] == f'{{"pid": {live}}}'
    finally:
        if nginx is not None:
            stop_process(nginx)
        for proc in replicas:
            stop_process(proc)
