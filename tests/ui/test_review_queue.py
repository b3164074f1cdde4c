"""Spaced review in a real browser: a student answers, the app's clock moves on (through
QUIZBOT_CLOCK_FILE, no sleeping), the "Due for review" panel shows the fact missed and the review
session asks it; "My progress" shows what is due today and this week.

Which facts are due, and when, is computed here by calling ``fsrs`` directly; the answer keys are
read from the database the server writes to.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from fsrs import Card, Rating, Scheduler

from quizbot.items import StatementItem
from tests.ui.conftest import Served, screenshot
from tests.ui.test_practice import database, session_items

STUDENT = "Rita Review"


def _due(*steps: tuple[Rating, datetime]) -> datetime:
    scheduler = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    card = Card(card_id=1, due=steps[0][1])
    for rating, at in steps:
        card, _ = scheduler.review_card(card, rating, review_datetime=at)
    return card.due


def _answer(tab: Any, item: StatementItem, right: bool) -> None:
    said_true = item.label == right
    tab.locator("#qb-practice-true" if said_true else "#qb-practice-false").click()


def _refresh_panel(tab: Any) -> None:
    box = tab.locator("#qb-practice-student textarea, #qb-practice-student input").first
    box.focus()
    box.press("Enter")


def test_a_missed_fact_comes_due_and_the_review_session_asks_it(page: Any, served: Served) -> None:
    assert served.clock_file is not None
    t0 = datetime.fromisoformat(served.clock_file.read_text())
    tab = page
    tab.locator("#qb-practice-student textarea, #qb-practice-student input").first.fill(STUDENT)
    length = tab.locator("#qb-practice-length input[type=number]")
    length.fill("2")
    length.press("Enter")
    tab.locator("#qb-practice-start").click()
    chat = tab.locator("#qb-practice-chat")
    chat.get_by_text("Question 1 of 2").wait_for()
    with database(served.database_url) as db:
        _session, items = session_items(db, STUDENT)
    right, wrong = items
    assert isinstance(right, StatementItem) and isinstance(wrong, StatementItem)
    _answer(tab, right, True)
    tab.locator("#qb-practice-next").click()  # the student moves on when ready
    chat.get_by_text("Question 2 of 2").wait_for()
    _answer(tab, wrong, False)
    chat.get_by_text("Answer 2 of 2:").wait_for()
    panel = tab.locator("#qb-practice-due-text")
    panel.get_by_text("Due for review: 0 facts").wait_for()
    assert tab.locator("#qb-practice-due-start").is_disabled()

    # Move the app's clock to just after the missed fact falls due (FSRS: Again), before the
    # fact answered right does (FSRS: Good).
    wrong_due, right_due = _due((Rating.Again, t0)), _due((Rating.Good, t0))
    t1 = wrong_due + timedelta(minutes=1)
    assert t1 < right_due
    served.clock_file.write_text(t1.isoformat())
    _refresh_panel(tab)
    panel.get_by_text("Due for review: 1 fact.").wait_for()
    screenshot(tab, "practice-due-panel")

    tab.locator("#qb-practice-due-start").click()
    chat.get_by_text("1 fact(s) due for review").wait_for()
    chat.get_by_text("Question 1 of 1").wait_for()
    with database(served.database_url) as db:
        _session, asked = session_items(db, STUDENT)
    (review,) = asked
    assert isinstance(review, StatementItem)
    assert review.fact_id == wrong.fact_id and review.id != wrong.id
    assert review.text in chat.inner_text()
    _answer(tab, review, True)
    chat.get_by_text("Answer 1 of 1:").wait_for()
    panel.get_by_text("Due for review: 0 facts").wait_for()

    wrong_due = _due((Rating.Again, t0), (Rating.Good, t1))
    end_of_day = t1.replace(hour=23, minute=59, second=59, microsecond=999999)
    today = sum(d <= end_of_day for d in (wrong_due, right_due))
    week = sum(d <= t1 + timedelta(days=7) for d in (wrong_due, right_due))
    tab.locator("#qb-practice-progress-toggle").click()
    tab.locator("#qb-practice-progress-show").click()
    progress = tab.locator("#qb-practice-progress-text")
    progress.get_by_text("Due for review:").wait_for()
    assert f"Due for review: {today} today, {week} within a week" in progress.inner_text()
    screenshot(tab, "practice-due-progress")
