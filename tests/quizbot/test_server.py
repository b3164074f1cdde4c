"""`quizbot serve` and `python app.py` start a real server over a real database."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from quizbot.kb.clinical import load_clinical_core
from quizbot.server import GIL_SWITCH_INTERVAL_S, SHUTDOWN_GRACE_S, share_the_gil_quickly
from storage import head_revision
from tests.helpers.net import free_port, wait_for_http

ROOT = Path(__file__).resolve().parents[2]
QUIZBOT = str(Path(sys.executable).with_name("quizbot"))

pytestmark = pytest.mark.slow


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_") and k != "DATABASE_URL"
    }
    env.update({"QUIZBOT_HOME": str(tmp_path / "home"), **extra})
    return env


def _serve(tmp_path: Path, port: int, **extra: str) -> subprocess.Popen[str]:
    """`quizbot serve` on ``port`` with the test's home and ``extra`` settings (output piped)."""
    return subprocess.Popen(
        [QUIZBOT, "serve", "--port", str(port)],
        cwd=ROOT,
        env=_env(tmp_path, **extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _interrupt(proc: subprocess.Popen[str]) -> str:
    """Ctrl-C the server, as a person would; its stderr (killed if not gone in 30 s)."""
    proc.send_signal(signal.SIGINT)
    try:
        _out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _out, err = proc.communicate()
    return err


def _predict(port: int, api_name: str) -> str:
    """Call the app's endpoint ``api_name`` (no inputs) through Gradio's HTTP API and return its
    one output. Not gradio_client's ``Client``: its heartbeat stream stays open after the
    calls (and up to 15 s after ``close()``), and uvicorn waits for every open response before
    it stops, so a SIGINT'ed server outlived the test's 30 s wait and was killed."""
    base = f"http://127.0.0.1:{port}/gradio_api/call/{api_name}"
    ask = urllib.request.Request(
        base, data=b'{"data": []}', headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(ask, timeout=60) as answer:
        event_id = json.load(answer)["event_id"]
    with urllib.request.urlopen(f"{base}/{event_id}", timeout=60) as answer:
        events = answer.read().decode("utf-8").split("\n\n")
    (complete,) = [e for e in events if e.startswith("event: complete\n")]
    (output,) = json.loads(complete.split("\ndata: ", 1)[1])
    return str(output)


def test_serving_hands_the_gil_over_within_a_millisecond() -> None:
    default = sys.getswitchinterval()
    try:
        share_the_gil_quickly()
        assert sys.getswitchinterval() == pytest.approx(GIL_SWITCH_INTERVAL_S)
        assert default > GIL_SWITCH_INTERVAL_S  # shorter than Python's own
    finally:
        sys.setswitchinterval(default)


@pytest.mark.parametrize("how", ["quizbot serve", "python app.py"])
def test_server_starts_migrates_and_reports_the_database(tmp_path: Path, how: str) -> None:
    port = free_port()
    command = (
        [QUIZBOT, "serve", "--port", str(port)]
        if how == "quizbot serve"
        else [sys.executable, "app.py", "--port", str(port)]
    )
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/")
        config = json.loads(wait_for_http(f"http://127.0.0.1:{port}/config"))
        assert config["title"] == "quizbot"
        assert config["analytics_enabled"] is False
        assert "# quizbot" in config["components"][0]["props"]["value"]
        status = _predict(port, "status")
        assert f"**Schema version:** `{head_revision()}`, up to date" in status
        assert "| `response` |" not in status  # row counts are for administrators only
        # The embedded knowledge base is installed at start, offline.
        kbs = _predict(port, "knowledge_bases")
        core = load_clinical_core()
        assert f"| `clinical-core` | {core.version} | {len(core.triplets):,} |" in kbs
        assert "| `hpo` | - | loads on first use |" in kbs
        assert (tmp_path / "home" / "quizbot.db").exists()
    finally:
        err = _interrupt(proc)
    assert "Traceback" not in err
    assert f"on http://127.0.0.1:{port}" in err
    assert f"GIL switch interval {1000 * GIL_SWITCH_INTERVAL_S:.1f} ms" in err
    assert proc.returncode == 0, "not stopped by SIGINT (killed after 30 s)"


def test_a_busy_port_is_a_clear_error(tmp_path: Path, served_home: Path) -> None:
    # a home served before: the port is checked after the database is opened, so an empty one
    # would be migrated first, for nothing this test looks at
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        result = subprocess.run(
            [QUIZBOT, "serve", "--port", str(port)],
            env=_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 78
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "--port" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_outdated_database_is_not_served(tmp_path: Path) -> None:
    env = _env(tmp_path)
    subprocess.run(
        [QUIZBOT, "db", "upgrade", "--revision", "0001"],
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    result = subprocess.run(
        [QUIZBOT, "serve", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 69
    assert "quizbot db upgrade" in result.stderr


def test_serve_renews_the_plans_a_release_made_stale(tmp_path: Path, served_home: Path) -> None:
    """A student's stored plan whose basis an older release left is planned again by the
    starting server, off the request path, before the student comes back."""
    from sqlalchemy import update

    from quizbot.practice import next_plan
    from quizbot.practice.service import answer, next_question, start_session
    from storage import open_database
    from storage.models import PracticePlanRow

    db = open_database(f"sqlite:///{served_home / 'quizbot.db'}")
    try:
        view = start_session(db, student="ada", kb="clinical-core", seed="s", length=3)
        while (question := next_question(db, view.id)) is not None:
            answer(db, view.id, question.id, "True")
        assert next_plan.plan_next(db, view.id)
        db.write(lambda s: s.execute(update(PracticePlanRow).values(basis="0" * 64)))
    finally:
        db.dispose()
    port = free_port()
    proc = _serve(tmp_path, port)
    basis = "0" * 64
    try:
        wait_for_http(f"http://127.0.0.1:{port}/", process=proc, timeout=300)
        deadline = time.monotonic() + 120  # a bound for a loaded machine, not a speed check
        while basis == "0" * 64 and time.monotonic() < deadline:
            with sqlite3.connect(served_home / "quizbot.db") as conn:
                (basis,) = conn.execute("SELECT basis FROM practice_plans").fetchone()
            time.sleep(0.2)
    finally:
        err = _interrupt(proc)
    assert basis != "0" * 64, "the served app did not renew the stale plan"
    assert "1 stale stored plans made again" in err
    assert "Traceback" not in err


def test_serve_runs_the_scheduler_in_process_when_asked(tmp_path: Path, served_home: Path) -> None:
    # a home served before (its database migrated, the default KB in it): the scheduler is
    # what this start adds; a first start on an empty database is the first test's
    port = free_port()
    proc = _serve(tmp_path, port, QUIZBOT_SCHEDULER="1")
    try:
        wait_for_http(f"http://127.0.0.1:{port}/")
        # The shipped monitor's job is now stored in the application database.
        with sqlite3.connect(tmp_path / "home" / "quizbot.db") as conn:
            jobs = [row[0] for row in conn.execute("SELECT id FROM apscheduler_jobs")]
        assert jobs == ["monitor:baselines"]
    finally:
        err = _interrupt(proc)
    assert "Traceback" not in err
    assert "scheduler: 1 monitor job(s): monitor:baselines" in err
    assert proc.returncode == 0, "not stopped by SIGINT (killed after 30 s)"


def _reused_after_idle(port: int, idle_s: float) -> bool:
    """Whether a keep-alive connection still answers a second request after ``idle_s`` idle
    (the same socket: http.client opens a new one only once it knows the old one closed)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/healthz")
        first = conn.getresponse()
        first.read()
        assert first.status == 200, first.status
        sock = conn.sock
        time.sleep(idle_s)
        try:
            conn.request("GET", "/healthz")
            second = conn.getresponse()
            second.read()
        except (http.client.HTTPException, OSError):
            return False
        return second.status == 200 and conn.sock is sock
    finally:
        conn.close()


def _answers(port: int) -> bool:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=60) as answer:
        return bool(answer.status == 200)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_on_a_signal_while_a_browser_tab_is_open(
    tmp_path: Path, served_home: Path, sig: signal.Signals
) -> None:
    """An open tab holds Gradio's heartbeat stream, which only Gradio's own launcher ends: the
    server must still stop on SIGTERM (a replica taken down, systemd) or Ctrl-C, within its
    grace period, not when the last student closes the page."""
    port = free_port()
    proc = _serve(tmp_path, port)
    tab = socket.socket()
    try:
        wait_for_http(f"http://127.0.0.1:{port}/")
        tab.connect(("127.0.0.1", port))
        tab.sendall(
            f"GET /gradio_api/heartbeat/tab-{sig.name} HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        tab.settimeout(30)
        first = tab.recv(4096).decode("utf-8", "replace")
        assert " 200 " in first.split("\r\n", 1)[0]  # the stream is open, as a tab's is
        if sig == signal.SIGTERM:
            # An idle connection outlives a proxy's idle limit for it (nginx: 60 s; uvicorn's
            # default, 5 s, let nginx reuse a connection being closed and mark a replica failed).
            assert _reused_after_idle(port, idle_s=6.0), "an idle connection was closed at once"
            # An operator's `kill -USR1`: every thread's stack to the log, the server running on.
            proc.send_signal(signal.SIGUSR1)
            assert _answers(port), "stopped or stuck after SIGUSR1"
        proc.send_signal(sig)
        try:
            _out, err = proc.communicate(timeout=SHUTDOWN_GRACE_S + 20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _out, err = proc.communicate()
    finally:
        tab.close()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err
    assert proc.returncode == 0, f"not stopped by {sig.name} with a tab open (killed)"
    if sig == signal.SIGTERM:
        assert "most recent call first" in err  # faulthandler's dump of the threads
        assert "uvicorn" in err  # the server's own thread among them
