"""Two practice sessions started in the browser take the topics in different orders (issue 29):
each session shuffles its relations with its own stored seed, so a student cannot learn that
"symptoms come first". The order is read from what the server stored for each session."""

from __future__ import annotations

import time
from typing import Any

from quizbot.domain import RespondentKind
from storage.repo import get_items
from storage.sessions import find_respondent, respondent_history
from tests.ui.conftest import WAIT_MS, Served
from tests.ui.test_practice import database

LENGTH = 12


def _sessions(served: Served, student: str) -> list[tuple[int, list[str]]]:
    """Every session of ``student``, oldest first, with its questions' relations in order."""
    with database(served.database_url) as db:
        respondent = find_respondent(db, RespondentKind.HUMAN, student.casefold())
        if respondent is None or respondent.id is None:
            return []
        out: list[tuple[int, list[str]]] = []
        for entry in respondent_history(db, respondent.id):
            session = entry.session
            assert session.id is not None
            ids = [e["id"] for e in session.config["items"]]
            rows = {r.id: r for r in get_items(db, ids)}
            out.append((session.id, [rows[i].relation for i in ids]))
        return out


def _wait_for_sessions(served: Served, student: str, n: int) -> list[tuple[int, list[str]]]:
    """The student's sessions once there are ``n`` (the server stores a session before it shows
    its first question; this polls the database for it, bounded by the suite's wait)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        found = _sessions(served, student)
        if len(found) >= n or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_two_sessions_take_the_topics_in_different_orders(
    shared_page: Any, served_shared: Served
) -> None:
    tab, served = shared_page, served_shared
    student = "Orla Order"
    tab.locator("#qb-practice-student textarea, #qb-practice-student input").first.fill(student)
    length = tab.locator("#qb-practice-length input[type=number]")
    length.fill(str(LENGTH))
    length.press("Enter")
    chat = tab.locator("#qb-practice-chat")
    tab.locator("#qb-practice-start").click()
    chat.get_by_text(f"Question 1 of {LENGTH}").wait_for()
    (first,) = _wait_for_sessions(served, student, 1)
    tab.locator("#qb-practice-start").click()  # a new session; the first one is left
    sessions = _wait_for_sessions(served, student, 2)
    assert len(sessions) == 2, sessions
    chat.get_by_text(f"Question 1 of {LENGTH}").wait_for()
    (id_1, order_1), (id_2, order_2) = sessions
    assert id_1 == first[0] and id_2 != id_1
    assert len(order_1) == len(order_2) == LENGTH
    # Both draw from every topic (All topics), each in an order of its own.
    assert len(set(order_1)) > 3 and len(set(order_2)) > 3
    assert order_1 != order_2
