"""The web front door: Gradio served inside FastAPI, behind a login gate and safe headers.

Every request passes :class:`GateMiddleware` first. It decides who the request is from
(:meth:`Gate.principal`) and refuses it before any page, file, upload or Gradio API route is
reached when nobody is:

- **local mode** (no account, no proxy; ``quizbot serve`` refuses this mode off loopback):
  everyone is the local user, as before accounts existed;
- **accounts mode** (from the first account on): the ``quizbot_session`` cookie (HttpOnly,
  SameSite=Lax, Secure over HTTPS) must name a live session; only ``/login`` and ``/logout`` are
  open;
- **proxy mode** (``QUIZBOT_TRUSTED_PROXY_HEADER`` and ``QUIZBOT_TRUSTED_PROXIES``): the header
  names the user, and only requests from the configured proxy addresses are accepted.

Login attempts are rate-limited per client address and per username
(:meth:`Gate.check_login_rate`, HTTP 429 with ``Retry-After``), on top of the accounts' lockout.
``/account`` lets a logged-in account change its own password (current password, new one twice);
its other sessions end, this one stays.

The account name reaches Gradio through ``mount_gradio_app(auth_dependency=...)``, so handlers
read it as ``gr.Request.username`` (:mod:`quizbot.ui.identity`). Every response carries
``X-Frame-Options: DENY`` and ``Content-Security-Policy: frame-ancestors 'none'``; CORS allows
no other origin; Gradio's run history (which keeps inputs and outputs in the browser) is off.
"""

from __future__ import annotations

import html
import logging
from typing import Any

import anyio
import gradio as gr
from fastapi import APIRouter, FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.datastructures import MutableHeaders
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from quizbot import accounts
from quizbot.config import Settings
from quizbot.errors import QuizbotError
from quizbot.ratelimit import RateLimit, RateLimitedError
from quizbot.ui.app import build_app, launch_options
from quizbot.ui.context import UiContext
from quizbot.ui.metrics import METRICS_PATH, MetricsEndpoint, RequestTimer
from storage import Database

__all__ = ["COOKIE", "SECURITY_HEADERS", "Gate", "GateMiddleware", "web_app"]

log = logging.getLogger(__name__)

COOKIE = "quizbot_session"
PUBLIC_PATHS = frozenset({"/login", "/logout"})
SECURITY_HEADERS = (
    ("X-Frame-Options", "DENY"),
    ("Content-Security-Policy", "frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
)
REFUSED = "Wrong username or password, or the account is locked for a while."
ANALYTICS_EVERY = 500  # events between two rebuilds of Gradio's monitoring summary (see web_app)


class Gate:
    """Who a request is from, by the mode in force."""

    def __init__(self, ctx: UiContext) -> None:
        self.ctx = ctx
        settings = ctx.settings
        # Login attempts: per client address (a reverse proxy is one address) and per username,
        # each a token bucket of N at once then N per minute, on top of the accounts' lockout.
        self.by_address = RateLimit(
            settings.login_per_minute_address / 60, settings.login_per_minute_address
        )
        self.by_user = RateLimit(
            settings.login_per_minute_user / 60, settings.login_per_minute_user
        )

    def check_login_rate(self, address: str, name: str) -> None:
        """Take one login attempt from ``address`` and from ``name``'s bucket; raises
        :class:`RateLimitedError` when either has none left."""
        self.by_address.check(address)
        self.by_user.check(name.casefold())

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

    def secure(self, request: Request) -> bool:
        """Whether the session cookie must be Secure: HTTPS here, HTTPS at a trusted proxy or
        loopback reverse proxy (``X-Forwarded-Proto``), or QUIZBOT_SECURE_COOKIES."""
        if self.ctx.settings.secure_cookies or request.url.scheme == "https":
            return True
        peer = request.client.host if request.client else None
        forwarded = request.headers.get("x-forwarded-proto", "").lower() == "https"
        return forwarded and (peer in {"127.0.0.1", "::1"} or self.ctx.settings.trusted_proxy(peer))


class GateMiddleware:
    """Refuse what nobody may see, and add the security headers to every response."""

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
        await self.app(scope, receive, send_safe)


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
) -> HTMLResponse:  # fmt: skip
    body = _PAGE.format(
        root=html.escape(request.scope.get("root_path", "")),
        message=f'<p class="message" role="alert">{html.escape(message)}</p>' if message else "",
        username=html.escape(username),
        focus_user="" if username else "autofocus",
        change=_CHANGE.format(n=accounts.MIN_PASSWORD_LENGTH) if change else "",
    )
    return HTMLResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


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
) -> HTMLResponse:
    shown = ""
    if message:
        kind = "done" if done else "message"
        shown = (
            f'<p class="{kind}" role="{"status" if done else "alert"}">{html.escape(message)}</p>'
        )
    body = _ACCOUNT.format(
        root=html.escape(request.scope.get("root_path", "")),
        name=html.escape(name),
        message=shown,
        n=accounts.MIN_PASSWORD_LENGTH,
    )
    return HTMLResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


def _plain(exc: QuizbotError) -> str:
    """An error's message without its ``field '...':`` prefix, first letter capitalised."""
    text = exc.message.split(": ", 1)[-1] if exc.message.startswith("field ") else exc.message
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _router(gate: Gate) -> APIRouter:
    router = APIRouter()

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
        peer = request.client.host if request.client else "?"
        form = await request.form()
        name = str(form.get("username") or "").strip()[:100]
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
        peer = request.client.host if request.client else "?"
        form = await request.form()
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

    @router.api_route("/logout", methods=["GET", "POST"], include_in_schema=False)
    async def logout(request: Request) -> Response:
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

    return router


def web_app(settings: Settings, db: Database) -> FastAPI:
    """The whole web app: login routes, the gate, CORS, and the Gradio UI mounted at ``/``."""
    ctx = UiContext(settings, db)
    gate = Gate(ctx)
    blocks = build_app(settings, db, ctx)
    blocks.queue(default_concurrency_limit=16)
    # Gradio rebuilds its monitoring summary (a pandas group-by over the last 10,000 events) after
    # every event by default: about 5 ms of CPU per event once the server has run a while, more
    # than a practice answer's own SQL. Only Gradio's /monitoring page reads it; a summary at most
    # ANALYTICS_EVERY events old is fine there.
    blocks._queue.ANAYLTICS_CACHE_FREQUENCY = ANALYTICS_EVERY
    api = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    api.include_router(_router(gate))
    # /metrics: a plain ASGI app with its own access check (quizbot.ui.metrics)
    api.router.routes.append(Route(METRICS_PATH, MetricsEndpoint(ctx), include_in_schema=False))
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
