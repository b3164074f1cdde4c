"""The Practice tab's lists in a real browser (issue 29): a student account starts an assignment
by choosing it from its own list, and My progress charts three weeks of answers per day and
per week, each period one point with its 95% interval bar.

Accounts: the app is served over a database holding a year-1 student, a year-1 assignment open
now, one opening next week and a year-2 assignment; the student sees their cohort's two (the
later one "not open yet" and not offered), never year-2's, chooses the open one and presses
Start. Progress: three weeks of practice are answered through the services with the app's own
clock (QUIZBOT_CLOCK_FILE) moved day by day, then read in the page. Screenshots at 1280 and
390 px go to tests/artifacts/ (the ones in docs/screenshots/ were taken by these tests).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from quizbot import accounts
from quizbot.config import get_settings, load_settings
from quizbot.domain import RespondentKind
from quizbot.practice.service import answer, next_question, start_session
from quizbot.ui.assignments import create
from quizbot.ui.context import UiContext
from storage import open_database
from storage.assignments import find_assignment
from storage.sessions import find_respondent, respondent_history
from tests.practice.test_service import reply, session_rows
from tests.ui.conftest import (
    ARTIFACTS,
    WAIT_MS,
    App,
    Served,
    screenshot,
    serve_accounts,
)
from tests.ui.events import wait_layout, wait_loaded, watch

pytestmark = pytest.mark.slow

PASSWORD = "student password 1"
FORM = {
    "kb": "clinical-core", "points": 2, "fmt": "statements", "mode": "practice",
    "closes": "", "all_variants": False, "two_pass": False,
}  # fmt: skip


def _fits(tab: Any, width: int) -> None:
    wide = tab.evaluate("document.documentElement.scrollWidth")
    assert wide <= width + 1, f"the page is {wide} px wide at {width} px"


@pytest.fixture
def school(database_url: str, tmp_path: Path) -> Iterator[App]:
    db = open_database(database_url)
    try:
        accounts.create_user(db, "amy", "student", PASSWORD, cohort="year-1")
        ctx = UiContext(load_settings(home=str(tmp_path / "home"), database_url=db.url), db)
        later = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
        for name, cohort, opens in (
            ("cardio-y1", "year-1", ""),
            ("later-y1", "year-1", later),
            ("renal-y2", "year-2", ""),
        ):
            create(ctx, name=name, cohort=cohort, opens=opens, **FORM)  # type: ignore[arg-type]
    finally:
        db.dispose()
    with serve_accounts(database_url, tmp_path) as url:
        yield App(url, database_url)


def test_a_student_starts_an_assignment_by_choosing_it_from_their_list(
    school: App, chromium: Any
) -> None:
    tab = chromium.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    tab.set_default_timeout(WAIT_MS)
    watch(tab)
    tab.goto(f"{school.url}/")
    tab.get_by_label("Username").fill("amy")
    tab.get_by_label("Password").fill(PASSWORD)
    tab.get_by_role("button", name="Log in").click()
    tab.locator("#qb-who").get_by_text("Signed in as amy").wait_for()
    wait_loaded(tab, school.url)
    table = tab.locator("#qb-practice-assignments-table")
    expect(table.locator("li", has_text="cardio-y1")).to_contain_text("not started")
    expect(table.locator("li", has_text="later-y1")).to_contain_text("not open yet")
    assert "renal-y2" not in tab.locator("body").inner_text()  # another cohort's: unknown
    # Only open assignments can be chosen.
    choice = tab.locator("#qb-practice-assignment-choice")
    assert choice.get_by_text("later-y1").count() == 0
    # No pseudonym asked for anywhere in the tab.
    assert "pseudonym" not in tab.locator("body").inner_text().lower()
    screenshot(tab, "practice-assignments-1280")
    tab.set_viewport_size({"width": 390, "height": 844})
    wait_layout(tab)
    _fits(tab, 390)
    screenshot(tab, "practice-assignments-390")
    tab.set_viewport_size({"width": 1280, "height": 1000})

    choice.get_by_label("cardio-y1 (not started)").check()
    # Nothing to type: the choice fills the assignment field.
    box = tab.locator("#qb-practice-assignment textarea, #qb-practice-assignment input").first
    expect(box).to_have_value("cardio-y1")
    tab.locator("#qb-practice-start").click()
    chat = tab.locator("#qb-practice-chat")
    expect(chat).to_contain_text("Assignment cardio-y1", ignore_case=True)
    tab.locator("#qb-practice-true").click()
    expect(chat).to_contain_text("Answer 1 of")
    # The list follows: the assignment is now in progress, and stays chosen.
    expect(table.locator("li", has_text="cardio-y1")).to_contain_text("in progress")
    expect(choice.get_by_label("cardio-y1 (in progress)")).to_be_checked()

    db = open_database(school.database_url)
    try:
        found = find_assignment(db, "cardio-y1")
        amy = find_respondent(db, RespondentKind.HUMAN, "amy")
        assert found is not None and amy is not None and amy.id is not None
        (past,) = respondent_history(db, amy.id)
        assert past.session.assignment_id == found.id and len(past.answers) == 1
    finally:
        db.dispose()


def _three_weeks(served: Served, monkeypatch: pytest.MonkeyPatch, student: str) -> list[str]:
    """Practice on 6 days over three weeks, answered through the services with the app's clock
    moved to each day (the server reads the same clock file); the clock is put back after.
    Returns the days (ISO)."""
    assert served.clock_file is not None
    monkeypatch.setenv("QUIZBOT_CLOCK_FILE", str(served.clock_file))
    get_settings.cache_clear()
    today = datetime.now(UTC).replace(hour=10, minute=0, second=0, microsecond=0)
    start = today - timedelta(days=today.weekday() + 14)  # the Monday two weeks back
    days = [start + timedelta(days=n) for n in (0, 2, 7, 9, 11, 14)]
    db = open_database(served.database_url)
    try:
        for i, day in enumerate(days):
            served.clock_file.write_text(day.isoformat(), encoding="utf-8")
            view = start_session(db, student=student, length=4, seed=f"day{i}")
            for n, row in enumerate(session_rows(db, view.id)):
                question = next_question(db, view.id)
                assert question is not None
                answer(db, view.id, question.id, reply(row, right=(n + i) % 3 != 0))
    finally:
        served.clock_file.write_text(datetime.now(UTC).isoformat(), encoding="utf-8")
        get_settings.cache_clear()
        db.dispose()
    return [d.date().isoformat() for d in days]


def _points(tab: Any) -> list[dict[str, Any]]:
    """The chart's points as drawn: period, dot x, and the interval bar's ends."""
    points: list[dict[str, Any]] = tab.locator("#qb-practice-progress-plot").evaluate(
        """(root) => [...root.querySelectorAll('.qb-progress-point')].map((g) => {
            const bar = g.querySelector('.qb-progress-ci');
            const dot = g.querySelector('circle');
            return {period: g.dataset.period, x: Number(dot.getAttribute('cx')),
                    y1: Number(bar.getAttribute('y1')), y2: Number(bar.getAttribute('y2')),
                    low: Number(g.dataset.low), high: Number(g.dataset.high),
                    shown: dot.getBoundingClientRect().width > 0};
        })"""
    )
    return points


def test_my_progress_charts_three_weeks_per_day_and_per_week_with_intervals(
    page: Any, served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    days = _three_weeks(served, monkeypatch, "Wren")
    tab = page
    tab.set_viewport_size({"width": 1280, "height": 1000})
    tab.locator("#qb-practice-student textarea, #qb-practice-student input").first.fill("Wren")
    tab.locator("#qb-practice-progress-toggle").click()
    text = tab.locator("#qb-practice-progress-text")
    text.get_by_text("24 answers in 6 sessions").wait_for()
    chart = tab.locator("#qb-practice-progress-plot")
    expect(chart.locator(".qb-progress-point")).to_have_count(len(days))
    by_day = _points(tab)
    assert [p["period"] for p in by_day] == days
    assert len({p["x"] for p in by_day}) == len(days)  # one x value per day
    # Every point has its interval drawn as a bar of some height, around the dot.
    assert all(p["shown"] and p["y1"] > p["y2"] and p["low"] < p["high"] for p in by_day)

    tab.locator("#qb-practice-progress-by").get_by_label("Per week").check()
    tab.locator("#qb-practice-progress-show").click()
    text.get_by_text("Per week").wait_for()
    expect(chart.locator(".qb-progress-point")).to_have_count(3)
    by_week = _points(tab)
    assert [p["period"] for p in by_week] == [days[0], days[2], days[5]]  # their Mondays
    assert len({p["x"] for p in by_week}) == 3
    assert all(p["y1"] > p["y2"] for p in by_week)
    # The weakest topics can be practised in one click.
    weakest = tab.locator("#qb-practice-weakest")
    expect(weakest).to_contain_text("Weakest topics:")
    button = tab.locator("#qb-practice-weakest-start")
    expect(button).to_be_enabled()
    panel = tab.locator("#qb-practice-progress")
    screenshot(tab, "practice-progress-1280")
    panel.screenshot(path=str(ARTIFACTS / "practice-progress-panel-1280.png"))
    tab.set_viewport_size({"width": 390, "height": 844})
    wait_layout(tab)
    _fits(tab, 390)
    screenshot(tab, "practice-progress-390")
    panel.screenshot(path=str(ARTIFACTS / "practice-progress-panel-390.png"))
    tab.set_viewport_size({"width": 1280, "height": 1000})
    button.click()
    expect(tab.locator("#qb-practice-chat")).to_contain_text("Topics: ")
    expect(tab.locator("#qb-practice-true")).to_be_visible()
