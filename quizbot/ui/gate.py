"""The web front door: Gradio served inside FastAPI, behind a login gate and safe headers.

Every request passes :class:`GateMiddleware` first. It refuses a ``Host`` it does not answer to
(local mode: loopback names and QUIZBOT_ALLOWED_HOSTS only, so a DNS-rebinding page reaches
nothing) and a state-changing request from another page's ``Origin``; then it decides who the
request is from (:meth:`Gate.principal`) and refuses it before any page, file, upload or Gradio
API route is reached when nobody is:

- **local mode** (no account, no proxy; ``quizbot serve`` refuses this mode off loopback):
  everyone is the local user, as before accounts existed;
- **accounts mode** (from the first account on): the ``quizbot_session`` cookie (HttpOnly,
  SameSite=Lax, Secure over HTTPS) must name a live session; only ``/login`` and ``/logout`` are
  open;
- **proxy mode** (``QUIZBOT_TRUSTED_PROXY_HEADER`` and ``QUIZBOT_TRUSTED_PROXIES``): the header
  names the user, and only requests from the configured proxy addresses are accepted.

In accounts and proxy mode a Gradio session hash belongs to the account that used it first
(:class:`SessionOwners`): the hash is in every ``queue/data`` URL, so it must not work as a
credential for anyone else.

``GET /healthz`` is open in every mode (a reverse proxy's health check): 200 when the database
answers, 503 otherwise, and nothing more. Session-hash owners, upload volumes and the login and
answer rate limits are kept in the database (:mod:`storage.shared_state`), so several replicas
behind one proxy (``deploy/nginx.conf``) hold them together.

Login attempts are rate-limited per client address and per (username, address)
(:meth:`Gate.check_login_rate`, HTTP 429 with ``Retry-After``), before the accounts' lockout per
(username, address). The login, password-change and logout forms carry a token that must match
the browser's ``quizbot_csrf`` cookie (SameSite=Strict), and logging out is a POST.
``/account`` lets a logged-in account change its own password (current password, new one twice);
its other sessions end, this one stays.

The account name reaches Gradio through ``mount_gradio_app(auth_dependency=...)``, so handlers
read it as ``gr.Request.username`` (:mod:`quizbot.ui.identity`). Every response carries
``X-Frame-Options: DENY`` and ``Content-Security-Policy: frame-ancestors 'none'``; CORS allows
no other origin; Gradio's run history (which keeps inputs and outputs in the browser) is off.
"""

from __future__ import annotations

import asyncio
import hmac
import html
import ipaddress
import json
import logging
import secrets
import threading
from collections import OrderedDict
from typing import Any
from urllib.parse import urlsplit

import anyio
import gradio as gr
from fastapi import APIRouter, FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.datastructures import Headers, MutableHeaders
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from quizbot import accounts, clock
from quizbot.config import Settings
from quizbot.errors import QuizbotError
from quizbot.ratelimit import RateLimitedError
from quizbot.ui.app import build_app, launch_options
from quizbot.ui.context import UiContext
from quizbot.ui.event_stream import LastingEventStream, pending_in
from quizbot.ui.gradio_tabs import cache_block_signatures
from quizbot.ui.metrics import METRICS_PATH, MetricsEndpoint, RequestTimer
from storage import Database, shared_state

__all__ = ["COOKIE", "SECURITY_HEADERS", "Gate", "GateMiddleware", "heartbeat_stops", "web_app"]

log = logging.getLogger(__name__)

COOKIE = "quizbot_session"
CSRF_COOKIE = "quizbot_csrf"  # the login, account and logout forms' token (double submit)
CSRF_FIELD = "csrf"
EXPIRED = "This form has expired (or came from another page). Please try again."
HEALTH_PATH = "/healthz"  # the reverse proxy's health check: open in every mode, no secret
PUBLIC_PATHS = frozenset({"/login", "/logout", HEALTH_PATH})
SECURITY_HEADERS = (
    ("X-Frame-Options", "DENY"),
    ("Content-Security-Policy", "frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
)
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443"}
REFUSED = "Wrong username or password, or the account is locked for a while."
ANALYTICS_EVERY = 500  # events between two rebuilds of Gradio's monitoring summary (see web_app)
# Gradio's queue looks for new events every 1 ms and for progress to send every 10 ms while it has
# nothing to do: about 9 % of a core for a server nobody uses (measured, docs/performance.md). At
# these periods an idle server costs about 3 %, and an event waits at most 10 ms (5 on average)
# longer to start when the queue was empty; a busy queue takes the next event without sleeping.
QUEUE_IDLE_POLL_S = 0.01
PROGRESS_POLL_S = 0.1  # how often a running event's progress bar is sent (Gradio's Windows value)


class Gate:
    """Who a request is from, by the mode in force."""

    def __init__(self, ctx: UiContext) -> None:
        self.ctx = ctx
        self.session_owners = SessionOwners(ctx.db)
        self.uploads = UploadBudget(ctx.db, ctx.settings.upload_mb_per_hour * 1024 * 1024)

    def check_login_rate(self, address: str, name: str) -> None:
        """Take one login attempt of ``name`` from ``address`` (per address, and per username
        from that address); raises :class:`RateLimitedError` when either has none left."""
        self.ctx.check_login_rate(address, name)

    def host_allowed(self, host: str) -> bool:
        """Whether a request's ``Host`` header may be answered: a loopback name (``localhost``,
        127.0.0.0/8, ``[::1]``) or a name of QUIZBOT_ALLOWED_HOSTS, with any port; in accounts
        and proxy mode without QUIZBOT_ALLOWED_HOSTS, any name (a reverse proxy's)."""
        name = _host_name(host)
        if name in self.ctx.settings.allowed_hosts or _is_loopback(name):
            return True
        local = not self.ctx.settings.proxy_mode and not self.ctx.accounts_mode()
        return bool(name) and not local and not self.ctx.settings.allowed_hosts

    def origin_allowed(self, origin: str | None, host: str) -> bool:
        """Whether a state-changing request with this ``Origin`` header may go on: none sent (not
        a browser), the page's own origin (scheme aside: the same host and port as ``Host``),
        or a name of QUIZBOT_ALLOWED_HOSTS. ``null`` and every other origin are refused."""
        if origin is None:
            return True
        try:
            parts = urlsplit(origin.strip())
            port = parts.port
        except ValueError:
            return False
        if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
            return False
        if parts.hostname.lower() in self.ctx.settings.allowed_hosts:
            return True
        shown = str(port) if port is not None else _DEFAULT_PORTS[parts.scheme]
        return (parts.hostname.lower(), shown) == _host_and_port(host, shown)

    @property
    def db(self) -> Database:
        """The app's database."""
        return self.ctx.db

    def principal(self, request: Request) -> str | None:
        """The account name of ``request``, ``""`` for the local user, or None (refused)."""
        settings = self.ctx.settings
        if settings.proxy_mode:
            peer = request.client.host if request.client else None
            if not settings.trusted_proxy(peer) or settings.trusted_proxy_header is None:
                return None
            name = request.headers.get(settings.trusted_proxy_header, "").strip()
            if not accounts.NAME_PATTERN.fullmatch(name):
                return None
            account = accounts.user(self.db, name)
            return None if account is not None and account.disabled else name
        if self.ctx.accounts_mode():
            account = accounts.session_account(self.db, request.cookies.get(COOKIE, ""))
            return None if account is None else account.name
        return ""

    def username(self, request: Request) -> str | None:
        """Gradio's ``auth_dependency``: the name the middleware already resolved."""
        value = getattr(request.state, "quizbot_user", None)
        return value if isinstance(value, str) else None

    def login_address(self, request: Request) -> str:
        """The client address logins are throttled and locked by: the peer, or, when the peer is
        a reverse proxy on this machine or in QUIZBOT_TRUSTED_PROXIES, the last address of its
        ``X-Forwarded-For`` (the one that proxy saw), so that one stranger behind it cannot
        lock an account for every other client."""
        peer = request.client.host if request.client else "?"
        trusted = peer in {"127.0.0.1", "::1"} or self.ctx.settings.trusted_proxy(peer)
        forwarded = request.headers.get("x-forwarded-for", "").split(",")[-1].strip()
        if trusted and forwarded:
            try:
                return str(ipaddress.ip_address(forwarded))
            except ValueError:
                return peer
        return peer

    def secure(self, request: Request) -> bool:
        """Whether the session cookie must be Secure: HTTPS here, HTTPS at a trusted proxy or
        loopback reverse proxy (``X-Forwarded-Proto``), or QUIZBOT_SECURE_COOKIES."""
        if self.ctx.settings.secure_cookies or request.url.scheme == "https":
            return True
        peer = request.client.host if request.client else None
        forwarded = request.headers.get("x-forwarded-proto", "").lower() == "https"
        return forwarded and (peer in {"127.0.0.1", "::1"} or self.ctx.settings.trusted_proxy(peer))


class SessionOwners:
    """Which account first used each Gradio session hash: no other account may use it.

    Gradio keeps a browser's state (``gr.State``, the practice session in progress) under the
    session hash the page made up, and the hash travels in every ``queue/data`` URL, so proxy logs
    and browser history hold it. The gate therefore binds a hash to the account that used it
    first and refuses it to every other account, on every replica: the claim is kept in the
    database (:func:`storage.shared_state.claim_session_hash`). An owner never changes, so each
    process remembers the owners it has seen (at most :attr:`limit`, the oldest forgotten first)
    and asks the database only about a hash new to it. Claims older than :attr:`KEEP_S` are swept
    (with their Gradio states long gone)."""

    KEEP_S = 7 * 24 * 3600.0
    SWEEP_EVERY_S = 600.0

    def __init__(self, db: Database, limit: int = 200_000) -> None:
        self.db = db
        self.limit = limit
        self._owners: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self._swept = -1e18

    def known(self, session_hash: str, user: str) -> bool | None:
        """Whether ``user`` may use ``session_hash`` as far as this process knows (no database):
        None when the hash is new to this process."""
        with self._lock:
            owner = self._owners.get(session_hash)
            if owner is not None:
                self._owners.move_to_end(session_hash)
        return None if owner is None else owner == user

    def claim(self, session_hash: str, user: str) -> bool:
        """Whether ``user`` may use ``session_hash``: a new hash becomes theirs."""
        seen = self.known(session_hash, user)
        if seen is not None:
            return seen
        now = clock.timestamp()
        owner = shared_state.claim_session_hash(self.db, session_hash, user, now=now)
        with self._lock:
            self._owners[session_hash] = owner
            if len(self._owners) > self.limit:
                self._owners.popitem(last=False)
            sweep = now - self._swept >= self.SWEEP_EVERY_S
            if sweep:
                self._swept = now
        if sweep:
            shared_state.sweep_session_hashes(self.db, older_than=now - self.KEEP_S)
        return owner == user


class UploadBudget:
    """How many bytes each account has uploaded in the last hour, counted in the database (every
    replica adds to the same hour): a file is refused once it would take the account past
    QUIZBOT_UPLOAD_MB_PER_HOUR, whatever its own size."""

    WINDOW_S = 3600.0

    def __init__(self, db: Database, bytes_per_hour: int) -> None:
        self.db = db
        self.bytes_per_hour = bytes_per_hour

    def take(self, user: str, size: int, now: float | None = None) -> float | None:
        """Count ``size`` bytes for ``user``; None when allowed, else the seconds until enough of
        the hour's uploads age out."""
        return shared_state.take_upload(
            self.db,
            user,
            size,
            limit=self.bytes_per_hour,
            window=self.WINDOW_S,
            now=clock.timestamp() if now is None else now,
        )


GRADIO_PREFIXES = ("/gradio_api/", "/queue/", "/heartbeat/", "/run/", "/api/", "/call/")
MAX_JSON_BODY = 32 * 1024 * 1024  # a queue/join body is small; files go to /upload apart


def _session_hashes(scope: Scope, body: bytes | None) -> set[str]:
    """The Gradio session hashes a request names: ``?session_hash=``, ``/heartbeat/HASH`` and a
    JSON body's ``session_hash``."""
    found: set[str] = set()
    query = scope.get("query_string", b"").decode("latin-1")
    for part in query.split("&"):
        key, _, value = part.partition("=")
        if key == "session_hash" and value:
            found.add(value)
    path: str = scope.get("path", "")
    if "/heartbeat/" in path:
        found.add(path.rsplit("/heartbeat/", 1)[1].strip("/"))
    if body:
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            data = None
        if isinstance(data, dict) and isinstance(data.get("session_hash"), str):
            found.add(data["session_hash"])
    return {h for h in found if h}


async def _read_body(receive: Receive) -> tuple[bytes, list[Message]]:
    """The whole request body, and the messages to hand on unchanged."""
    messages: list[Message] = []
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= MAX_JSON_BODY:
            chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return (b"".join(chunks) if size <= MAX_JSON_BODY else b""), messages


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def _receive() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return _receive


def _host_name(host: str) -> str:
    """The name of a ``Host`` header, lower case, without its port and brackets."""
    return _host_and_port(host, "")[0]


def _host_and_port(host: str, default: str) -> tuple[str, str]:
    """A ``Host`` header as (name, port), ``default`` when it names no port."""
    value = host.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return "", default
        port = value[end + 1 :].removeprefix(":")
        return value[1:end], port or default
    if value.count(":") == 1:
        name, port = value.split(":")
        return name, port or default
    return ("", default) if ":" in value else (value, default)


def _is_loopback(name: str) -> bool:
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class GateMiddleware:
    """Refuse what nobody may see, and add the security headers to every response.

    First the names: a ``Host`` the gate does not answer to gets HTTP 400 (DNS rebinding: a web
    page whose name resolves to 127.0.0.1 reaches no app), and a state-changing request (any
    method but GET, HEAD and OPTIONS, and every WebSocket) from another page's ``Origin`` gets
    403. Then who the request is from (:meth:`Gate.principal`)."""

    def __init__(self, app: ASGIApp, gate: Gate) -> None:
        self.app = app
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def send_safe(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS:
                    headers[name] = value
            await send(message)

        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if not self.gate.host_allowed(host):
            log.warning("refused a request for host %r", host[:100])
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            refused = Response("Invalid host header", status_code=400, media_type="text/plain")
            await refused(scope, receive, send_safe)
            return
        changes = scope["type"] == "websocket" or scope.get("method") not in SAFE_METHODS
        if changes and not self.gate.origin_allowed(headers.get("origin"), host):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            refused = JSONResponse({"detail": "cross-origin request refused"}, status_code=403)
            await refused(scope, receive, send_safe)
            return
        path = scope.get("path", "")
        public_metrics = path == METRICS_PATH and self.gate.ctx.settings.metrics_public
        if path not in PUBLIC_PATHS and not public_metrics:
            request = Request(scope)
            user = await anyio.to_thread.run_sync(self.gate.principal, request)
            if user is None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await _refusal(request)(scope, receive, send_safe)
                return
            scope.setdefault("state", {})["quizbot_user"] = user
            if user and scope.get("method") == "POST" and path.rstrip("/").endswith("/upload"):
                refused_upload = await self._upload_refusal(headers, user)
                if refused_upload is not None:
                    await refused_upload(scope, receive, send_safe)
                    return
            if user and path.startswith(GRADIO_PREFIXES):
                receive, owned = await self._own_sessions(scope, receive, headers, user)
                if not owned:
                    if scope["type"] == "websocket":
                        await send({"type": "websocket.close", "code": 1008})
                        return
                    refused = JSONResponse(
                        {"detail": "this session belongs to another account"}, status_code=403
                    )
                    await refused(scope, receive, send_safe)
                    return
        await self.app(scope, receive, send_safe)

    async def _upload_refusal(self, headers: Headers, user: str) -> Response | None:
        """None when ``user`` may upload this body, else the refusal: no length given (411), or
        over the account's hourly volume (429 with ``Retry-After``)."""
        try:
            size = int(headers.get("content-length", ""))
        except ValueError:
            return JSONResponse({"detail": "an upload must give its length"}, status_code=411)
        wait = await anyio.to_thread.run_sync(self.gate.uploads.take, user, size)
        if wait is None:
            return None
        limit = self.gate.ctx.settings.upload_mb_per_hour
        log.warning("refused an upload of %s: over %d MB this hour", user, limit)
        return JSONResponse(
            {"detail": f"upload limit of {limit} MB per hour reached; try again later"},
            status_code=429,
            headers={"Retry-After": str(round(wait))},
        )

    async def _own_sessions(
        self, scope: Scope, receive: Receive, headers: Headers, user: str
    ) -> tuple[Receive, bool]:
        """Whether every Gradio session hash the request names is ``user``'s (a new one becomes
        theirs), and the ``receive`` to pass on (a JSON body is read here and replayed)."""
        body = None
        json_body = "json" in headers.get("content-type", "").lower()
        if scope["type"] == "http" and scope.get("method") == "POST" and json_body:
            body, messages = await _read_body(receive)
            receive = _replay(messages, receive)
        owners = self.gate.session_owners
        hashes = _session_hashes(scope, body)
        if all(owners.known(h, user) is not None for h in hashes):  # no database needed
            refused = [h for h in hashes if not owners.known(h, user)]
        else:
            refused = await anyio.to_thread.run_sync(
                lambda: [h for h in hashes if not owners.claim(h, user)]
            )
        if refused:
            log.warning("refused %s the Gradio session of another account", user)
        return receive, not refused


def _refusal(request: Request) -> Response:
    root = request.scope.get("root_path", "")
    wants_page = request.method == "GET" and "text/html" in request.headers.get("accept", "")
    if wants_page:
        return RedirectResponse(f"{root}/login", status_code=303)
    return JSONResponse({"detail": "login required"}, status_code=401)


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>quizbot: log in</title>
<style>
body {{ font-family: system-ui, sans-serif; background: #f6f7f9; margin: 0; }}
main {{ max-width: 360px; margin: 12vh auto; background: #fff; padding: 28px 32px;
  border-radius: 10px; box-shadow: 0 1px 4px rgba(0,0,0,.12); }}
h1 {{ font-size: 1.4em; margin: 0 0 16px; }}
label {{ display: block; margin: 12px 0 4px; font-weight: 600; }}
input {{ width: 100%; box-sizing: border-box; padding: 8px; font-size: 1em; }}
button {{ margin-top: 18px; width: 100%; padding: 10px; font-size: 1em; background: #f97316;
  color: #fff; border: 0; border-radius: 6px; cursor: pointer; }}
p.message {{ color: #b91c1c; }} p.note {{ color: #555; font-size: .9em; }}
</style></head>
<body><main>
<h1>quizbot</h1>
{message}
<form method="post" action="{root}/login" autocomplete="on">
<input type="hidden" name="csrf" value="{csrf}">
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" required maxlength="100"
 value="{username}" {focus_user}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required
 maxlength="1024">
{change}
<button type="submit">Log in</button>
</form>
</main></body></html>
"""

_CHANGE = """<p class="note">This one-time password must be replaced now (at least {n} characters,
not only spaces, not your username).</p>
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password"
 required maxlength="1024" autofocus>
<label for="new_password2">New password again</label>
<input id="new_password2" name="new_password2" type="password" autocomplete="new-password"
 required maxlength="1024">
"""


def _page(
    request: Request, *, message: str = "", username: str = "", change: bool = False,
    status: int = 200,
) -> Response:  # fmt: skip
    token = _csrf_token(request)
    body = _PAGE.format(
        csrf=token,
        root=html.escape(request.scope.get("root_path", "")),
        message=f'<p class="message" role="alert">{html.escape(message)}</p>' if message else "",
        username=html.escape(username),
        focus_user="" if username else "autofocus",
        change=_CHANGE.format(n=accounts.MIN_PASSWORD_LENGTH) if change else "",
    )
    response = HTMLResponse(body, status_code=status, headers={"Cache-Control": "no-store"})
    return _with_csrf(request, response, token)


_ACCOUNT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>quizbot: your account</title>
<style>
body {{ font-family: system-ui, sans-serif; background: #f6f7f9; margin: 0; }}
main {{ max-width: 380px; margin: 10vh auto; background: #fff; padding: 28px 32px;
  border-radius: 10px; box-shadow: 0 1px 4px rgba(0,0,0,.12); }}
h1 {{ font-size: 1.4em; margin: 0 0 16px; }}
label {{ display: block; margin: 12px 0 4px; font-weight: 600; }}
input {{ width: 100%; box-sizing: border-box; padding: 8px; font-size: 1em; }}
button {{ margin-top: 18px; width: 100%; padding: 10px; font-size: 1em; background: #f97316;
  color: #fff; border: 0; border-radius: 6px; cursor: pointer; }}
p.message {{ color: #b91c1c; }} p.done {{ color: #15803d; }} p.note {{ color: #555; }}
</style></head>
<body><main>
<h1>Change your password</h1>
<p class="note">Signed in as <strong>{name}</strong>. <a href="{root}/">Back to quizbot</a></p>
{message}
<form method="post" action="{root}/account" autocomplete="off">
<input type="hidden" name="csrf" value="{csrf}">
<label for="current_password">Current password</label>
<input id="current_password" name="current_password" type="password" required maxlength="1024"
 autocomplete="current-password" autofocus>
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" required maxlength="1024"
 autocomplete="new-password">
<label for="new_password2">New password again</label>
<input id="new_password2" name="new_password2" type="password" required maxlength="1024"
 autocomplete="new-password">
<p class="note">At least {n} characters, not only spaces, not your username. Your other
sessions end when it changes; this one stays open.</p>
<button type="submit">Change password</button>
</form>
</main></body></html>
"""


def _account_page(
    request: Request, name: str, *, message: str = "", done: bool = False, status: int = 200
) -> Response:
    shown = ""
    if message:
        kind = "done" if done else "message"
        shown = (
            f'<p class="{kind}" role="{"status" if done else "alert"}">{html.escape(message)}</p>'
        )
    token = _csrf_token(request)
    body = _ACCOUNT.format(
        csrf=token,
        root=html.escape(request.scope.get("root_path", "")),
        name=html.escape(name),
        message=shown,
        n=accounts.MIN_PASSWORD_LENGTH,
    )
    response = HTMLResponse(body, status_code=status, headers={"Cache-Control": "no-store"})
    return _with_csrf(request, response, token)


_LOGOUT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>quizbot: log out</title>
<style>
body {{ font-family: system-ui, sans-serif; background: #f6f7f9; margin: 0; }}
main {{ max-width: 360px; margin: 12vh auto; background: #fff; padding: 28px 32px;
  border-radius: 10px; box-shadow: 0 1px 4px rgba(0,0,0,.12); }}
button {{ margin-top: 18px; width: 100%; padding: 10px; font-size: 1em; background: #f97316;
  color: #fff; border: 0; border-radius: 6px; cursor: pointer; }}
</style></head>
<body><main>
<h1>Log out of quizbot?</h1>
<form method="post" action="{root}/logout">
<input type="hidden" name="csrf" value="{csrf}">
<button type="submit" autofocus>Log out</button>
</form>
<p><a href="{root}/">Back to quizbot</a></p>
</main></body></html>
"""


def _csrf_token(request: Request) -> str:
    """The browser's form token: its ``quizbot_csrf`` cookie when it has a well-formed one, else
    a new random one (set by :func:`_with_csrf`)."""
    token = request.cookies.get(CSRF_COOKIE, "")
    ok = 20 <= len(token) <= 64 and all(c.isalnum() or c in "-_" for c in token)
    return token if ok else secrets.token_urlsafe(24)


def _with_csrf(request: Request, response: Response, token: str) -> Response:
    """Set the form token's cookie when the browser does not hold it yet. Strict: no other site's
    page sends it, so a form posted from elsewhere cannot carry a matching token."""
    if request.cookies.get(CSRF_COOKIE) != token:
        response.set_cookie(
            CSRF_COOKIE, token, path="/", httponly=True, samesite="strict",
            secure=request.url.scheme == "https",
        )  # fmt: skip
    return response


def _csrf_ok(request: Request, form: Any) -> bool:
    """Whether a posted form carries the token of the browser's ``quizbot_csrf`` cookie."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    sent = str(form.get(CSRF_FIELD) or "")
    return bool(cookie) and hmac.compare_digest(cookie.encode(), sent.encode())


def _plain(exc: QuizbotError) -> str:
    """An error's message without its ``field '...':`` prefix, first letter capitalised."""
    text = exc.message.split(": ", 1)[-1] if exc.message.startswith("field ") else exc.message
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _router(gate: Gate) -> APIRouter:
    """The gate's own routes: the health check, login, the account page and logout."""
    router = APIRouter()
    _health_route(router, gate)
    _login_routes(router, gate)
    _account_routes(router, gate)
    _logout_routes(router, gate)
    return router


def _health_route(router: APIRouter, gate: Gate) -> None:
    @router.get(HEALTH_PATH, include_in_schema=False)
    async def health() -> Response:
        """200 ``{"status": "ok"}`` when the database answers, else 503: for the reverse proxy
        and monitoring in front of several replicas. Says nothing else (no URL, no version)."""
        try:
            await anyio.to_thread.run_sync(gate.db.ping)
        except Exception as exc:
            log.warning("health check: the database does not answer: %s", str(exc)[:300])
            return JSONResponse(
                {"status": "unavailable", "database": "down"},
                status_code=503,
                headers={"Cache-Control": "no-store"},
            )
        return JSONResponse(
            {"status": "ok", "database": "up"}, headers={"Cache-Control": "no-store"}
        )


def _login_routes(router: APIRouter, gate: Gate) -> None:
    @router.get("/login", include_in_schema=False)
    async def login_page(request: Request) -> Response:
        if not gate.ctx.accounts_mode() or gate.ctx.settings.proxy_mode:
            return RedirectResponse(f"{request.scope.get('root_path', '')}/", status_code=303)
        return _page(request)

    @router.post("/login", include_in_schema=False)
    async def login_submit(request: Request) -> Response:
        root = request.scope.get("root_path", "")
        if not gate.ctx.accounts_mode() or gate.ctx.settings.proxy_mode:
            return RedirectResponse(f"{root}/", status_code=303)
        peer = gate.login_address(request)
        form = await request.form()
        name = str(form.get("username") or "").strip()[:100]
        if not _csrf_ok(request, form):
            return _page(request, message=EXPIRED, username=name, status=403)
        try:
            gate.check_login_rate(peer, name)
        except RateLimitedError as exc:
            wait = max(1, round(exc.retry_after))
            refused = _page(request, message=f"Too many attempts; wait {wait} s.", status=429)
            refused.headers["Retry-After"] = str(wait)
            return refused
        password = str(form.get("password") or "")
        new = form.get("new_password")
        new_password = None if new is None else str(new)
        if new_password is not None and new_password != str(form.get("new_password2") or ""):
            return _page(request, message="The new passwords differ.", username=name,
                         change=True, status=400)  # fmt: skip
        result = await anyio.to_thread.run_sync(
            lambda: accounts.login(gate.db, name, password, address=peer, new_password=new_password)
        )
        if result.outcome == "change_password":
            message = result.problem or "Choose a new password."
            return _page(request, message=message, username=name, change=True)
        if result.outcome != "ok" or result.token is None:
            return _page(request, message=REFUSED, username=name, status=401)
        response = RedirectResponse(f"{root}/", status_code=303)
        response.set_cookie(
            COOKIE,
            result.token,
            max_age=int(accounts.SESSION_LIFETIME.total_seconds()),
            path="/",
            httponly=True,
            samesite="lax",
            secure=gate.secure(request),
        )
        return response


def _account_routes(router: APIRouter, gate: Gate) -> None:
    def _own_account(request: Request) -> str | None:
        """The account name of a request that may change its password here (accounts mode,
        a session cookie; not the local user, not a proxy-named user)."""
        user = gate.username(request)
        if not user or gate.ctx.settings.proxy_mode or not request.cookies.get(COOKIE):
            return None
        return user

    @router.get("/account", include_in_schema=False)
    async def account_page(request: Request) -> Response:
        name = _own_account(request)
        if name is None:
            return HTMLResponse(
                "<!doctype html><p>There is no password to change here: passwords belong to "
                "accounts (local mode has none; behind a login proxy, change it there).</p>",
                status_code=404,
            )
        return _account_page(request, name)

    @router.post("/account", include_in_schema=False)
    async def account_submit(request: Request) -> Response:
        name = _own_account(request)
        if name is None:
            return JSONResponse({"detail": "no account password here"}, status_code=404)
        peer = gate.login_address(request)
        form = await request.form()
        if not _csrf_ok(request, form):
            return _account_page(request, name, message=EXPIRED, status=403)
        current = str(form.get("current_password") or "")
        new = str(form.get("new_password") or "")
        if new != str(form.get("new_password2") or ""):
            return _account_page(request, name, message="The new passwords differ.", status=400)
        try:
            gate.check_login_rate(peer, name)
        except RateLimitedError as exc:
            wait = max(1, round(exc.retry_after))
            refused = _account_page(
                request, name, message=f"Too many attempts; wait {wait} s.", status=429
            )
            refused.headers["Retry-After"] = str(wait)
            return refused
        token = request.cookies.get(COOKIE, "")
        try:
            await anyio.to_thread.run_sync(
                lambda: accounts.change_password(gate.db, token, current, new, address=peer)
            )
        except QuizbotError as exc:
            return _account_page(request, name, message=_plain(exc), status=400)
        return _account_page(
            request,
            name,
            message="Your password was changed. Your other sessions have been ended.",
            done=True,
        )


def _logout_routes(router: APIRouter, gate: Gate) -> None:
    @router.get("/logout", include_in_schema=False)
    async def logout_page(request: Request) -> Response:
        """Logging out is a POST with the form token: this page asks for it (a link or an
        image elsewhere cannot log anyone out)."""
        root = html.escape(request.scope.get("root_path", ""))
        token = _csrf_token(request)
        page = HTMLResponse(
            _LOGOUT.format(root=root, csrf=token), headers={"Cache-Control": "no-store"}
        )
        return _with_csrf(request, page, token)

    @router.post("/logout", include_in_schema=False)
    async def logout(request: Request) -> Response:
        form = await request.form()
        if not _csrf_ok(request, form):
            return JSONResponse({"detail": EXPIRED}, status_code=403)
        token = request.cookies.get(COOKIE, "")
        if token:

            def _end() -> None:
                account = accounts.session_account(gate.db, token)
                accounts.logout(gate.db, token, actor=account.name if account else None)

            await anyio.to_thread.run_sync(_end)
        root = request.scope.get("root_path", "")
        response = RedirectResponse(f"{root}/login", status_code=303)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return response


def web_app(settings: Settings, db: Database) -> FastAPI:
    """The whole web app: login routes, the gate, CORS, and the Gradio UI mounted at ``/``."""
    # Every config Gradio builds (for each new tab, and four times while the app is built and
    # mounted) asks inspect.signature of every block's class: half of a new tab's cost, and a
    # second of a start (quizbot.ui.gradio_tabs). Set before the build, so the build gains too.
    cache_block_signatures()
    ctx = UiContext(settings, db)
    gate = Gate(ctx)
    blocks = build_app(settings, db, ctx)
    blocks.queue(default_concurrency_limit=16)
    # Gradio rebuilds its monitoring summary (a pandas group-by over the last 10,000 events) after
    # every event by default: about 5 ms of CPU per event once the server has run a while, more
    # than a practice answer's own SQL. Only Gradio's /monitoring page reads it; a summary at most
    # ANALYTICS_EVERY events old is fine there.
    blocks._queue.ANAYLTICS_CACHE_FREQUENCY = ANALYTICS_EVERY
    blocks._queue.sleep_when_free = QUEUE_IDLE_POLL_S  # see QUEUE_IDLE_POLL_S
    blocks._queue.progress_update_sleep_when_free = PROGRESS_POLL_S
    api = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    api.include_router(_router(gate))
    # /metrics: a plain ASGI app with its own access check (quizbot.ui.metrics)
    api.router.routes.append(Route(METRICS_PATH, MetricsEndpoint(ctx), include_in_schema=False))
    # innermost: a page's event stream lasts as long as the page (issue 31, the module's docstring)
    api.add_middleware(
        LastingEventStream, stops=lambda: heartbeat_stops(api), pending=pending_in(blocks)
    )
    api.add_middleware(RequestTimer)  # request latency for /metrics, inside the gate
    # No origin but our own: with this middleware present Gradio adds no CORS headers of its own.
    api.add_middleware(CORSMiddleware, allow_origins=[], allow_credentials=False)
    api.add_middleware(GateMiddleware, gate=gate)  # outermost: refusals get the headers too
    mounted: Any = gr.mount_gradio_app(
        api,
        blocks,
        path="/",
        auth_dependency=gate.username,
        run_history=False,
        show_error=False,
        ssr_mode=False,
        **launch_options(settings),  # the upload size limit and the CSS
    )
    app: FastAPI = mounted
    return app


def heartbeat_stops(app: FastAPI) -> list[asyncio.Event]:
    """The events that end the heartbeat streams of the Gradio UI mounted in ``app``.

    Every open browser tab holds a Gradio heartbeat stream that ends only when the mounted
    Gradio app's ``stop_event`` is set, which Gradio's own launcher does on close. quizbot runs
    uvicorn itself (:mod:`quizbot.server`), which sets these when it is told to stop, so that
    no open tab keeps the server from stopping. A touch of Gradio's insides (the attribute):
    ``tests/quizbot/test_server.py`` fails if setting it stops ending the streams.
    """
    events: list[asyncio.Event] = []
    for route in app.routes:
        if isinstance(route, Mount):
            event = getattr(route.app, "stop_event", None)
            if isinstance(event, asyncio.Event):
                events.append(event)
    return events
