"""Recall questions come back, in a real browser: a missed entry brings its question back in
"Review my recall mistakes" and, once due, in "Review due recall questions"; a reload during a
recall session offers it again and Resume asks the very question that was showing.

The gold lists are read from the database the server writes to and the answers built from them;
the expected due time comes from the ``fsrs`` package called here with the documented scheduler
(the rating decided by hand from the gold list's length); the app's clock is moved with
``QUIZBOT_CLOCK_FILE``, never by sleeping.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fsrs import Card, Rating, Scheduler
from playwright.sync_api import expect

from quizbot.practice.review_queue import recall_card_id
from storage.review_cards import get_cards
from storage.sessions import load_session
from tests.ui.conftest import Served, screenshot
from tests.ui.events import wait_loaded
from tests.ui.test_practice import assert_fits, database, stored
from tests.ui.test_recall_practice import recall_items, start_recall


def _due_after(rating: Rating, at: datetime) -> datetime:
    scheduler = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    card, _ = scheduler.review_card(Card(card_id=1, due=at), rating, review_datetime=at)
    return card.due


def _answer(tab: Any, text: str, position: int, total: int) -> None:
    tab.locator("#qb-recall-answer textarea").first.fill(text)
    tab.locator("#qb-recall-submit").click()
    verdict = tab.locator("#qb-recall-verdict")
    expect(verdict).to_contain_text(f"Question {position} of {total}")


def _enter_name(tab: Any, student: str) -> None:
    name = tab.locator("#qb-practice-student textarea, #qb-practice-student input").first
    name.fill(student)
    name.press("Enter")


def test_a_missed_entry_comes_back_in_review_my_mistakes_and_when_due(
    page: Any, served: Served
) -> None:
    """Moves the app's clock: an app of its own."""
    tab = page
    student = "Mia Missed"
    start_recall(tab, student, 2, aspect="relation:has_symptom")
    session_id, items = recall_items(served, student)
    first, second = items
    missed = first.answers[-1]
    _answer(tab, ", ".join(first.answers[:-1]), 1, 2)  # all but the last gold entity
    expect(tab.locator("#qb-recall-missed li").filter(has_text=missed).first).to_be_visible()
    tab.locator("#qb-recall-next").click()
    expect(tab.locator("#qb-recall-question")).to_contain_text("Question 2 of 2")
    _answer(tab, ", ".join(second.answers), 2, 2)  # the whole list: no mistake
    expect(tab.locator("#qb-recall-status")).to_contain_text("Session over")

    # "Review my mistakes": the question with the missed entry, and only it.
    tab.locator("#qb-recall-review").click()
    question = tab.locator("#qb-recall-question")
    expect(question).to_contain_text("Question 1 of 1")
    expect(question).to_contain_text(first.head)
    expect(tab.locator("#qb-recall-status")).to_contain_text("Review my mistakes")
    screenshot(tab, "recall-review-mistakes")
    _answer(tab, ", ".join(first.answers), 1, 1)
    expect(tab.locator("#qb-recall-missed")).to_contain_text("you recalled the whole list")
    expect(tab.locator("#qb-recall-status")).to_contain_text("Session over")

    # Spaced review: the first answer reviewed the question's card at the app's clock (one
    # review a day, so the same day's second answer did not); move the clock to its due time.
    assert served.clock_file is not None
    t0 = datetime.fromisoformat(served.clock_file.read_text())
    n = len(first.answers)
    f1 = 2 * (n - 1) / (2 * n - 1)  # n-1 of n recalled, nothing else listed: precision 1
    rating = Rating.Hard if f1 >= 0.7 else Rating.Again
    due = _due_after(rating, t0)
    assert due < _due_after(Rating.Good, t0)  # the whole list comes due later
    with database(served.database_url) as db:
        rid = load_session(db, session_id).respondent.id
        assert rid is not None
        card_id = recall_card_id(first.kb, first.relation, first.head)
        cards = get_cards(db, rid, [card_id])
        assert cards[card_id].due == due and cards[card_id].reviews == 1
    line = tab.locator("#qb-recall-due-text")
    expect(line).to_contain_text("due for review: 0")
    expect(tab.locator("#qb-recall-due-start")).to_be_disabled()
    served.clock_file.write_text(due.isoformat())
    _enter_name(tab, student)  # the due line is read again when the pseudonym is entered
    expect(line).to_contain_text("Recall question due for review: 1")
    tab.locator("#qb-recall-due-start").click()
    expect(question).to_contain_text("Question 1 of 1")
    expect(question).to_contain_text(first.head)
    expect(tab.locator("#qb-recall-status")).to_contain_text("Due for review")
    _answer(tab, ", ".join(first.answers), 1, 1)
    expect(line).to_contain_text("due for review: 0")  # reviewed: due again later


def test_a_reload_during_a_recall_session_offers_it_and_resume_asks_the_same_question(
    shared_page: Any, served_shared: Served
) -> None:
    """Its student's own session only (the clock is not moved): on the shared app."""
    tab, served = shared_page, served_shared
    student = "Remy Reload"
    start_recall(tab, student, 3)
    session_id, items = recall_items(served, student)
    _answer(tab, "I don't know", 1, 3)
    tab.locator("#qb-recall-next").click()
    question = tab.locator("#qb-recall-question")
    expect(question).to_contain_text("Question 2 of 3")
    expect(question).to_contain_text(items[1].head)
    with database(served.database_url) as db:
        started = load_session(db, session_id).session.started_at

    tab.reload()
    wait_loaded(tab, served.url)
    expect(tab.locator("#qb-recall-answer textarea")).to_be_hidden()  # the section's state is gone
    _enter_name(tab, student.upper())  # the same student, however typed
    offer = tab.locator("#qb-recall-resume-text")
    expect(offer).to_contain_text(f"Resume your recall session of {started:%Y-%m-%d %H:%M} UTC")
    expect(offer).to_contain_text("1/3 answered")
    screenshot(tab, "recall-resume-offer-1280")
    tab.set_viewport_size({"width": 390, "height": 844})
    assert_fits(tab, 390)
    screenshot(tab, "recall-resume-offer-390")
    tab.locator("#qb-recall-resume-go").click()
    expect(question).to_contain_text("Question 2 of 3")
    expect(question).to_contain_text(items[1].head)
    expect(tab.locator("#qb-recall-resume-go")).to_be_hidden()
    _answer(tab, ", ".join(items[1].answers), 2, 3)
    with database(served.database_url) as db:
        rows = stored(db, session_id)
        assert [r.item_id for r in rows] == [items[0].id, items[1].id]  # the same session
        assert load_session(db, session_id).session.status == "active"
