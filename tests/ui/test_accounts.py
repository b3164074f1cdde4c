"""Accounts mode in a real browser: each role logs in and sees and may do only its own.

The app is served by `quizbot serve` over a database that already holds a student, an
instructor and an admin, so accounts mode is on from the start. Anonymous requests, a student
calling an instructor's handler by raw HTTP, password guessing and framing are all refused.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Generator, Iterator
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any, Protocol

import pytest

from quizbot import accounts
from quizbot.domain import RespondentKind
from storage import open_database
from storage.sessions import find_respondent
from tests.helpers.stub import stub_server
from tests.ui.conftest import (
    USERS,
    WAIT_MS,
    App,
    screenshot,
    serve_accounts,
)
from tests.ui.events import wait_loaded, watch

pytestmark = pytest.mark.slow

NEW_PASSWORD = "a new instructor password"
RESTRICTED = ("Ask a model", "Humans vs models", "Monitor", "Assignments", "Admin")
SEEN = {
    "student": ("Practice", "Status"),
    "instructor": (
        "Practice", "Ask a model", "Humans vs models", "Monitor", "Assignments", "Status",
    ),
    "admin": (
        "Practice", "Ask a model", "Humans vs models", "Monitor", "Assignments", "Admin", "Status",
    ),
}  # fmt: skip
# What instructors may do with assignments (their cohort's only) is test_accounts_assignments.py


@pytest.fixture
def app(served_database: str, tmp_path: Path) -> Iterator[App]:
    """The app in accounts mode over the test's own database (as a first start left it)."""
    yield from _serve(served_database, tmp_path, {})


def _serve(database_url: str, tmp_path: Path, extra: dict[str, str]) -> Generator[App, None, None]:
    """`quizbot serve` over a database holding the three accounts, with ``extra`` settings."""
    db = open_database(database_url)
    try:
        for name, (role, password, cohort) in USERS.items():
            accounts.create_user(db, name, role, password, cohort=cohort)
    finally:
        db.dispose()
    with serve_accounts(database_url, tmp_path, extra) as url:
        yield App(url, database_url)


@pytest.fixture
def browser(chromium: Any) -> Any:
    """Chromium (the conftest's ``chromium``), named as these tests and their importers use it."""
    return chromium


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _http(
    url: str,
    *,
    data: bytes | None = None,
    headers: dict[str, str] | None = None,
    cookies: CookieJar | None = None,
) -> tuple[int, dict[str, str], str]:
    """Status, headers (lower-case names) and body of one request, redirects not followed."""
    handlers: list[Any] = [_NoRedirect()]
    if cookies is not None:
        handlers.append(urllib.request.HTTPCookieProcessor(cookies))
    opener = urllib.request.build_opener(*handlers)
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with opener.open(request, timeout=60) as response:
            status, head, body = response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        status, head, body = exc.code, exc.headers, exc.read()
    return status, {k.lower(): v for k, v in head.items()}, body.decode("utf-8", "replace")


class HasUrl(Protocol):
    """A served app as :func:`_csrf` needs it: its address (an :class:`App` or another test's)."""

    @property
    def url(self) -> str: ...


def _csrf(app: HasUrl, jar: CookieJar) -> str:
    """The browser's form token, fetched from the login page (as a browser gets it) if needed."""
    found = [c.value for c in jar if c.name == "quizbot_csrf"]
    if not found:
        _http(f"{app.url}/logout", cookies=jar)  # a form page: sets the token's cookie
        found = [c.value for c in jar if c.name == "quizbot_csrf"]
    return str(found[0])


def _login(app: App, name: str, password: str) -> tuple[int, CookieJar, str]:
    """Log in by raw HTTP as ``name`` (a :data:`USERS` key stands for its account on ``app``)."""
    jar = CookieJar()
    fields = {"username": app.account(name), "password": password, "csrf": _csrf(app, jar)}
    status, _, body = _http(f"{app.url}/login", data=urllib.parse.urlencode(fields).encode(),
                            cookies=jar)  # fmt: skip
    return status, jar, body


def _logout(app: App, jar: CookieJar) -> int:
    """Log out as the page's form does (a POST with the form token)."""
    form = urllib.parse.urlencode({"csrf": _csrf(app, jar)}).encode()
    return _http(f"{app.url}/logout", data=form, cookies=jar)[0]


def _call_handler(
    app: App, jar: CookieJar, elem_id: str, data: list[Any], session: str | None = None
) -> dict[str, Any]:
    """Call the click handler of the component ``elem_id`` the way the page does (queue/join),
    in the browser session ``session`` (a new one by default), and return Gradio's final
    message for it."""
    _, _, text = _http(f"{app.url}/config", cookies=jar)
    config = json.loads(text)
    ids = {c["props"].get("elem_id"): c["id"] for c in config["components"]}
    target = ids[elem_id]
    dep = next(d for d in config["dependencies"] if [target, "click"] in d["targets"])
    data = [*data, *[None] * (len(dep["inputs"]) - len(data))]  # states the page sends as null
    session = session or uuid.uuid4().hex
    body = {"data": data, "fn_index": dep["id"], "session_hash": session, "trigger_id": target}
    status, _, _ = _http(
        f"{app.url}/gradio_api/queue/join",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        cookies=jar,
    )
    assert status == 200
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{app.url}/gradio_api/queue/data?session_hash={session}", timeout=120) as r:
        for raw in r:
            line = raw.decode().strip()
            if line.startswith("data:"):
                message: dict[str, Any] = json.loads(line[5:])
                if message.get("msg") == "process_completed":
                    return message
    raise AssertionError("no process_completed message")


def _log_in_page(browser: Any, app: App, name: str) -> Any:
    """A page of its own (a new browser context) logged in as the account ``name`` (a
    :data:`USERS` key) of ``app``."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    watch(page)
    page.goto(f"{app.url}/")
    assert page.url.endswith("/login")  # sent to the login page
    page.get_by_label("Username").fill(app.account(name))
    page.get_by_label("Password").fill(USERS[name][1])
    page.get_by_role("button", name="Log in").click()
    page.locator("#qb-who").get_by_text(f"Signed in as {app.account(name)}").wait_for()
    wait_loaded(page, app.url)  # the page load shows the tabs of the role, refuses the rest
    return page


def _visible_tabs(page: Any) -> list[str]:
    page.get_by_role("tab", name="Practice").first.wait_for()
    return [
        name
        for name in ("Practice", *RESTRICTED, "Status")
        if page.get_by_role("tab", name=name).count() == 1
        and page.get_by_role("tab", name=name).first.is_visible()
    ]


ASK = ["Insulin raises blood glucose.", "False", ["baseline/always-true"], False, True, "standard"]


def test_each_role_sees_and_may_do_only_its_own(shared_app: App, browser: Any) -> None:
    app = shared_app  # accounts of its own; "victim" is a name no test's page types
    # student: practice as themselves (no pseudonym field), no model, no results of others
    page = _log_in_page(browser, app, "stu")
    assert _visible_tabs(page) == list(SEEN["student"])
    # what the page load started for other roles has run (wait_loaded) and was refused quietly
    assert page.locator("[data-testid='toast-body']").count() == 0
    assert (
        page.locator("#qb-practice-student").count() == 0
        or not page.locator("#qb-practice-student").is_visible()
    )
    page.locator("#qb-practice-start").click()
    page.locator("#qb-practice-chat").get_by_text("Question 1 of").wait_for()
    page.get_by_role("button", name="True", exact=True).click()
    page.locator("#qb-practice-chat").get_by_text("Answer 1 of").wait_for()
    screenshot(page, "accounts-student")
    db = open_database(app.database_url)
    try:
        respondent = find_respondent(db, RespondentKind.HUMAN, app.account("stu"))
        assert respondent is not None and respondent.cohort == "year-1"
    finally:
        db.dispose()
    cookies = page.context.cookies()
    (session,) = [c for c in cookies if c["name"] == "quizbot_session"]
    assert session["httpOnly"] and session["sameSite"] == "Lax"
    # the student's session calling the instructor's "Ask" handler by raw HTTP is refused
    _, jar, _ = _login(app, "stu", USERS["stu"][1])
    refused = _call_handler(app, jar, "qb-ask-custom", ASK)
    assert refused["success"] is False
    assert refused["output"]["error"] == "Your account may not do this."
    # impersonation: the practice handler called with another name and cohort practises as
    # the account, in its own cohort
    started = _call_handler(
        app, jar, "qb-practice-start",
        ["victim", "clinical-core", "all", "statement", 3, "other", None, "", None],
    )  # fmt: skip
    assert started["success"] is True
    db = open_database(app.database_url)
    try:
        assert find_respondent(db, RespondentKind.HUMAN, "victim") is None
        again = find_respondent(db, RespondentKind.HUMAN, app.account("stu"))
        assert again is not None and again.cohort == "year-1"
    finally:
        db.dispose()
    # logging out ends the session on the server: the old cookie opens nothing
    page.locator("#qb-logout").click()
    page.wait_for_url("**/logout")
    page.get_by_role("button", name="Log out").click()  # logging out is a POST
    page.get_by_label("Username").wait_for()
    old = CookieJar()
    _, jar2, _ = _login(app, "stu", USERS["stu"][1])
    for cookie in jar2:
        old.set_cookie(cookie)
    assert _http(f"{app.url}/logout", cookies=jar2)[0] == 200  # a GET only asks
    assert _logout(app, jar2) == 303
    assert _http(f"{app.url}/gradio_api/info", cookies=old)[0] == 401
    page.context.close()

    # instructor: asks models (in the page and by HTTP), reads results; no admin panel
    page = _log_in_page(browser, app, "ins")
    assert _visible_tabs(page) == list(SEEN["instructor"])
    assert page.locator("[data-testid='toast-body']").count() == 0
    # an instructor with a cohort compares that cohort only (students of others stay hidden)
    page.get_by_role("tab", name="Humans vs models").click()
    page.wait_for_function(
        "() => document.querySelector('#qb-compare-cohort input').value === 'year-1'"
    )
    page.locator("#qb-compare-cohort input").click()
    page.get_by_role("option").first.wait_for()
    assert [t.split("\n")[-1] for t in page.get_by_role("option").all_inner_texts()] == ["year-1"]
    page.keyboard.press("Escape")
    page.get_by_role("tab", name="Ask a model").click()
    page.locator("#qb-ask-statement textarea").fill("Insulin raises blood glucose.")
    page.locator("#qb-ask-custom").click()
    page.locator("#qb-ask-results [data-testid='cell-0-0']").wait_for()
    screenshot(page, "accounts-instructor")
    _, jar, _ = _login(app, "ins", USERS["ins"][1])
    assert _call_handler(app, jar, "qb-ask-custom", ASK)["success"] is True
    admin_only = _call_handler(app, jar, "qb-admin-runs-refresh", [None])
    assert admin_only["output"]["error"] == "Your account may not do this."
    page.context.close()

    # admin: the Admin panel opens with the account, no admin password asked
    page = _log_in_page(browser, app, "adm")
    assert _visible_tabs(page) == list(SEEN["admin"])
    page.get_by_role("tab", name="Admin").click()
    page.locator("#qb-admin-panel").wait_for()
    assert not page.locator("#qb-admin-password").is_visible()
    reviewer = page.locator("#qb-admin-reviewer textarea, #qb-admin-reviewer input").first
    page.wait_for_function(
        "(name) => document.querySelector('#qb-admin-reviewer textarea, #qb-admin-reviewer input')"
        ".value === name",
        arg=app.account("adm"),
    )
    assert reviewer.is_disabled()  # decisions are recorded under the account, not a typed name
    page.locator("#qb-admin-runs-refresh").click()
    screenshot(page, "accounts-admin")
    page.context.close()

    # the instructor's and the student's attempts are in the audit log
    db = open_database(app.database_url)
    try:
        stu, ins, adm = (
            accounts.audit_log(db, limit=500, actor=app.account(k)) for k in ("stu", "ins", "adm")
        )
    finally:
        db.dispose()
    assert any(e.action == "ui.ask" and not e.ok for e in stu)
    assert any(e.action == "ui.ask" and e.ok for e in ins)
    assert any(e.action == "login" and e.ok for e in adm)


def test_anonymous_requests_are_refused_and_no_page_can_be_framed(
    shared_app: App, browser: Any
) -> None:
    app = shared_app
    # a page of another site framing the app gets nothing
    page = browser.new_context().new_page()
    # "load" waits for the frame too, refused or not (the parent's load waits for its frames)
    page.set_content(
        f'<iframe id="f" src="{app.url}/login" width="600" height="400"></iframe>',
        wait_until="load",
    )
    assert len(page.frames) == 2
    page.frames[-1].wait_for_load_state()
    frame = page.frame_locator("#f")
    assert frame.get_by_label("Username").count() == 0
    page.context.close()
    status, headers, _ = _http(f"{app.url}/", headers={"Accept": "text/html"})
    assert (status, headers["location"]) == (303, "/login")
    for path in ("/config", "/gradio_api/info", "/gradio_api/call/practice_progress"):
        assert _http(f"{app.url}{path}")[0] == 401, path
    upload = _http(
        f"{app.url}/gradio_api/upload",
        data=b"--x\r\nContent-Disposition: form-data; name=files; filename=a.txt\r\n\r\n"
        b"hi\r\n--x--",
        headers={"Content-Type": "multipart/form-data; boundary=x"},
    )
    assert upload[0] == 401
    called = _http(
        f"{app.url}/gradio_api/call/practice_start",
        data=json.dumps({"data": ["x", "clinical-core", "", "statements", 5, ""]}).encode(),
        headers={"Content-Type": "application/json"},
    )
    assert called[0] == 401
    # the login page and every refusal forbid framing; no other origin is allowed (CORS)
    for path in ("/login", "/gradio_api/info"):
        _, headers, _ = _http(f"{app.url}{path}", headers={"Origin": "https://evil.example"})
        assert headers["x-frame-options"] == "DENY"
        assert headers["content-security-policy"] == "frame-ancestors 'none'"
        assert "access-control-allow-origin" not in headers
    _, jar, _ = _login(app, "adm", USERS["adm"][1])
    _, headers, _ = _http(f"{app.url}/", cookies=jar, headers={"Accept": "text/html"})
    assert headers["x-frame-options"] == "DENY"


def test_repeated_failures_lock_the_account_and_the_login_page_says_nothing_more(
    shared_app: App, browser: Any
) -> None:
    app = shared_app  # it locks its own instructor, from this address
    ins = app.account("ins")
    page = browser.new_context().new_page()
    page.goto(f"{app.url}/login")
    for _ in range(accounts.MAX_FAILURES):
        page.get_by_label("Username").fill(ins)
        page.get_by_label("Password").fill("not the password")
        page.get_by_role("button", name="Log in").click()
        page.get_by_role("alert").wait_for()
    message = page.get_by_role("alert").inner_text()
    # the right password now fails too, with the very same message as an unknown user
    page.get_by_label("Username").fill(ins)
    page.get_by_label("Password").fill(USERS["ins"][1])
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("alert").wait_for()
    assert page.get_by_role("alert").inner_text() == message
    assert page.url.endswith("/login")
    screenshot(page, "accounts-locked")
    page.context.close()
    status, _, body = _login(app, "nobody", "not the password")
    assert status == 401 and message in body
    db = open_database(app.database_url)
    try:
        locked = accounts.user(db, ins)
        details = [e.detail for e in accounts.audit_log(db, actor=ins)]
    finally:
        db.dispose()
    assert locked is not None and locked.locked_until is not None
    assert details[0] == "locked" and "locked from this address until" in details[1]


def test_an_instructor_over_their_daily_limit_is_refused(
    database_url: str, tmp_path: Path, browser: Any
) -> None:
    calls = tmp_path / "calls.jsonl"
    with stub_server("--answer", "true", "--log", str(calls)) as stub:
        env = {
            "QUIZBOT_MODELS": "openai/stub",
            "QUIZBOT_MODEL_SETTINGS": json.dumps({"openai/stub": {"api_base": stub}}),
            "QUIZBOT_MAX_MODEL_CALLS_PER_DAY": "1",
        }
        served = _serve(database_url, tmp_path, env)
        app = next(served)
        try:
            page = _log_in_page(browser, app, "ins")
            page.get_by_role("tab", name="Ask a model").click()
            page.locator("#qb-ask-statement textarea").fill("Insulin lowers blood glucose.")
            page.locator("#qb-ask-custom").click()
            page.locator("#qb-ask-results [data-testid='cell-0-0']").wait_for(timeout=120_000)
            assert len(calls.read_text().splitlines()) == 1  # the one call of the day
            page.locator("#qb-ask-statement textarea").fill("Aspirin inhibits platelets.")
            page.locator("#qb-ask-custom").click()
            message = page.locator("#qb-ask-message")
            message.get_by_text("limit of 1 model calls per day reached").wait_for()
            assert "resets at 00:00 UTC" in message.inner_text()
            screenshot(page, "accounts-instructor-limit")
            # the instructor changes their own password from the link next to their name
            page.locator("#qb-account").click()
            page.get_by_label("Current password").fill(USERS["ins"][1])
            page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
            page.get_by_label("New password again").fill(NEW_PASSWORD)
            page.get_by_role("button", name="Change password").click()
            page.get_by_text("Your password was changed").wait_for()
            page.context.close()
            # the same by raw HTTP: refused before any model is asked
            assert _login(app, "ins", USERS["ins"][1])[0] == 401  # the old password is gone
            _, jar, _ = _login(app, "ins", NEW_PASSWORD)
            ask = ["Metformin treats diabetes.", "True", ["openai/stub"], False, False, "standard"]
            refused = _call_handler(app, jar, "qb-ask-custom", ask)
            shown = json.dumps(refused["output"])
            assert "limit of 1 model calls per day reached" in shown
            assert len(calls.read_text().splitlines()) == 1
        finally:
            served.close()
    db = open_database(database_url)
    try:
        log = accounts.audit_log(db, limit=100, actor="ins")
    finally:
        db.dispose()
    refusals = [e for e in log if e.action == "model.limit"]
    assert len(refusals) == 2 and not any(e.ok for e in refusals)
