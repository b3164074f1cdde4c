"""One browser tab's Gradio events over plain HTTP, read as a page reads them.

A page joins each event (``POST /gradio_api/queue/join``) and reads every result from one event
stream (``GET /gradio_api/queue/data``) that quizbot's server keeps open between events
(:mod:`quizbot.ui.event_stream`). A client that opens a stream per call and drops it after its
result can lose the next event's result when it joins at once (the load bench's students did,
answering back to back: the dropped stream, still open on the server for a moment, is the likely
reader). :class:`EventTab` holds one stream per tab, like the page, and hands each event the
messages of its own id.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

import httpx

__all__ = ["Completion", "EventTab", "JoinRefusedError"]


class JoinRefusedError(Exception):
    """The server refused to queue the event (its HTTP status is ``status``)."""

    def __init__(self, status: int) -> None:
        super().__init__(f"join HTTP {status}")
        self.status = status


@dataclass(frozen=True)
class Completion:
    """How an event ended: its last message (``process_completed``, ``unexpected_error``, or
    ``{"msg": "stream_ended" | "timeout", "message": why}`` when no result came) and when its
    ``process_starts`` message was read (``time.perf_counter()``), if it was."""

    message: dict[str, Any]
    processing_from: float | None

    @property
    def completed(self) -> bool:
        """Whether the server sent the event's result (successful or not)."""
        return self.message.get("msg") == "process_completed"


class EventTab:
    """A tab of ``base``: its session hash, its joins, and the one stream of their results."""

    def __init__(self, client: httpx.AsyncClient, base: str, session_hash: str | None = None):
        self.client, self.base = client, base
        self.session_hash = session_hash or uuid.uuid4().hex[:11]
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._early: dict[str, dict[str, Any]] = {}  # results read before their join's reply
        self._starts: dict[str, float] = {}
        self._reader: asyncio.Task[None] | None = None

    async def call(self, fn_index: int, data: list[Any], timeout: float) -> Completion:
        """Join event ``fn_index`` with ``data`` (every input, states as None) and wait up to
        ``timeout`` seconds for its result. Raises :class:`JoinRefusedError`."""
        body = {
            "data": data,
            "fn_index": fn_index,
            "session_hash": self.session_hash,
            "event_data": None,
            "trigger_id": None,
        }
        joined = await self.client.post(f"{self.base}/gradio_api/queue/join", json=body)
        if joined.status_code != 200:
            raise JoinRefusedError(joined.status_code)
        event_id = str(joined.json()["event_id"])
        done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        if event_id in self._early:
            done.set_result(self._early.pop(event_id))
        else:
            self._waiting[event_id] = done
        if self._reader is None or self._reader.done():
            self._reader = asyncio.create_task(self._read())
        try:
            message = await asyncio.wait_for(done, timeout)
        except TimeoutError:
            self._waiting.pop(event_id, None)
            message = {"msg": "timeout", "message": f"no result within {timeout:.0f} s"}
        return Completion(message, self._starts.pop(event_id, None))

    async def _read(self) -> None:
        """Read the tab's stream until it ends, handing each waiting event its result."""
        why = "the event stream ended without a result"
        try:
            async with self.client.stream(
                "GET",
                f"{self.base}/gradio_api/queue/data",
                params={"session_hash": self.session_hash},
                timeout=httpx.Timeout(30.0, read=None),  # the stream is quiet between events
            ) as stream:
                if stream.status_code != 200:
                    why = f"data HTTP {stream.status_code}"
                    return
                async for line in stream.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    message = json.loads(line[5:])
                    kind, event_id = message.get("msg"), str(message.get("event_id"))
                    if kind == "close_stream":
                        return
                    if kind == "process_starts":
                        self._starts[event_id] = time.perf_counter()
                    elif kind in ("process_completed", "unexpected_error"):
                        waiting = self._waiting.pop(event_id, None)
                        if waiting is None:
                            self._early[event_id] = message
                        elif not waiting.done():
                            waiting.set_result(message)
        except (httpx.HTTPError, json.JSONDecodeError) as exc:
            why = f"event stream: {type(exc).__name__}: {exc}"[:200]
        finally:
            for waiting in self._waiting.values():
                if not waiting.done():
                    waiting.set_result({"msg": "stream_ended", "message": why})
            self._waiting.clear()

    async def close(self) -> None:
        """Close the tab: its stream ends (the server sees the page go)."""
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
