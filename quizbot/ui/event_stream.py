"""A page's Gradio event stream that stays open while the page does: no click is left unanswered.

Gradio's page reads the results of all its server events from one stream,
``GET /gradio_api/queue/data?session_hash=...``. The server ends it with a ``close_stream``
message as soon as the page has no event left; the page opens a new one when it joins an event
(``POST queue/join``) while it believes none is open. The close and the join's reply come on two
connections, and a busy browser may read the join's reply first (issue 31): the page then
believes the stream open, reads the close, drops the stream, and the event it just joined runs
on the server with nobody to hear its result. The student sees Gradio's timer run forever
(the seventh session's hung "Review my recall mistakes", pressed as the due line's refresh
after the last answer finished: ``tests/ui/test_event_stream.py`` forces that order).

:class:`LastingEventStream` removes the close: when Gradio's stream would end with
``close_stream``, the message is left out and Gradio's stream for the same session is opened
again behind the same response, so the page's stream lasts as long as the page. Every result
then reaches the page on the stream it already reads, whatever order it reads things in. It
ends (with the ``close_stream`` the page expects) when the page goes away, when Gradio refuses
the session, and when the server stops (:func:`quizbot.ui.gate.heartbeat_stops`): at once when
the session has no event running, else once that event's result is sent. An open page costs
one idle connection more (Gradio's heartbeat keeps one already), with a heartbeat message
every 15 s.

A client must therefore read every event of a session from one stream, as the page and
``gradio_client`` do. One that opens a stream per call and drops it after its result can lose
the next event's result when it joins at once: the load bench's students, answering back to
back that way, waited for ever on some answer whose result never came on their new stream (the
dropped one, still open on the server for a moment, is the likely reader; not pinned down).
``tests/helpers/gradio_tab.py`` is such a client done right.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CLOSE", "LastingEventStream"]

CLOSE = b'data: {"msg":"close_stream"'
_CLOSE_MESSAGE = b'data: {"msg":"close_stream","event_id":null}\n\n'


class _Round:
    """One of Gradio's streams behind the lasting response: what it said and whether it closed."""

    def __init__(self, send: Send, started: bool) -> None:
        self.send = send
        self.started = started
        self.status: int | None = None
        self.closed = False

    async def relay(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            self.status = int(message["status"])
            if not self.started:  # the response's head, once
                self.started = True
                await self.send(message)
            return
        if kind != "http.response.body":
            await self.send(message)
            return
        body: bytes = message.get("body", b"")
        at = body.find(CLOSE) if self.status == 200 else -1
        if at >= 0:
            self.closed = True
            body = body[:at]
        if body:
            await self.send({"type": "http.response.body", "body": body, "more_body": True})


class LastingEventStream:
    """ASGI middleware: ``GET .../queue/data`` never ends with ``close_stream`` while the page
    is open (see the module docstring). ``stops``: the events set when the server stops;
    ``pending``: whether a session has an event not yet answered (Gradio's queue)."""

    def __init__(
        self,
        app: ASGIApp,
        stops: Callable[[], Sequence[asyncio.Event]],
        pending: Callable[[str], bool],
    ) -> None:
        self.app = app
        self.stops = stops
        self.pending = pending

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass every other request on; hold a page's event stream open."""
        path = str(scope.get("path", ""))
        if (
            scope["type"] != "http"
            or scope.get("method") != "GET"
            or not path.endswith("/queue/data")
        ):
            await self.app(scope, receive, send)
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        session = (query.get("session_hash") or [""])[0]
        started, closed = False, False
        while True:
            round_ = _Round(send, started)
            stopping = await self._round(scope, receive, round_, session)
            started, closed = round_.started, round_.closed
            if not closed or stopping:
                break
        await send(
            {"type": "http.response.body", "body": _CLOSE_MESSAGE if closed else b"",
             "more_body": False}
        )  # fmt: skip

    async def _round(self, scope: Scope, receive: Receive, round_: _Round, session: str) -> bool:
        """Run Gradio's stream once; returns whether the server is stopping. A stop ends an
        idle stream at once (Gradio's would wait for the page to go)."""
        inner = asyncio.ensure_future(self.app(scope, receive, round_.relay))
        waits = [asyncio.ensure_future(event.wait()) for event in self.stops()]
        stopping = any(event.is_set() for event in self.stops())
        try:
            while not inner.done():
                done, _ = await asyncio.wait([inner, *waits], return_when=asyncio.FIRST_COMPLETED)
                if inner in done:
                    break
                stopping, waits = True, []
                if not self.pending(session):
                    inner.cancel()
                    round_.closed = True  # the page hears the close it expects
                    break
        finally:
            for wait in waits:
                wait.cancel()
            if not inner.done():
                inner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await inner
        return stopping


def pending_in(blocks: Any) -> Callable[[str], bool]:
    """Whether a session has an event Gradio has not answered yet, in ``blocks``' queue."""

    def pending(session: str) -> bool:
        queue = getattr(blocks, "_queue", None)
        ids = getattr(queue, "pending_event_ids_session", {}) if queue is not None else {}
        return bool(ids.get(session))

    return pending
