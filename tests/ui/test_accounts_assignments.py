"""Accounts mode in a real browser: who may manage which assignments, and a student's reload.

The app is served by `quizbot serve` over a database holding two cohorts, each with an
instructor, a student and an assignment the student has answered, plus an admin. The
instructor of year-1 sees and manages year-1's assignments only: lists them, creates one (for
year-1 whatever the form says), reads the results and downloads them as CSV; year-2's
assignment and student appear nowhere, in the page or by raw HTTP. A student sees no
Assignments tab and is refused its handlers by raw HTTP; after a reload their own practice
session is offered again. The admin sees every assignment.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quizbot import accounts
from quizbot.config import load_settings
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.service import answer, next_question
from quizbot.ui.assignments import create
from quizbot.ui.context import UiContext
from storage import open_database
from storage.assignments import list_assignments
from tests.ui.conftest import (
    WAIT_MS,
    App,
    screenshot,
    serve_accounts,
)
from tests.ui.events import wait_loaded, watch
from tests.ui.test_accounts import _call_handler, _login

pytestmark = pytest.mark.slow

USERS = {
    "ins": ("instructor", "instructor password 1", "year-1"),
    "ins2": ("instructor", "instructor password 2", "year-2"),
    "amy": ("student", "student password 1", "year-1"),
    "zoe": ("student", "student password 2", "year-2"),
    "adm": ("admin", "admin password 123", None),
}
ASSIGNMENTS = {"cardio-y1": ("year-1", "amy"), "renal-y2": ("year-2", "zoe")}
FORM = {
    "kb": "clinical-core", "points": 2, "fmt": "statements", "mode": "practice",
    "opens": "", "closes": "", "all_variants": False, "two_pass": False,
}  # fmt: skip


@pytest.fixture
def school(database_url: str, tmp_path: Path) -> Iterator[App]:
    db = open_database(database_url)
    try:
        for name, (role, password, cohort) in USERS.items():
            accounts.create_user(db, name, role, password, cohort=cohort)
        ctx = UiContext(load_settings(home=str(tmp_path / "home"), database_url=db.url), db)
        for title, (cohort, student) in ASSIGNMENTS.items():
            create(ctx, name=title, cohort=cohort, **FORM)  # type: ignore[arg-type]
            view = start_assignment_session(db, assignment=title, student=student)
            while (question := next_question(db, view.id)) is not None:
                answer(db, view.id, question.id, "true", shown_at=question.shown_at)
    finally:
        db.dispose()
    with serve_accounts(database_url, tmp_path) as url:
        yield App(url, database_url)


def _log_in(browser: Any, app: App, name: str) -> Any:
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(WAIT_MS)
    watch(page)
    page.goto(f"{app.url}/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill(USERS[name][1])
    page.get_by_role("button", name="Log in").click()
    page.locator("#qb-who").get_by_text(f"Signed in as {name}").wait_for()
    page.get_by_role("tab", name="Practice").first.wait_for()
    wait_loaded(page, app.url)  # the page load hides the tabs of other roles
    return page


def _tab_shown(page: Any, name: str) -> bool:
    tab = page.get_by_role("tab", name=name)
    shown: bool = tab.count() == 1 and tab.first.is_visible()
    return shown


def _choose(page: Any, assignment: str) -> None:
    page.locator("#qb-assign-chosen input").click()
    page.get_by_role("option", name=assignment).click()


def _as_text(message: dict[str, Any]) -> str:
    return str(message.get("output"))


def test_an_instructor_manages_only_their_cohorts_assignments(school: App, chromium: Any) -> None:
    page = _log_in(chromium, school, "ins")
    assert _tab_shown(page, "Assignments")
    page.get_by_role("tab", name="Assignments").click()
    page.locator("#qb-assign-panel").wait_for()
    page.locator("#qb-assign-list-note").get_by_text("of cohort year-1").wait_for()
    listed = page.locator("#qb-assign-list").inner_text()
    assert "cardio-y1" in listed and "renal-y2" not in listed
    # create one: it is year-1's (the cohort field shows it and cannot be changed)
    page.locator("#qb-assign-create-box").get_by_text("Create an assignment").click()
    cohort = page.locator("#qb-assign-cohort textarea, #qb-assign-cohort input").first
    assert cohort.input_value() == "year-1" and cohort.is_disabled()
    page.locator("#qb-assign-name textarea, #qb-assign-name input").first.fill("wk-y1")
    points = page.locator("#qb-assign-points input").first
    points.fill("2")
    points.press("Tab")
    page.locator("#qb-assign-create").click()
    page.locator("#qb-assign-create-result").get_by_text("for cohort year-1").wait_for()
    page.locator("#qb-assign-list").get_by_text("wk-y1").wait_for()
    # results of year-1's assignment: its student, never year-2's
    _choose(page, "cardio-y1")
    page.locator("#qb-assign-show").click()
    results = page.locator("#qb-assign-results")
    results.get_by_text("cardio-y1").wait_for()
    assert "amy" in results.inner_text() and "zoe" not in results.inner_text()
    page.locator("#qb-assign-export-csv").click()
    link = page.locator("#qb-assign-file a").first
    link.wait_for()
    got = page.context.request.get(link.get_attribute("href"))
    rows = list(csv.DictReader(io.StringIO(got.text())))
    assert {r["respondent"] for r in rows if r["record"] == "respondent"} == {"amy"}
    screenshot(page, "accounts-instructor-assignments")
    page.context.close()
    db = open_database(school.database_url)
    try:
        made = {a.name: a.cohort for a in list_assignments(db)}
        log = accounts.audit_log(db, actor="ins", limit=500)
    finally:
        db.dispose()
    assert made["wk-y1"] == "year-1"
    assert any(e.action == "assignment.create" and e.target == "wk-y1" for e in log)

    # by raw HTTP, in one browser session: the list is year-1's; year-2's results, items and
    # export are refused and show nothing of it
    _, jar, _ = _login(school, "ins", USERS["ins"][1])
    session = "raw-ins"
    listed_raw = _call_handler(school, jar, "qb-assign-refresh", [True, None], session)
    assert "cardio-y1" in _as_text(listed_raw) and "renal-y2" not in _as_text(listed_raw)
    for elem in ("qb-assign-show", "qb-assign-export-csv", "qb-assign-export-jsonl"):
        refused = _call_handler(school, jar, elem, [True, "renal-y2"], session)
        assert "zoe" not in _as_text(refused) and ".csv" not in _as_text(refused), elem
        assert refused["success"] is False or "no assignment" in _as_text(refused), elem


def test_a_student_has_no_assignments_tab_and_is_offered_their_session_after_a_reload(
    school: App, chromium: Any
) -> None:
    page = _log_in(chromium, school, "amy")
    assert not _tab_shown(page, "Assignments")
    page.locator("#qb-practice-start").click()
    chat = page.locator("#qb-practice-chat")
    chat.get_by_text("Question 1 of").wait_for()
    page.get_by_role("button", name="True", exact=True).click()
    chat.get_by_text("Answer 1 of").wait_for()
    page.reload()
    page.locator("#qb-who").get_by_text("Signed in as amy").wait_for()
    offer = page.locator("#qb-practice-resume-text")
    offer.get_by_text("Resume your session").wait_for()
    assert "1/" in offer.inner_text()
    screenshot(page, "accounts-student-resume-offer")
    page.locator("#qb-practice-resume-go").click()
    chat.get_by_text("Welcome back amy").wait_for()
    page.context.close()
    # another student reloading is offered nothing (amy's session is not theirs)
    page = _log_in(chromium, school, "zoe")  # the page load (offering nothing) has run
    assert not page.locator("#qb-practice-resume-text").is_visible()
    page.context.close()
    # the Assignments handlers by raw HTTP: refused by role (a name the page never offered
    # is refused even before that, as not one of the choices)
    _, jar, _ = _login(school, "amy", USERS["amy"][1])
    for elem in ("qb-assign-refresh", "qb-assign-show", "qb-assign-export-csv"):
        refused = _call_handler(school, jar, elem, [True, None])
        assert refused["success"] is False, elem
        assert refused["output"]["error"] == "Your account may not do this.", elem
        named = _call_handler(school, jar, elem, [True, "cardio-y1"])
        assert named["success"] is False and "amy" not in _as_text(named), elem


def test_the_admin_sees_every_assignment(school: App, chromium: Any) -> None:
    page = _log_in(chromium, school, "adm")
    page.get_by_role("tab", name="Assignments").click()
    page.locator("#qb-assign-list").get_by_text("renal-y2").wait_for()
    listed = page.locator("#qb-assign-list").inner_text()
    assert all(name in listed for name in ASSIGNMENTS)
    page.locator("#qb-assign-create-box").get_by_text("Create an assignment").click()
    cohort = page.locator("#qb-assign-cohort textarea, #qb-assign-cohort input").first
    assert not cohort.is_disabled()
    _choose(page, "renal-y2")
    page.locator("#qb-assign-show").click()
    page.locator("#qb-assign-results").get_by_text("zoe").wait_for()
    page.context.close()
