"""A page's event stream outlasts Gradio's ``close_stream`` (:mod:`quizbot.ui.event_stream`).

In process, at the ASGI level, with a stand-in for Gradio's ``queue/data`` route that streams
what the test puts in a queue and closes, as Gradio does, once the session has nothing
pending. The browser side of the same defect (a click joined while a close is on its way
never completes) is ``tests/ui/test_event_stream.py``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any, cast

import pytest

from quizbot.config import load_settings
from quizbot.ui.event_stream import CLOSE, LastingEventStream
from quizbot.ui.gate import web_app
from storage import Database

SESSION = "abc123"


class FakeGradio:
    """``GET /gradio_api/queue/data``: every message put in :attr:`messages` is sent; after a
    ``process_completed`` with nothing pending it sends ``close_stream`` and ends, as Gradio's
    route does. Counts the streams opened."""

    def __init__(self) -> None:
        self.messages: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.pending: set[str] = set()
        self.opened = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.opened += 1
        await send({"type": "http.response.start", "status": 200, "headers": []})
        while True:
            message = await self.messages.get()
            body = f"data: {json.dumps(message, separators=(',', ':'))}\n\n".encode()
            await send({"type": "http.response.body", "body": body, "more_body": True})
            if message["msg"] == "process_completed":
                self.pending.discard(message["event_id"])
                if not self.pending:
                    close = b'data: {"msg":"close_stream","event_id":null}\n\n'
                    await send({"type": "http.response.body", "body": close, "more_body": True})
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    return


def _scope() -> dict[str, Any]:
    return {
        "type": "http",
        "method": "GET",
        "path": "/gradio_api/queue/data",
        "query_string": f"session_hash={SESSION}".encode(),
        "headers": [],
    }


class Page:
    """What the browser reads from the response, as it comes."""

    def __init__(self) -> None:
        self.sent: list[MutableMapping[str, Any]] = []
        self.chunks: asyncio.Queue[bytes] = asyncio.Queue()
        self.ended = asyncio.Event()

    async def send(self, message: MutableMapping[str, Any]) -> None:
        self.sent.append(message)
        if message["type"] == "http.response.body":
            await self.chunks.put(message.get("body", b""))
            if not message.get("more_body", False):
                self.ended.set()

    async def read_until(self, text: str) -> bytes:
        seen = b""
        while text.encode() not in seen:
            seen += await asyncio.wait_for(self.chunks.get(), 10)
        return seen


async def _never_disconnects() -> dict[str, Any]:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def _nothing_sent(message: MutableMapping[str, Any]) -> None:
    raise AssertionError(f"sent {message}")


async def _until(condition: Callable[[], bool]) -> None:
    """Wait (at most 10 s) until ``condition`` holds, giving the other tasks their turns."""

    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0)

    await asyncio.wait_for(poll(), 10)


def _completed(event_id: str) -> dict[str, Any]:
    return {"msg": "process_completed", "event_id": event_id, "success": True}


def test_the_stream_goes_on_past_a_close_and_carries_the_next_events_result() -> None:
    async def scenario() -> None:
        gradio, page, stop = FakeGradio(), Page(), asyncio.Event()
        lasting = LastingEventStream(gradio, lambda: [stop], lambda s: bool(gradio.pending))
        served = asyncio.create_task(lasting(_scope(), _never_disconnects, page.send))
        gradio.pending.add("A")
        await gradio.messages.put(_completed("A"))
        first = await page.read_until('"event_id":"A"')
        # Gradio closed its stream after A; the page's stream goes on, without the close...
        await _until(lambda: gradio.opened >= 2)
        # ... and an event joined after that close is answered on it.
        gradio.pending.add("B")
        await gradio.messages.put(_completed("B"))
        second = await page.read_until('"event_id":"B"')
        assert CLOSE not in first + second
        assert not page.ended.is_set()
        starts = [m for m in page.sent if m["type"] == "http.response.start"]
        assert len(starts) == 1  # one response, however many of Gradio's streams behind it
        # The server stops with nothing pending: the page hears the close it expects, and the
        # response ends.
        stop.set()
        await asyncio.wait_for(served, 10)
        assert page.ended.is_set()
        rest = b"".join(m.get("body", b"") for m in page.sent[-1:])
        assert rest.startswith(CLOSE)

    asyncio.run(scenario())


def test_a_stop_waits_for_the_event_running_then_ends_the_stream() -> None:
    async def scenario() -> None:
        gradio, page, stop = FakeGradio(), Page(), asyncio.Event()
        lasting = LastingEventStream(gradio, lambda: [stop], lambda s: bool(gradio.pending))
        gradio.pending.add("C")
        served = asyncio.create_task(lasting(_scope(), _never_disconnects, page.send))
        await _until(lambda: gradio.opened >= 1)
        stop.set()
        await asyncio.sleep(0.01)  # the stop is seen; C still runs
        assert not served.done()
        await gradio.messages.put(_completed("C"))
        await asyncio.wait_for(served, 10)
        text = b"".join(m.get("body", b"") for m in page.sent if "body" in m)
        assert b'"event_id":"C"' in text and text.count(CLOSE) == 1 and text.endswith(b"\n\n")
        assert gradio.opened == 1  # not opened again once stopping

    asyncio.run(scenario())


def test_other_requests_pass_untouched() -> None:
    async def scenario() -> None:
        calls: list[str] = []

        async def app(scope: Any, receive: Any, send: Any) -> None:
            calls.append(scope["path"])

        lasting = LastingEventStream(app, list, lambda s: False)
        for path, method in (("/gradio_api/queue/join", "POST"), ("/config", "GET")):
            scope = {"type": "http", "method": method, "path": path}
            await lasting(scope, _never_disconnects, _nothing_sent)
        assert calls == ["/gradio_api/queue/join", "/config"]

    asyncio.run(scenario())


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_app_serves_every_page_stream_through_it(db: Database, tmp_path: Path) -> None:
    """The served app has the middleware (the browser test fails without it)."""
    settings = load_settings(home=str(tmp_path / "home"), database_url=db.url)
    app = web_app(settings, db)
    assert any(cast(Any, m).cls is LastingEventStream for m in app.user_middleware)


@pytest.mark.slow
def test_a_served_app_stops_at_once_with_a_pages_stream_open(
    tmp_path: Path, served_home: Path
) -> None:
    """Every open page now holds its event stream: `quizbot serve` must still stop on SIGTERM
    within its grace period (the stream of a page with no event running ends at once)."""
    import http.client
    import signal
    import subprocess

    from quizbot.server import SHUTDOWN_GRACE_S
    from tests.helpers.net import free_port, wait_for_http
    from tests.quizbot.test_server import QUIZBOT, _env

    port = free_port()
    proc = subprocess.Popen(
        [QUIZBOT, "serve", "--port", str(port)],
        cwd=Path(__file__).resolve().parents[2],
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/", timeout=300, process=proc)  # loaded cores
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/config")
        config = json.loads(conn.getresponse().read())
        fn = next(
            d["id"] for d in config["dependencies"] if d.get("backend_fn") and not d["inputs"]
        )
        body = {"fn_index": fn, "data": [], "session_hash": SESSION, "event_data": None}
        conn.request(
            "POST", "/gradio_api/queue/join", json.dumps(body), {"Content-Type": "application/json"}
        )
        assert conn.getresponse().read()
        stream = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        stream.request("GET", f"/gradio_api/queue/data?session_hash={SESSION}")
        response = stream.getresponse()
        seen = b""
        while b"process_completed" not in seen:
            seen += response.read1(4096)
        assert CLOSE not in seen  # the page's stream stays open after its last event
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        rest = response.read()  # ends when the server ends it
        took = time.monotonic() - started
        _out, err = proc.communicate(timeout=SHUTDOWN_GRACE_S + 20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err[-2000:]
    assert CLOSE in rest  # the page heard the close it expects
    assert took < SHUTDOWN_GRACE_S, f"the stream ended {took:.1f} s after SIGTERM"
