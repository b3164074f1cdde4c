"""Exams in a real browser, tried as the attacker of issue 25 did (SQLite and PostgreSQL).

N1: during an exam, "My progress" showed the exam's per-session accuracy after each answer and
"Review my mistakes" reviewed the facts missed in it, with the right answers. Here a student
answers half an exam wrongly, the app's clock moves two days on, and My progress, Review my
mistakes and the due count show nothing of it; after the last answer they show it all.

N2: a student without a cohort, and a name sent by a login proxy with no account, started a
cohort's exam and read every key in the last payload. Here both are refused in the page, and
the raw payloads of the same calls carry no question and no key.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest

from quizbot import accounts
from quizbot.domain import AssignmentMode
from quizbot.generate.assignments import AssignmentRequest, assignment_items, make_assignment
from quizbot.items import StatementItem
from quizbot.ui.practice import SEALED_ACCURACY
from storage import open_database
from storage.assignments import assignment_sessions, get_assignment
from tests.helpers.net import free_port, stop_process, wait_for_http
from tests.ui.conftest import QUIZBOT, ROOT, screenshot
from tests.ui.events import wait_loaded, wait_settled, watch
from tests.ui.test_accounts import _csrf
from tests.ui.test_practice import database, session_items

pytestmark = pytest.mark.slow

USERS = {
    "amy": ("student", "student password 1", "year-1"),
    "nobody": ("student", "student password 2", None),  # made without --cohort
}
EXAM = "y1-final"
OPEN_EXAM = "everyone-final"  # an exam of no cohort
N_ITEMS = 6
PROXY_HEADER = "X-Remote-User"


class Served:
    """The app over the test database: its address, database and clock file."""

    def __init__(self, url: str, database_url: str, clock: Path) -> None:
        self.url, self.database_url, self.clock = url, database_url, clock


PROXY_HEADER_SETTING = "QUIZBOT_TRUSTED_PROXY_HEADER"


def _wait(url: str, headers: dict[str, str], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.3)
    raise TimeoutError(f"{url} did not answer within {timeout}s")


def _serve(database_url: str, tmp_path: Path, extra: dict[str, str]) -> Iterator[Served]:
    db = open_database(database_url)
    try:
        for name, (role, password, cohort) in USERS.items():
            accounts.create_user(db, name, role, password, cohort=cohort)
        for name, cohort in ((EXAM, "year-1"), (OPEN_EXAM, None)):
            make_assignment(
                db,
                AssignmentRequest(
                    name=name,
                    kb="clinical-core",
                    points=N_ITEMS,
                    mode=AssignmentMode.EXAM,
                    cohort=cohort,
                ),
            )
    finally:
        db.dispose()
    clock = tmp_path / "clock"
    clock.write_text(datetime.now(UTC).isoformat(), encoding="utf-8")
    port = free_port()
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_") and k != "DATABASE_URL"
    }
    env.update(
        {
            "QUIZBOT_HOME": str(tmp_path / "home"),
            "DATABASE_URL": database_url,
            "QUIZBOT_CLOCK_FILE": str(clock),
            **extra,
        }
    )
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [QUIZBOT, "serve", "--port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=log
    )
    try:
        if PROXY_HEADER_SETTING in extra:  # the app answers only requests the proxy named
            _wait(f"http://127.0.0.1:{port}/", {PROXY_HEADER: "amy"})
        else:
            wait_for_http(f"http://127.0.0.1:{port}/login", timeout=120)
        yield Served(f"http://127.0.0.1:{port}", database_url, clock)
    finally:
        stop_process(proc)
        log.close()


@pytest.fixture
def school(database_url: str, tmp_path: Path) -> Iterator[Served]:
    """Accounts mode: amy of year-1, nobody of no cohort, year-1's exam and an open exam."""
    yield from _serve(database_url, tmp_path, {"QUIZBOT_PRACTICE_IDLE_HOURS": "100"})


@pytest.fixture
def proxied(database_url: str, tmp_path: Path) -> Iterator[Served]:
    """Proxy mode: the login proxy (on loopback) names the user in X-Remote-User."""
    yield from _serve(
        database_url,
        tmp_path,
        {PROXY_HEADER_SETTING: PROXY_HEADER, "QUIZBOT_TRUSTED_PROXIES": "127.0.0.1"},
    )


def _log_in(browser: Any, app: Served, name: str) -> Any:
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(30_000)
    watch(page)  # the app's page, after the login page, records its server events
    page.goto(f"{app.url}/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill(USERS[name][1])
    page.get_by_role("button", name="Log in").click()
    page.locator("#qb-who").get_by_text(f"Signed in as {name}").wait_for()
    page.get_by_role("tab", name="Practice").first.wait_for()
    wait_loaded(page, app.url)  # the page's own load events have run (not a fixed pause)
    return page


def _start_assignment(page: Any, name: str) -> None:
    box = page.locator("#qb-practice-assignment textarea, #qb-practice-assignment input").first
    box.fill(name)
    page.locator("#qb-practice-start").click()


def _click_answer(page: Any, item: StatementItem, right: bool) -> None:
    said_true = item.label == right
    page.locator("#qb-practice-true" if said_true else "#qb-practice-false").click()


def _show_progress(page: Any, expect: str) -> str:
    """Open "My progress" per session, wait for ``expect`` in its overview, and return its text
    and the sessions table's."""
    box = page.locator("#qb-practice-progress")
    if not box.locator("#qb-practice-progress-show").is_visible():
        page.locator("#qb-practice-progress-toggle").click()
    box.get_by_test_id("Per session-radio-label").click()
    text = page.locator("#qb-practice-progress-text")
    page.locator("#qb-practice-progress-show").click()
    page.wait_for_function(
        "([el, want]) => el.innerText.includes(want) && el.innerText.includes('Due for review')"
        " && !el.innerText.includes('processing')",
        arg=[text.element_handle(), expect],
    )
    wait_settled(page)  # the sessions table follows in the same update
    shown: str = (
        text.inner_text() + "\n" + page.locator("#qb-practice-progress-sessions").inner_text()
    )
    return shown


def test_during_an_exam_my_progress_and_review_show_nothing_of_it(
    school: Served, chromium: Any
) -> None:
    page = _log_in(chromium, school, "amy")
    _start_assignment(page, EXAM)
    chat = page.locator("#qb-practice-chat")
    chat.get_by_text(f"Question 1 of {N_ITEMS}").wait_for()
    with database(school.database_url) as db:
        _session, items = session_items(db, "amy")
    assert len(items) == N_ITEMS and all(isinstance(i, StatementItem) for i in items)
    statements = [i for i in items if isinstance(i, StatementItem)]
    for position, item in enumerate(statements[:3], start=1):  # three answers, all wrong
        _click_answer(page, item, right=False)
        chat.get_by_text(f"Answer recorded. Question {position} of {N_ITEMS}").wait_for()
        chat.get_by_text(f"Question {position + 1} of {N_ITEMS}").wait_for()
    t0 = datetime.fromisoformat(school.clock.read_text())
    school.clock.write_text((t0 + timedelta(days=2)).isoformat())  # the misses would be due
    # Two days on (one clock for everything) the login has ended (2 h idle): amy logs in again;
    # the exam stays open (practice sessions close after the school's 100 idle hours).
    page.context.close()
    page = _log_in(chromium, school, "amy")
    chat = page.locator("#qb-practice-chat")

    progress = _show_progress(page, "amy: 0 answers")
    assert "0 answers" in progress and SEALED_ACCURACY in progress
    assert "Due for review: 0 today, 0 within a week" in progress
    assert "3/6" in progress  # how many they answered: their own knowledge, nothing more
    screenshot(page, "exam-open-progress")
    page.locator("#qb-practice-review").click()
    page.locator("#qb-practice-status").get_by_text("no mistakes to review").wait_for()
    page.locator("#qb-practice-due-text").get_by_text("Due for review: 0 facts").wait_for()
    for item in statements[:3]:  # neither the key nor the explanation reached the page
        assert item.text not in page.locator("#qb-practice-summary").inner_text()
    assert "Correct" not in chat.inner_text() and "Incorrect" not in chat.inner_text()
    screenshot(page, "exam-open-review-refused")

    # the exam goes on where it was; the last answer opens it all
    _start_assignment(page, EXAM)  # a student's one session per assignment: theirs goes on
    for position, item in enumerate(statements[3:], start=4):
        chat.get_by_text(f"Question {position} of {N_ITEMS}").wait_for()
        _click_answer(page, item, right=True)
    chat.get_by_text("Exam complete").wait_for()
    progress = _show_progress(page, f"amy: {N_ITEMS} answers")
    assert SEALED_ACCURACY not in progress and "3/6 (50%" in progress
    assert ", 0 within a week" not in progress  # its facts now come due
    page.locator("#qb-practice-review").click()
    chat.get_by_text("question(s) on your mistakes").wait_for()  # the facts missed in the exam
    with database(school.database_url) as db:
        _session, asked = session_items(db, "amy")
    missed = {i.fact_id for i in statements[:3]}
    assert asked and {i.fact_id for i in asked if isinstance(i, StatementItem)} <= missed
    screenshot(page, "exam-complete-review")


def _call(
    app: Served,
    elem_id: str,
    data: list[Any],
    *,
    cookies: CookieJar | None = None,
    headers: dict[str, str] | None = None,
) -> str:
    """Call the click handler of ``elem_id`` as the page does (queue/join, then queue/data) and
    return every event of the stream, as text."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(cookies or CookieJar()))
    extra = headers or {}
    with opener.open(urllib.request.Request(f"{app.url}/config", headers=extra)) as r:
        config = json.loads(r.read())
    ids = {c["props"].get("elem_id"): c["id"] for c in config["components"]}
    dep = next(d for d in config["dependencies"] if [ids[elem_id], "click"] in d["targets"])
    data = [*data, *[None] * (len(dep["inputs"]) - len(data))]  # states the page sends as null
    session = uuid.uuid4().hex
    body = {
        "data": data,
        "fn_index": dep["id"],
        "session_hash": session,
        "trigger_id": ids[elem_id],
    }
    join = urllib.request.Request(
        f"{app.url}/gradio_api/queue/join",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **extra},
    )
    with opener.open(join) as r:
        assert r.status == 200
    stream = urllib.request.Request(
        f"{app.url}/gradio_api/queue/data?session_hash={session}", headers=extra
    )
    events = []
    with opener.open(stream, timeout=120) as r:
        for raw in r:
            line = raw.decode().strip()
            if line.startswith("data:"):
                events.append(line[5:])
                if json.loads(line[5:]).get("msg") == "process_completed":
                    return "\n".join(events)
    raise AssertionError("no process_completed message")


def _keys_and_questions(app: Served, name: str) -> list[str]:
    with database(app.database_url) as db:
        _, items = assignment_items(db, name)
    return [i.text for i in items if isinstance(i, StatementItem)]


def _sessions_on(app: Served, name: str) -> int:
    with database(app.database_url) as db:
        return len(assignment_sessions(db, get_assignment(db, name).id))


START = ["x", "clinical-core", "all", "statement", 3, "year-1", None, EXAM, None]


def test_a_student_without_a_cohort_cannot_start_a_cohorts_exam(
    school: Served, chromium: Any
) -> None:
    page = _log_in(chromium, school, "nobody")
    _start_assignment(page, EXAM)
    chat = page.locator("#qb-practice-chat")
    chat.get_by_text("is an exam for one cohort").wait_for()
    assert "Question 1 of" not in chat.inner_text()
    assert not page.locator("#qb-practice-true").is_visible()
    screenshot(page, "exam-no-cohort-refused")
    # by raw HTTP, the cohort typed in the form does not help, and the payload holds nothing
    jar = CookieJar()
    fields = {"username": "nobody", "password": USERS["nobody"][1], "csrf": _csrf(school, jar)}
    form = urllib.parse.urlencode(fields)
    urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar)).open(
        f"{school.url}/login", data=form.encode()
    )
    payload = _call(school, "qb-practice-start", START, cookies=jar)
    assert "is an exam for one cohort" in payload
    assert "correct_answer" not in payload and '"question": {' not in payload
    assert not [text for text in _keys_and_questions(school, EXAM) if text in payload]
    assert _sessions_on(school, EXAM) == 0
    # an exam of no cohort stays open to them
    assert "Question 1 of" in _call(
        school, "qb-practice-start", [*START[:7], OPEN_EXAM, None], cookies=jar
    )


def test_a_name_from_the_login_proxy_without_an_account_sits_no_exam(
    proxied: Served, chromium: Any
) -> None:
    context = chromium.new_context(
        viewport={"width": 1400, "height": 1000}, extra_http_headers={PROXY_HEADER: "stranger"}
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{proxied.url}/")
    page.locator("#qb-who").get_by_text("Signed in as stranger").wait_for()
    for name in (EXAM, OPEN_EXAM):
        _start_assignment(page, name)
        page.locator("#qb-practice-chat").get_by_text(
            f"'{name}' is an exam, and exams are open only to students with an account"
        ).wait_for()
    assert "Question 1 of" not in page.locator("#qb-practice-chat").inner_text()
    screenshot(page, "exam-proxy-stranger-refused")
    for name in (EXAM, OPEN_EXAM):
        payload = _call(
            proxied,
            "qb-practice-start",
            [*START[:7], name, None],
            headers={PROXY_HEADER: "stranger"},
        )
        assert "open only to students with an account" in payload
        assert "correct_answer" not in payload
        assert not [text for text in _keys_and_questions(proxied, name) if text in payload]
        assert _sessions_on(proxied, name) == 0
    # an account named by the proxy sits its cohort's exam
    payload = _call(proxied, "qb-practice-start", START, headers={PROXY_HEADER: "amy"})
    assert "Question 1 of" in payload
    context.close()
