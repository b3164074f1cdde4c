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

from quizbot import accounts, clock
from quizbot.config import load_settings
from quizbot.domain import Role
from quizbot.errors import StorageError
from quizbot.ui import gate, identity
from quizbot.ui.context import UiContext
from storage import Database

PASSWORD = "admin password 123"


@pytest.fixture
def app(db: Database, tmp_path: Path) -> Iterator[Any]:
    # the one clock stands still (login limits included): a slow machine refills no bucket
    with clock.frozen(clock.now()):
        accounts.create_user(db, "boss", "admin", PASSWORD)
        settings = load_settings(
            home=str(tmp_path / "home"),
            database_url=db.url,
            login_per_minute_address=8,
            login_per_minute_user=5,
        )
        yield gate.web_app(settings, db)


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app, base_url="https://quiz.test", follow_redirects=False) as test_client:
        yield test_client


def _from(app: Any, address: str) -> TestClient:
    """A client at another address (a different browser)."""
    return TestClient(
        app, base_url="https://quiz.test", follow_redirects=False, client=(address, 50000)
    )


def _csrf(client: TestClient) -> str:
    """The form token of this browser (from the login page, as a browser gets it)."""
    if "quizbot_csrf" not in client.cookies:
        client.get("/logout")  # any form page sets it; this one in every mode
    return str(client.cookies["quizbot_csrf"])


def _login(client: TestClient, name: str, password: str, **extra: str) -> Any:
    form = {"username": name, "password": password, "csrf": _csrf(client), **extra}
    return client.post("/login", data=form)


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
    out = client.post("/logout", data={"csrf": _csrf(client)})
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


def test_a_username_gets_a_limited_number_of_attempts_from_one_address(
    app: Any, db: Database
) -> None:
    with _from(app, "10.0.0.1") as guesser:
        codes = [_login(guesser, "boss", f"guess number {n}").status_code for n in range(6)]
    assert codes == [401] * 5 + [429]
    refused = [e for e in accounts.audit_log(db, actor="boss") if e.action == "login"]
    assert len(refused) == 5  # the refused sixth attempt never reached the password check
    # the same name from another address is not held up by it: neither throttled nor locked
    with _from(app, "10.0.1.1") as owner:
        assert _login(owner, "boss", PASSWORD).status_code == 303


def test_five_wrong_passwords_from_one_address_do_not_stop_the_right_one_from_another(
    app: Any, db: Database
) -> None:
    with _from(app, "10.0.0.66") as stranger:
        codes = [_login(stranger, "boss", f"wrong guess {n}").status_code for n in range(5)]
        assert codes == [401] * 5
    # locked from there, even with the right password (the rate limit aside)
    assert accounts.login(db, "boss", PASSWORD, address="10.0.0.66").outcome == "refused"
    with _from(app, "10.0.0.7") as owner:
        assert _login(owner, "boss", PASSWORD).status_code == 303
    details = [e.detail for e in accounts.audit_log(db, actor="boss") if e.action == "login"]
    assert details[1] == "locked" and "locked from this address until" in details[2]
    # an admin ends the lock; the right password from that address works again
    assert accounts.unlock(db, "boss", actor="cli:test") == 1
    assert accounts.login(db, "boss", PASSWORD, address="10.0.0.66").outcome == "ok"


def test_login_password_change_and_logout_need_the_form_token(app: Any, db: Database) -> None:
    with _from(app, "10.2.0.1") as browser:
        bare = browser.post("/login", data={"username": "boss", "password": PASSWORD})
        assert bare.status_code == 403 and "expired" in bare.text  # no token: login CSRF
        wrong = {"username": "boss", "password": PASSWORD, "csrf": "x" * 32}
        assert browser.post("/login", data=wrong).status_code == 403
        assert _login(browser, "boss", PASSWORD).status_code == 303
        form = {"current_password": PASSWORD, "new_password": "p" * 12, "new_password2": "p" * 12}
        assert browser.post("/account", data=form).status_code == 403
        # logging out: GET only asks; a POST without the token changes nothing
        assert browser.get("/logout").status_code == 200
        assert browser.get("/gradio_api/info").status_code == 200
        assert browser.post("/logout").status_code == 403
        assert browser.get("/gradio_api/info").status_code == 200
        # a form posted from another site's page is refused before anything is read
        foreign = browser.post(
            "/logout", data={"csrf": _csrf(browser)}, headers={"Origin": "https://evil.example"}
        )
        assert foreign.status_code == 403
        assert browser.get("/gradio_api/info").status_code == 200
        assert browser.post("/logout", data={"csrf": _csrf(browser)}).status_code == 303
        assert browser.get("/gradio_api/info").status_code == 401
    assert accounts.user(db, "boss") is not None


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
            form = {
                "current_password": current, "new_password": first, "new_password2": second,
                "csrf": _csrf(here),
            }  # fmt: skip
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
    with TestClient(
        gate.web_app(settings, db), base_url="http://127.0.0.1", follow_redirects=False
    ) as local:
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
    # an instructor without a cohort sees no cohort at all, whatever the browser asks for
    assert identity.scoped_cohort(ctx, asked_by("lee"), "year-2") == identity.NO_COHORT
    assert identity.scoped_cohort(ctx, asked_by("lee"), None) == identity.NO_COHORT
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


def _idle_sleeps(loop: Any, monkeypatch: pytest.MonkeyPatch, queue: Any) -> list[float]:
    """The sleeps a coroutine of Gradio's idle queue asks for, three of them, then it is stopped."""
    asked: list[float] = []

    async def sleep(seconds: float) -> None:
        asked.append(seconds)
        if len(asked) >= 3:
            queue.stopped = True

    monkeypatch.setattr(asyncio, "sleep", sleep)  # gradio.queueing calls asyncio.sleep
    asyncio.run(loop())
    monkeypatch.undo()
    queue.stopped = False
    return asked


def test_an_idle_queue_polls_at_the_served_apps_periods(
    app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gradio's queue polls every 1 ms (events) and 10 ms (progress) when it has nothing to do,
    about 9 % of a core for an unused server; the served app's queue asks for its own periods."""
    (mounted,) = (r.app for r in app.routes if hasattr(getattr(r, "app", None), "get_blocks"))
    queue = mounted.get_blocks()._queue
    assert len(queue) == 0 and not queue.stopped
    events = _idle_sleeps(queue.start_processing, monkeypatch, queue)
    assert events == [gate.QUEUE_IDLE_POLL_S] * 3
    progress = _idle_sleeps(queue.start_progress_updates, monkeypatch, queue)
    assert progress == [gate.PROGRESS_POLL_S] * 3
    assert gate.QUEUE_IDLE_POLL_S <= 0.01  # the most an event may wait for an empty queue


def test_an_account_uploads_at_most_its_hourly_volume(db: Database, tmp_path: Path) -> None:
    accounts.create_user(db, "boss", "admin", PASSWORD)
    settings = load_settings(home=str(tmp_path / "home"), database_url=db.url, upload_mb_per_hour=1)
    app = gate.web_app(settings, db)
    blob = b"x" * 600_000  # under the per-file limit: only the hourly volume can stop it
    with _from(app, "10.6.0.1") as client:
        assert _login(client, "boss", PASSWORD).status_code == 303
        first = client.post("/gradio_api/upload", files={"files": ("a.csv", blob)})
        assert first.status_code == 200, first.text
        second = client.post("/gradio_api/upload", files={"files": ("b.csv", blob)})
        assert second.status_code == 429 and "per hour" in second.text
        assert int(second.headers["retry-after"]) >= 1


def test_local_mode_answers_loopback_names_only(db: Database, tmp_path: Path) -> None:
    settings = load_settings(home=str(tmp_path / "home"), database_url=db.url)
    app = gate.web_app(settings, db)
    for base, status in (
        ("http://127.0.0.1:7860", 200),
        ("http://localhost:7860", 200),
        ("http://[::1]:7860", 200),
        ("http://rebind.evil.example:7860", 400),
        ("http://192.168.1.5:7860", 400),
    ):
        with TestClient(app, base_url=base) as client:
            assert client.get("/gradio_api/info").status_code == status, base
    named = settings.model_copy(update={"allowed_hosts": ["quiz.lab"]})
    with TestClient(gate.web_app(named, db), base_url="http://quiz.lab:7860") as client:
        assert client.get("/gradio_api/info").status_code == 200
        refused = client.post("/gradio_api/queue/join", json={}, headers={"Origin": "http://x.io"})
        assert refused.status_code == 403


def test_a_session_hash_is_refused_to_a_second_account(db: Database, tmp_path: Path) -> None:
    accounts.create_user(db, "s1", "student", "first student password")
    accounts.create_user(db, "s2", "student", "second student password")
    app = gate.web_app(load_settings(home=str(tmp_path / "home"), database_url=db.url), db)
    with _from(app, "10.7.0.1") as one, _from(app, "10.7.0.2") as two:
        assert _login(one, "s1", "first student password").status_code == 303
        assert _login(two, "s2", "second student password").status_code == 303
        owned = one.post("/gradio_api/queue/join", json={"session_hash": "abc123def"})
        assert owned.status_code != 403  # s1's own (Gradio answers the incomplete body)
        joined = two.post("/gradio_api/queue/join", json={"session_hash": "abc123def"})
        assert joined.status_code == 403  # (checked first: the streams below would stay open)
        assert two.get("/gradio_api/heartbeat/abc123def").status_code == 403
        data = two.get("/gradio_api/queue/data", params={"session_hash": "abc123def"})
        assert data.status_code == 403


def test_the_health_check_is_open_and_says_only_whether_the_database_answers(
    client: TestClient, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert client.get("/gradio_api/info").status_code in (302, 303, 401, 403)  # accounts mode
    ok = client.get("/healthz")
    assert ok.status_code == 200 and ok.json() == {"status": "ok", "database": "up"}
    assert ok.headers["cache-control"] == "no-store"
    assert ok.headers["x-frame-options"] == "DENY"

    def down() -> None:
        raise StorageError("database postgresql://quiz:***@db/quiz: connection refused")

    monkeypatch.setattr(db, "ping", down)
    sick = client.get("/healthz")
    assert sick.status_code == 503
    assert sick.json() == {"status": "unavailable", "database": "down"}  # no URL, no detail
