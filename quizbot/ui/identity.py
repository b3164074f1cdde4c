"""Who is using the app, learned on the server from the request, never from the browser's values.

In accounts mode :mod:`quizbot.ui.gate` resolves the session cookie (or, behind an
authenticating proxy, the trusted header) before Gradio sees the request, and hands Gradio the
account name through ``mount_gradio_app(auth_dependency=...)``; a handler gets it as
``gr.Request.username`` and :func:`current` turns it into a :class:`Viewer` with the account's role
and cohort, read from the database at each call (a disabled account stops at once). In local mode
(no accounts, loopback) the viewer is :data:`LOCAL` and everything works as it always has.

:func:`restrict` puts a role check in front of every handler whose declared area needs a role
(:mod:`quizbot.ui.wiring`; the check runs on the server for every call, raw HTTP included);
:func:`as_student` makes a Practice handler use the logged-in account instead of the pseudonym
and cohort typed in the form.
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from quizbot import accounts
from quizbot.domain import Role
from quizbot.practice import service as practice_service
from quizbot.practice.seats import Sitter
from quizbot.ui.context import UiContext
from quizbot.ui.wiring import Wiring, handler_name

__all__ = [
    "LOCAL",
    "NOT_YOURS",
    "NO_COHORT",
    "Viewer",
    "as_student",
    "current",
    "for_account",
    "hide_in_accounts_mode",
    "own_sessions",
    "restrict",
    "scoped_cohort",
    "sitter",
    "tab_visibility",
]

log = logging.getLogger(__name__)

_RANK = {Role.STUDENT: 0, Role.INSTRUCTOR: 1, Role.ADMIN: 2}
REFUSED = "Your account may not do this."
REFUSED_BURST_S = 60.0  # refused calls of one account this close together are one burst
REFUSED_DELAY_S = 0.25  # each refused call of a burst after the first waits this much longer
REFUSED_MAX_DELAY_S = 2.0


class Refusals:
    """Refused calls per account, in bursts: the first refusal of a burst is audit-logged and
    logged (one line, no traceback); the rest of the burst is only counted, and the count is
    written with the next burst's first row. Each further refusal of a burst is answered a little
    later (at most :data:`REFUSED_MAX_DELAY_S`), so hammering a handler costs the caller time."""

    def __init__(self) -> None:
        self._bursts: dict[str, tuple[float, int]] = {}  # name -> (last refusal, count)
        self._lock = threading.Lock()

    def refused(self, name: str, now: float | None = None) -> tuple[bool, int, float]:
        """Count one refused call of ``name``: whether it starts a burst (write it down), how
        many refusals of the previous burst went unwritten, and how long to wait."""
        now = time.monotonic() if now is None else now
        with self._lock:
            last, count = self._bursts.get(name, (-1e18, 0))
            if now - last > REFUSED_BURST_S:
                self._bursts[name] = (now, 1)
                if len(self._bursts) > 10_000:
                    self._bursts = {n: v for n, v in self._bursts.items() if now - v[0] <= 60}
                return True, max(0, count - 1), 0.0
            self._bursts[name] = (now, count + 1)
            return False, 0, min(REFUSED_MAX_DELAY_S, REFUSED_DELAY_S * count)


@dataclass(frozen=True, slots=True)
class Viewer:
    """The person behind a request: an account (name, role, cohort) or the local user."""

    name: str | None
    role: Role | None
    cohort: str | None = None

    @property
    def local(self) -> bool:
        """Single-user local mode: no accounts, everything allowed as before."""
        return self.name is None

    def allows(self, needed: Role) -> bool:
        """Whether this viewer may do what needs ``needed`` (local mode: always)."""
        return self.role is None or _RANK[self.role] >= _RANK[needed]

    @property
    def is_admin(self) -> bool:
        """An admin account (local mode keeps its own admin password instead)."""
        return self.role is Role.ADMIN


LOCAL = Viewer(None, None)


def current(ctx: UiContext, request: gr.Request | None) -> Viewer:
    """The viewer of ``request``; raises :class:`gr.Error` when accounts mode is on and the request
    carries no valid account (the gate lets no such request through; this is the second lock)."""
    name = getattr(request, "username", None) if request is not None else None
    if not name:
        if ctx.accounts_mode():
            raise gr.Error("Please log in again.")
        return LOCAL
    account = accounts.user(ctx.db, str(name))
    if account is None:
        if ctx.settings.proxy_mode:  # named by the proxy, no account here: a student
            return Viewer(str(name), Role.STUDENT)
        raise gr.Error("Please log in again.")
    if account.disabled:
        raise gr.Error("This account is disabled.")
    return Viewer(account.name, Role(account.role), account.cohort)


def _with_request(
    fn: Callable[..., Any], names: list[inspect.Parameter], hints: dict[str, Any], check: Any
) -> Callable[..., Any]:
    """``fn`` behind ``check(request) -> None | skip value``, with a signature Gradio reads as
    ``names`` plus a trailing ``gr.Request``."""

    def _split(args: tuple[Any, ...]) -> tuple[tuple[Any, ...], Any]:
        return args[:-1], check(args[-1])

    wrapper: Callable[..., Any]
    if inspect.isasyncgenfunction(fn):

        async def wrapper(*args: Any) -> Any:
            rest, refused = _split(args)
            if refused is not None:
                yield refused
                return
            async for value in fn(*rest):
                yield value

    elif inspect.iscoroutinefunction(fn):

        async def wrapper(*args: Any) -> Any:
            rest, refused = _split(args)
            return refused if refused is not None else await fn(*rest)

    elif inspect.isgeneratorfunction(fn):

        def wrapper(*args: Any) -> Any:
            rest, refused = _split(args)
            if refused is not None:
                yield refused
                return
            yield from fn(*rest)

    else:

        def wrapper(*args: Any) -> Any:
            rest, refused = _split(args)
            return refused if refused is not None else fn(*rest)

    request = inspect.Parameter(  # a default: it may follow parameters that have one
        "qb_request", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=gr.Request
    )
    wrapper.__signature__ = inspect.Signature([*names, request])  # type: ignore[union-attr]
    wrapper.__annotations__ = {**hints, "qb_request": gr.Request}
    wrapper.__name__ = getattr(fn, "__name__", "handler")
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    _named_after(wrapper, fn)
    return wrapper


def _positional(
    fn: Callable[..., Any], n_inputs: int
) -> tuple[list[inspect.Parameter], dict[str, Any]]:
    """The positional parameters Gradio fills for ``fn`` and their type hints (for gr.Request,
    gr.EventData and the like); ``a0..`` for a function taking ``*args``."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params) or not params:
        plain = inspect.Parameter.POSITIONAL_OR_KEYWORD
        return [inspect.Parameter(f"a{i}", plain) for i in range(n_inputs)], {}
    kept = []
    for p in params:
        if p.kind not in kinds:
            break
        kept.append(p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD))
    try:
        hints = dict(inspect.get_annotations(fn, eval_str=True))
    except Exception:
        hints = {}
    names = {p.name for p in kept}
    return kept, {k: v for k, v in hints.items() if k in names}


def _named_after(wrapper: Callable[..., Any], fn: Callable[..., Any]) -> None:
    """Give ``wrapper`` the module and qualified name of the function behind ``fn`` (seen
    through ``functools.partial``), so a handler is named after what it runs; its ``__name__``
    (which Gradio derives API names from) is left as set."""
    inner = fn
    while isinstance(inner, functools.partial):
        inner = inner.func
    for attribute in ("__module__", "__qualname__"):
        value = getattr(inner, attribute, None)
        if isinstance(value, str):
            setattr(wrapper, attribute, value)


def _from_page_load(app: gr.Blocks, block_fn: Any) -> bool:
    """Whether ``block_fn`` runs because the page loaded (itself, or ``.then`` after a load)."""
    seen = set()
    while block_fn is not None and id(block_fn) not in seen:
        seen.add(id(block_fn))
        if any(event == "load" for _, event in block_fn.targets):
            return True
        after = getattr(block_fn, "trigger_after", None)
        block_fn = app.fns.get(after) if after is not None else None
    return False


def restrict(ctx: UiContext, app: gr.Blocks, wiring: Wiring) -> int:
    """Put a role check in front of every handler of ``app`` whose declared area
    (:class:`~quizbot.ui.wiring.Wiring`) needs a role; :class:`RuntimeError` for a handler
    declared in no area (a programming error: the app is not built).

    Refused calls raise :class:`gr.Error` ("Your account may not do this."); those run on page
    load (or chained after one) leave their outputs as they are. Every call a person makes (not
    page loads, not the steps chained after a call) is written to the audit log (action
    ``ui.<area>``, the handler's name, whether it was allowed); refused calls once per burst
    (:class:`Refusals`). Returns how many handlers were guarded (also kept in
    ``wiring.guarded``).
    """
    refusals = Refusals()  # this app's bursts of refused calls
    guarded = 0
    for key, block_fn in list(app.fns.items()):
        if block_fn.fn is None:
            continue
        area = wiring.area_of(key)
        if area is None:
            raise RuntimeError(
                f"the handler {handler_name(block_fn.fn)} is wired outside every area: "
                "wire it inside Wiring.area(name, role)"
            )
        if area.role is None:
            continue
        role = area.role
        action = f"ui.{area.name}"[:50]
        on_load = _from_page_load(app, block_fn)
        n_outputs = len(block_fn.outputs)
        name = getattr(block_fn.fn, "__name__", "handler")

        def check(
            request: Any,
            role: Role = role,
            on_load: bool = on_load,
            n: int = n_outputs,
            action: str = action,
            name: str = name,
            chained: Any = block_fn.trigger_after,
        ) -> Any:
            viewer = current(ctx, request)
            allowed = viewer.allows(role)
            attempt = not viewer.local and not on_load and chained is None  # actions, attempts
            if allowed:
                if attempt:
                    accounts.record_action(ctx.db, viewer.name, action, name)
                return None
            if on_load:
                skipped = gr.skip()
                return skipped if n == 1 else tuple(skipped for _ in range(n))
            if attempt and viewer.name:
                first, unwritten, wait = refusals.refused(viewer.name)
                if first:
                    more = f"; {unwritten} more refused in the burst before" if unwritten else ""
                    accounts.record_action(
                        ctx.db, viewer.name, action, name, ok=False, detail=f"refused{more}"
                    )
                    log.warning("refused %s (%s) the call %s%s", viewer.name, viewer.role,
                                name, more)  # fmt: skip
                elif wait:
                    time.sleep(wait)
            raise gr.Error(REFUSED, print_exception=False)

        names, hints = _positional(block_fn.fn, len(block_fn.inputs))
        block_fn.fn = _with_request(block_fn.fn, names, hints, check)
        guarded += 1
    wiring.guarded = guarded
    return guarded


def tab_visibility(ctx: UiContext, tabs: dict[Any, Role]) -> Callable[..., Any]:
    """A page-load handler showing each tab only to the roles that may use it (and a line
    saying who is logged in, with the "Change password" and "Log out" buttons)."""

    def shown(request: gr.Request) -> list[Any]:
        viewer = current(ctx, request)
        who = (
            ""
            if viewer.local
            else f"Signed in as **{viewer.name}** ({viewer.role})"
            + (f", cohort {viewer.cohort}" if viewer.cohort else "")
        )
        return [
            gr.update(value=who, visible=not viewer.local),
            # a password to change: accounts mode, not a user named by a login proxy
            gr.update(visible=not viewer.local and not ctx.settings.proxy_mode),
            gr.update(visible=not viewer.local),
            *(gr.Tab(visible=viewer.allows(role)) for role in tabs.values()),
        ]

    return shown


NOT_YOURS = "This practice session belongs to another account."


def _check_owner(ctx: UiContext, viewer: Viewer, session_id: Any) -> None:
    """Refuse (:class:`gr.Error`) a practice session id that is not the viewer's (accounts mode;
    the local user owns every session). ``None`` (no session yet) passes."""
    if viewer.local or session_id is None:
        return
    try:
        number = int(session_id)
    except (TypeError, ValueError):
        number = -1
    if not practice_service.session_belongs_to(ctx.db, number, viewer.name or ""):
        log.warning("refused %s the practice session %r of another account", viewer.name,
                    session_id)  # fmt: skip
        raise gr.Error(NOT_YOURS, print_exception=False)


def _for_account(
    ctx: UiContext,
    fn: Callable[..., Any],
    n_inputs: int,
    student: int | None,
    cohort: int | None,
    sessions: Sequence[int],
) -> Callable[..., Any]:
    plain = inspect.Parameter.POSITIONAL_OR_KEYWORD
    # fn's own names and defaults: API clients may leave optional values out or name them
    names = _positional(fn, n_inputs)[0][:n_inputs]

    def handler(*args: Any) -> Any:
        *values, request = args
        viewer = current(ctx, request)
        if not viewer.local:
            for index in sessions:
                _check_owner(ctx, viewer, values[index] if index < len(values) else None)
            if student is not None:
                values[student] = viewer.name
            if cohort is not None:
                values[cohort] = viewer.cohort or ""
        return fn(*values)

    request_param = inspect.Parameter("qb_request", plain, default=None, annotation=gr.Request)
    handler.__signature__ = inspect.Signature([*names, request_param])  # type: ignore[attr-defined]
    handler.__annotations__ = {"qb_request": gr.Request}
    handler.__name__ = getattr(fn, "__name__", "handler")
    _named_after(handler, fn)
    return handler


def as_student(
    ctx: UiContext,
    fn: Callable[..., Any],
    n_inputs: int,
    *,
    student: int,
    cohort: int | None = None,
    sessions: Sequence[int] = (),
) -> Callable[..., Any]:
    """``fn`` (taking ``n_inputs`` values) with the pseudonym at index ``student`` (and the cohort
    at ``cohort``) replaced by the logged-in account's name and cohort in accounts mode; in
    local mode the typed values pass unchanged. The practice session ids at the indexes
    ``sessions`` (``gr.State`` values) must be the account's, as in :func:`own_sessions`."""
    return _for_account(ctx, fn, n_inputs, student, cohort, sessions)


def own_sessions(
    ctx: UiContext, fn: Callable[..., Any], n_inputs: int, *, sessions: Sequence[int]
) -> Callable[..., Any]:
    """``fn`` (taking ``n_inputs`` values) refusing, in accounts mode, a call whose practice
    session ids (the values at the indexes ``sessions``, kept in ``gr.State``) are not sessions
    of the logged-in account: :class:`gr.Error` :data:`NOT_YOURS`, nothing done. A session
    hash is bound to its account by the gate (:class:`quizbot.ui.gate.SessionOwners`); this is
    the second lock, on the state itself. Local mode: every session is the local user's."""
    return _for_account(ctx, fn, n_inputs, None, None, sessions)


def for_account(
    ctx: UiContext, fn: Callable[[str], Any], n_outputs: int
) -> Callable[[gr.Request], Any]:
    """A page-load handler running ``fn(account name)`` for the logged-in account (accounts
    mode); in local mode, or without a usable login, it leaves its ``n_outputs`` as they are
    (local mode knows the student only once the pseudonym is typed)."""

    def on_load(request: gr.Request) -> Any:
        try:
            viewer = current(ctx, request)
        except gr.Error:
            viewer = LOCAL
        if viewer.local or viewer.name is None:
            skipped = gr.skip()
            return skipped if n_outputs == 1 else tuple(skipped for _ in range(n_outputs))
        return fn(viewer.name)

    on_load.__name__ = getattr(fn, "__name__", "on_load")
    _named_after(on_load, fn)
    return on_load


def hide_in_accounts_mode(ctx: UiContext, *components: Any) -> None:
    """Hide form fields that accounts make pointless (the pseudonym, the cohort)."""
    if ctx.accounts_mode():
        for component in components:
            component.visible = False


NO_COHORT = "\u2060no cohort"  # what an instructor without a cohort may see: no cohort at all


def scoped_cohort(ctx: UiContext, request: gr.Request | None, chosen: str | None) -> str | None:
    """The cohort a comparison may cover: an instructor sees only their account's cohort,
    whatever the browser asked for (:data:`NO_COHORT`, matching no student, when the account
    has none); admins and the local user get what they chose."""
    viewer = current(ctx, request)
    if viewer.role is Role.INSTRUCTOR:
        return viewer.cohort or NO_COHORT
    return chosen


def sitter(ctx: UiContext, name: str | None) -> Sitter | None:
    """Who starts an assignment, as the server knows them (an exam is open only to its cohort,
    :mod:`quizbot.practice.seats`): ``None`` in local mode; in accounts mode the account
    ``name`` (the logged-in one, put there by :func:`as_student`) with its cohort, or, for a
    name a login proxy sent with no account here, a sitter without an account."""
    if not ctx.accounts_mode():
        return None
    account = accounts.user(ctx.db, str(name or ""))
    if account is None:
        return Sitter(None, account=False)
    return Sitter(account.cohort, account=True)
