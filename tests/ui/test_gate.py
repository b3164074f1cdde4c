"""The login gate in process (Starlette's test client over the real app and database): cookies,
one-time passwords, logout, the login rate limits (per address and per username), changing one's
own password, and the role check on handlers."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gradio as gr
import pytest
from starlette.testclient import TestClient

from quizbot import accounts
from quizbot.config import load_settings
from quizbot.domain import Role
from quizbot.ui import gate, identity
from quizbot.ui.context import UiContext
from storage import Database

PASSWORD = "admin password 123"


@pytest.fixture
def app(db: Database, tmp_path: Path) -> Any:
    accounts.create_user(db, "boss", "admin", PASSWORD)
    settings = load_settings(
        home=str(tmp_path / "home"),
        database_url=db.url,
        login_per_minute_address=8,
        login_per_minute_user=5,
    )
    return gate.web_app(settings, db)


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app, base_url="https://quiz.test", follow_redirects=False) as test_client:
        yield test_client


def _from(app: Any, address: str) -> TestClient:
    """A client at another address (a different browser)."""
    return TestClient(
        app, base_url="https://quiz.test", follow_redirects=False, client=(address, 50000)
    )


def _login(client: TestClient, name: str, password: str, **extra: str) -> Any:
    return client.post("/login", data={"username": name, "password": password, **extra})


def test_the_session_cookie_is_httponly_lax_and_secure_over_https(client: TestClient) -> None:
    page = client.get("/login")
    assert page.status_code == 200
    assert 'for="username">Username<' in page.text and 'for="password">Password<' in page.text
    done = _login(client, "boss", PASSWORD)
    assert (done.status_code, done.headers["location"]) == (303, "/")
    cookie = done.headers["set-cookie"].lower()
    assert cookie.startswith("quizbot_session=")
    assert "httponly" in cookie and "samesite=lax" in cookie and "secure" in cookie
    assert client.get("/gradio_api/info").status_code == 200
    # Gradio's run history (inputs and outputs kept in the browser) is off
    assert client.get("/config").json()["run_history"] is False
    out = client.get("/logout")
    assert (out.status_code, out.headers["location"]) == (303, "/login")
    assert client.get("/gradio_api/info").status_code == 401


def test_a_one_time_password_must_be_replaced_before_the_first_session(
    client: TestClient, db: Database
) -> None:
    (invite,) = accounts.import_cohort(db, [("ann", Role.STUDENT)], "year-1")
    first = _login(client, "ann", invite.password)
    assert first.status_code == 200 and "New password" in first.text
    assert "set-cookie" not in first.headers
    differ = _login(
        client, "ann", invite.password, new_password="a fine password", new_password2="another"
    )
    assert differ.status_code == 400 and "differ" in differ.text
    weak = _login(client, "ann", invite.password, new_password="short", new_password2="short")
    assert weak.status_code == 200 and "at least 10" in weak.text
    assert client.get("/gradio_api/info").status_code == 401
    new = "a fine password"
    done = _login(client, "ann", invite.password, new_password=new, new_password2=new)
    assert done.status_code == 303 and "quizbot_session=" in done.headers["set-cookie"]
    assert client.get("/gradio_api/info").status_code == 200


def test_an_address_gets_a_limited_number_of_login_attempts(client: TestClient) -> None:
    codes = [_login(client, f"nobody{n}", "wrong password").status_code for n in range(9)]
    assert codes == [401] * 8 + [429]
    # the limit is per address: the right password from here waits too
    refused = _login(client, "boss", PASSWORD)
    assert refused.status_code == 429 and "Too many attempts" in refused.text
    assert int(refused.headers["retry-after"]) >= 1


def test_a_username_gets_a_limited_number_of_attempts_from_any_address(
    app: Any, db: Database
) -> None:
    codes = []
    for n in range(6):  # each guess from a new address: only the username's bucket runs dry
        with _from(app, f"10.0.0.{n + 1}") as other:
            codes.append(_login(other, "boss", f"guess number {n}").status_code)
    assert codes == [401] * 5 + [429]
    refused = [e for e in accounts.audit_log(db, actor="boss") if e.action == "login"]
    assert len(refused) == 5  # the refused sixth attempt never reached the password check
    # another username from a fresh address is not held up by it
    with _from(app, "10.0.1.1") as fresh:
        assert _login(fresh, "nobody", "wrong password").status_code == 401


def test_a_user_changes_their_password_and_their_other_sessions_end(
    db: Database, tmp_path: Path
) -> None:
    accounts.create_user(db, "boss", "admin", PASSWORD)
    settings = load_settings(home=str(tmp_path / "home"), database_url=db.url)
    app = gate.web_app(settings, db)  # the default rate limits
    new = "a brand new password"
    with _from(app, "10.1.0.1") as here, _from(app, "10.1.0.2") as elsewhere:
        assert _login(here, "boss", PASSWORD).status_code == 303
        assert _login(elsewhere, "boss", PASSWORD).status_code == 303
        page = here.get("/account")
        assert page.status_code == 200 and "Current password" in page.text and "boss" in page.text

        def change(current: str, first: str, second: str) -> Any:
            form = {"current_password": current, "new_password": first, "new_password2": second}
            return here.post("/account", data=form)

        wrong = change("not my password", new, new)
        assert wrong.status_code == 400 and "current password is wrong" in wrong.text
        assert change(PASSWORD, new, new + "x").status_code == 400  # the two differ
        weak = change(PASSWORD, "short", "short")
        assert weak.status_code == 400 and "at least 10 characters" in weak.text
        same = change(PASSWORD, PASSWORD, PASSWORD)
        assert same.status_code == 400 and "must differ" in same.text
        assert elsewhere.get("/gradio_api/info").status_code == 200  # nothing changed yet
        done = change(PASSWORD, new, new)
        assert done.status_code == 200 and "Your password was changed" in done.text
        # this session goes on; the other one ended
        assert here.get("/gradio_api/info").status_code == 200
        assert elsewhere.get("/gradio_api/info").status_code == 401
    with _from(app, "10.1.0.3") as later:
        assert _login(later, "boss", PASSWORD).status_code == 401  # the old password is gone
        assert _login(later, "boss", new).status_code == 303
    changes = [
        e for e in accounts.audit_log(db, actor="boss") if e.action == "user.change-password"
    ]
    assert [e.ok for e in changes] == [True, False, False, False]  # newest first
    account = accounts.user(db, "boss")
    assert account is not None and account.failed_logins == 0  # the good login reset it


def test_there_is_no_password_to_change_without_an_account(db: Database, tmp_path: Path) -> None:
    settings = load_settings(home=str(tmp_path / "home"), database_url=db.url)
    with TestClient(gate.web_app(settings, db), follow_redirects=False) as local:
        assert local.get("/account").status_code == 404  # local mode: no account, no password
        assert local.post("/account", data={"current_password": "x"}).status_code == 404


class _Ctx:
    """Just enough of UiContext for identity.current in local mode."""

    settings = SimpleNamespace(proxy_mode=False)

    def accounts_mode(self) -> bool:
        return False


def test_the_role_guard_keeps_every_kind_of_handler_working() -> None:
    """Plain, generator, coroutine and async-generator handlers still run behind the guard."""

    def plain(a: int, b: int = 2) -> int:
        return a + b

    def gen(a: int) -> Iterator[int]:
        yield a
        yield a + 1

    async def coro(a: int) -> int:
        return a * 2

    async def agen(a: int) -> AsyncIterator[int]:
        yield a
        yield a * 3

    calls: list[Any] = []

    def allow(request: Any) -> None:
        calls.append(request)

    def wrap(fn: Any) -> Any:
        names, hints = identity._positional(fn, 1)
        return identity._with_request(fn, names, hints, allow)

    assert wrap(plain)(1, 5, "req") == 6
    assert list(wrap(gen)(1, "req")) == [1, 2]
    assert asyncio.run(wrap(coro)(4, "req")) == 8

    async def drain() -> list[int]:
        return [v async for v in wrap(agen)(2, "req")]

    assert asyncio.run(drain()) == [2, 6]
    assert calls == ["req"] * 4
    wrapped = wrap(plain)
    params = list(inspect.signature(wrapped).parameters.values())
    assert [p.name for p in params] == ["a", "b", "qb_request"]
    assert wrapped.__annotations__["qb_request"] is gr.Request
    # in local mode the viewer may do everything; accounts mode needs a name
    assert identity.current(_Ctx(), None) is identity.LOCAL  # type: ignore[arg-type]
    assert identity.LOCAL.allows(Role.ADMIN)
    student = identity.Viewer("ann", Role.STUDENT)
    assert not student.allows(Role.INSTRUCTOR) and student.allows(Role.STUDENT)
    assert identity.Viewer("kim", Role.ADMIN).allows(Role.INSTRUCTOR)


def test_an_instructor_compares_only_their_own_cohort(db: Database, tmp_path: Path) -> None:
    accounts.create_user(db, "kim", "instructor", "instructor password", cohort="year-1")
    accounts.create_user(db, "lee", "instructor", "instructor password")
    accounts.create_user(db, "boss", "admin", PASSWORD)
    ctx = UiContext(load_settings(home=str(tmp_path / "home"), database_url=db.url), db)

    def asked_by(name: str) -> Any:
        return SimpleNamespace(username=name)

    assert identity.scoped_cohort(ctx, asked_by("kim"), "year-2") == "year-1"
    assert identity.scoped_cohort(ctx, asked_by("kim"), None) == "year-1"
    assert identity.scoped_cohort(ctx, asked_by("lee"), "year-2") == "year-2"
    assert identity.scoped_cohort(ctx, asked_by("boss"), None) is None
    with pytest.raises(gr.Error):  # accounts mode: no name, no answer
        identity.scoped_cohort(ctx, asked_by(""), "year-2")


def test_gradio_rebuilds_its_monitoring_summary_only_every_so_many_events(app: Any) -> None:
    """By default Gradio's queue re-summarises its last 10,000 events (pandas) after every event;
    the served app does it once per ``ANALYTICS_EVERY`` events."""
    (mounted,) = (r.app for r in app.routes if hasattr(getattr(r, "app", None), "get_blocks"))
    queue = mounted.get_blocks()._queue
    records = [
        {
            "time": 0.0,
            "status": "success",
            "process_time": 0.01,
            "function": "f",
            "session_hash": "s",
        }
    ]
    queue.events_recorded = gate.ANALYTICS_EVERY  # enough events: the first call builds it
    first = queue.compute_analytics_summary(records)
    assert first["functions"]["f"]["success_rate"] == 1.0
    records.append({**records[0], "status": "failed"})
    queue.events_recorded += gate.ANALYTICS_EVERY - 1  # one event short: the summary is kept
    assert queue.compute_analytics_summary(records) is first
    queue.events_recorded += 1
    assert queue.compute_analytics_summary(records)["functions"]["f"]["success_rate"] == 0.5
