"""``/metrics`` for Prometheus, and the request timer behind its latency histogram.

Both are plain ASGI (no FastAPI or Starlette here: :mod:`quizbot.ui.gate` mounts them). The
figures are :mod:`quizbot.monitoring.metrics`'s: read from the database, so any app process
sharing it gives the same answer, and never anything about a student.

Who may read ``/metrics`` (:func:`may_read`): anyone with ``QUIZBOT_METRICS_PUBLIC=1`` (the gate
then lets the path through without a login; keep it on a network only Prometheus reaches);
otherwise the people who may use the admin pages, by the same rule: in accounts mode (or behind
an authenticating proxy) an admin account, recognised by the gate from its session cookie or the
proxy's header; in local mode the admin password (``QUIZBOT_ADMIN_PASSWORD``), sent as
``Authorization: Bearer <password>`` (Prometheus: ``authorization: {credentials: ...}``) or as
HTTP Basic with any user name. A refusal is ``401`` with ``WWW-Authenticate``, or ``403`` for
someone logged in who is not an admin.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from quizbot import accounts
from quizbot.domain import Role
from quizbot.monitoring.metrics import REQUEST_LATENCY, registry_for, route_of
from quizbot.ratelimit import RateLimitedError
from quizbot.ui.context import UiContext

__all__ = ["METRICS_PATH", "MetricsEndpoint", "RequestTimer", "may_read"]

METRICS_PATH = "/metrics"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


def _presented_secret(scope: Scope) -> str:
    """The password an ``Authorization`` header carries (Bearer, or Basic's password)."""
    value = _header(scope, b"authorization").strip()
    kind, _, credential = value.partition(" ")
    if kind.lower() == "bearer":
        return credential.strip()
    if kind.lower() == "basic":
        try:
            decoded = base64.b64decode(credential.strip(), validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return ""
        return decoded.partition(":")[2]
    return ""


def may_read(ctx: UiContext, scope: Scope) -> int:
    """200 when the request may read ``/metrics``, else the HTTP status to refuse it with."""
    if ctx.settings.metrics_public:
        return 200
    if ctx.accounts_mode():
        name = (scope.get("state") or {}).get("quizbot_user")
        if not name:
            return 401
        account = accounts.user(ctx.db, str(name))
        admin = account is not None and not account.disabled and account.role == Role.ADMIN
        return 200 if admin else 403
    client = scope.get("client")
    address = str(client[0]) if client else None
    try:
        admin = ctx.check_admin(_presented_secret(scope), address, audit_success=False)
    except RateLimitedError:
        return 429
    return 200 if admin else 401


class MetricsEndpoint:
    """The ``/metrics`` ASGI app (GET or HEAD)."""

    def __init__(self, ctx: UiContext) -> None:
        self.ctx = ctx
        self.registry = registry_for(ctx.db)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one request with the text exposition format, or a refusal."""
        if scope["type"] != "http":
            return
        if scope.get("method") not in ("GET", "HEAD"):
            await _reply(send, 405, b"GET only\n", [(b"allow", b"GET, HEAD")])
            return
        status = await anyio.to_thread.run_sync(may_read, self.ctx, scope)
        if status != 200:
            extra = [(b"www-authenticate", b'Bearer realm="quizbot metrics"')]
            text = {403: b"admin access required\n", 429: b"too many attempts\n"}.get(
                status, b"login required\n"
            )
            await _reply(send, status, text, extra if status == 401 else [])
            return
        body = await anyio.to_thread.run_sync(generate_latest, self.registry)
        headers = [(b"content-type", CONTENT_TYPE_LATEST.encode()), (b"cache-control", b"no-store")]
        await _reply(send, 200, b"" if scope.get("method") == "HEAD" else body, headers)


async def _reply(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    if not any(name == b"content-type" for name, _ in headers):
        headers = [*headers, (b"content-type", b"text/plain; charset=utf-8")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class RequestTimer:
    """ASGI middleware: each HTTP request's time to its last byte, by route group."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on and observe how long it took."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            REQUEST_LATENCY.labels(route_of(str(scope.get("path", "")))).observe(
                time.perf_counter() - start
            )
