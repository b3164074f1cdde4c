"""One server request per answer, in a real browser (issue 32, docs/performance.md Part 7).

The "Due for review" panel used to be read by a request of its own after every change of the
chat, and the flag form cleared by another after every new flaggable question: an answer cost
three server events. Now the answer's own outputs carry both, so one answer is one event, and
the panel still shows the right count: a fact missed two days ago (the app's clock moved
through QUIZBOT_CLOCK_FILE) is counted by the next answer itself.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from quizbot.items import StatementItem
from tests.ui.conftest import Served
from tests.ui.events import wait_settled
from tests.ui.test_practice import database, session_items
from tests.ui.test_practice_inputs import Joins, handlers_of

STUDENT = "Dora Due"


def _answer_wrong(tab: Any, item: StatementItem, true_fn: int, false_fn: int) -> int:
    """Click the wrong one of True/False for ``item``; the handler id that click runs."""
    wrong = "false" if item.label else "true"
    tab.locator(f"#qb-practice-{wrong}").click()
    return false_fn if wrong == "false" else true_fn


def test_one_answer_is_one_server_event_and_the_due_panel_comes_with_it(
    page: Any, served: Served
) -> None:
    assert served.clock_file is not None
    t0 = datetime.fromisoformat(served.clock_file.read_text())
    tab = page
    (true_fn,) = handlers_of(served, "qb-practice-true")
    (false_fn,) = handlers_of(served, "qb-practice-false")
    (next_fn,) = handlers_of(served, "qb-practice-next")
    tab.locator("#qb-practice-student textarea, #qb-practice-student input").first.fill(STUDENT)
    length = tab.locator("#qb-practice-length input[type=number]")
    length.fill("3")
    length.press("Enter")
    tab.locator("#qb-practice-start").click()
    chat = tab.locator("#qb-practice-chat")
    chat.get_by_text("Question 1 of 3").wait_for()
    panel = tab.locator("#qb-practice-due-text")
    panel.get_by_text("Due for review: 0 facts").wait_for()  # shown with the start
    wait_settled(tab)  # the start and everything the name and the start set off
    with database(served.database_url) as db:
        _session, items = session_items(db, STUDENT)
    assert all(isinstance(i, StatementItem) for i in items)
    statements = [i for i in items if isinstance(i, StatementItem)]

    joins = Joins(tab)  # every server event from here on
    sent = [_answer_wrong(tab, statements[0], true_fn, false_fn)]
    chat.get_by_text("Answer 1 of 3:").wait_for()
    # Two days on: the fact just missed is due. Nothing but an answer may tell the panel.
    served.clock_file.write_text((t0 + timedelta(days=2)).isoformat())
    tab.locator("#qb-practice-next").click()
    sent.append(next_fn)
    chat.get_by_text("Question 2 of 3").wait_for()
    assert "Due for review: 0 facts" in panel.inner_text()  # Next changes nothing it counts
    sent.append(_answer_wrong(tab, statements[1], true_fn, false_fn))
    chat.get_by_text("Answer 2 of 3:").wait_for()
    # The panel's count comes with the answer: the first miss (the second is due tomorrow).
    panel.get_by_text("Due for review: 1 fact.").wait_for()
    assert tab.locator("#qb-practice-due-start").is_enabled()
    wait_settled(tab, set(sent))
    # One event per answer and one for Next: no refresh of the panel, no flag-form reset.
    assert joins.fns == sent, (joins.fns, sent)
