"""Flag -> review -> retire, end to end in a real browser, checked against the database.

A student answers multiple-choice questions on "Prevention" and flags one about an agent with a
single fact under "prevents" (so that question is the only one the topic can make about it); an
admin logs in, finds it in the review queue and retires it; the flag is resolved and the item
retired in the database, and the student's next session on that topic, long enough to hold every
question the topic can make (drawn with the canonical seed), does not ask it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from playwright.sync_api import expect

from quizbot.domain import FlagState
from quizbot.kb.registry import load_builtin
from storage.review import list_flags, list_retired
from tests.ui.conftest import Served, screenshot
from tests.ui.test_practice import database, session_items

STUDENT = "Flagger"
TOPIC = "Prevention"


def _start(tab: Any, length: int) -> None:
    tab.get_by_role("tab", name="Practice").click()
    tab.locator("#qb-practice-student textarea, #qb-practice-student input").first.fill(STUDENT)
    tab.locator("#qb-practice-topic input").click()
    tab.get_by_role("option", name=re.compile(rf"^{TOPIC} \(")).click()
    tab.locator("#qb-practice-format").get_by_text("Multiple choice").click()
    length_box = tab.locator("#qb-practice-length input[type=number]")
    length_box.fill(str(length))
    length_box.press("Enter")
    tab.locator("#qb-practice-start").click()


def test_a_flagged_question_is_retired_by_an_admin_and_never_asked_again(
    page: Any, served: Served
) -> None:
    tab = page
    _start(tab, 100)
    chat = tab.locator("#qb-practice-chat")
    chat.get_by_text(re.compile(r"Question 1 of \d+")).wait_for()
    # Nothing to flag before answering: the flag form only appears with the feedback.
    assert tab.locator("#qb-practice-flag").is_hidden()
    # Flag the first question about a vaccine with one fact under "prevents": its question is
    # then the only one the topic can make about it, so re-asking it would be caught below.
    builtin = load_builtin("clinical-core")
    facts = Counter(t.head for t in builtin.triplets if t.relation == "prevents")
    with database(served.database_url) as db:
        first_session, planned = session_items(db, STUDENT)
    position = next(n for n, i in enumerate(planned, start=1) if facts[i.head] == 1)
    item = planned[position - 1]
    for n in range(1, position + 1):
        if n > 1:
            tab.locator("#qb-practice-next").click()  # the student moves on when ready
        chat.get_by_text(f"Question {n} of {len(planned)}").wait_for()
        tab.locator("#qb-practice-letter-A").click()
        tab.locator("#qb-practice-submit").get_by_text(re.compile(r"Submit .*A")).wait_for()
        tab.locator("#qb-practice-submit").click()
        chat.get_by_text(f"Answer {n} of {len(planned)}:").wait_for()

    flag_box = tab.locator("#qb-practice-flag")
    flag_box.get_by_text("Flag this question").click()
    tab.locator("#qb-practice-flag-reason").get_by_text("The answer key is wrong").click()
    tab.locator("#qb-practice-flag-comment textarea").fill("Surely <b>this</b> is wrong_key?")
    tab.locator("#qb-practice-flag-send").click()
    tab.locator("#qb-practice-flag-result").get_by_text("Thank you").wait_for()
    screenshot(tab, "practice-flag")
    assert f"question {position}, just answered" in flag_box.inner_text()
    with database(served.database_url) as db:
        (flag,) = list_flags(db)
        assert (flag.item_id, flag.reason, flag.state) == (item.id, "wrong_key", "open")
        assert flag.comment == "Surely <b>this</b> is wrong_key?"

    tab.get_by_role("tab", name="Admin").click()
    tab.locator("#qb-admin-password input").fill(served.admin_password)
    tab.locator("#qb-admin-password input").press("Enter")
    tab.locator("#qb-admin-message").get_by_text("Logged in").wait_for()
    details = tab.locator("#qb-admin-flag-details")
    details.get_by_text("1 open flag(s)").wait_for()
    shown = details.inner_text()
    # Escaped, not rendered: the comment's markup shows as typed.
    assert "Surely <b>this</b> is wrong_key?" in shown
    assert "Answer key:" in shown and item.head in shown
    assert "1 flagged item(s)" in tab.locator("#qb-admin-flags-summary").inner_text()
    for width in (1280, 390):
        tab.set_viewport_size({"width": width, "height": 900})
        tab.locator("#qb-admin-flag-actions").scroll_into_view_if_needed()
        screenshot(tab, f"admin-review-{width}")
        box = tab.locator("#qb-admin-flag-retire").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 1
    tab.set_viewport_size({"width": 1400, "height": 1000})

    tab.locator("#qb-admin-flag-retire").click()
    tab.locator("#qb-admin-flag-result").get_by_text("the item is retired").wait_for()
    tab.locator("#qb-admin-flags-summary").get_by_text("No open flags").wait_for()
    with database(served.database_url) as db:
        (resolved,) = list_flags(db)
        assert (resolved.state, resolved.decision) == (FlagState.RESOLVED, "retire")
        assert resolved.decided_by == "admin"
        (retired,) = list_retired(db)
        assert (retired.item_id, retired.flag_id) == (item.id, flag.id)

    _start(tab, 100)
    status = tab.locator("#qb-practice-status")
    expect(status).not_to_contain_text(f"Session {first_session} ")  # the new one has started
    status.get_by_text("could be made").wait_for()
    with database(served.database_url) as db:
        second_session, items = session_items(db, STUDENT)
    assert second_session != first_session
    assert len(items) > 20  # every question the topic can make, but the retired one
    assert item.id not in {i.id for i in items}
    assert item.head not in {i.head for i in items}  # its only possible question is retired
