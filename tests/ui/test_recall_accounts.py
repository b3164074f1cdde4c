"""The Recall section in accounts mode: the student is the logged-in account, whatever is sent.

On the shared accounts-mode app, with a student, an instructor and an admin of the test's own
(``shared_app``): what it writes and reads is its own student's.
"""

from __future__ import annotations

from typing import Any

import pytest

from quizbot.domain import RespondentKind
from storage import open_database
from storage.sessions import find_respondent, respondent_history
from tests.ui.conftest import USERS, App
from tests.ui.test_accounts import _call_handler, _log_in_page, _login, browser
from tests.ui.test_recall_practice import start_recall

__all__ = ["browser"]  # the fixture, used by name

pytestmark = pytest.mark.slow


def test_a_student_account_practises_recall_as_itself(shared_app: App, browser: Any) -> None:
    app = shared_app
    page = _log_in_page(browser, app, "stu")
    start_recall(page, None, 1)
    page.locator("#qb-recall-answer textarea").first.fill("I don't know")
    page.locator("#qb-recall-submit").click()
    page.locator("#qb-recall-status").get_by_text("Session over").wait_for()
    # Raw HTTP naming someone else practises as the account, in its cohort.
    _, jar, _ = _login(app, "stu", USERS["stu"][1])
    started = _call_handler(
        app, jar, "qb-recall-start", ["victim", "clinical-core", "all", 1, "other", "", None]
    )
    assert started["success"] is True
    db = open_database(app.database_url)
    try:
        assert find_respondent(db, RespondentKind.HUMAN, "victim") is None
        student = find_respondent(db, RespondentKind.HUMAN, app.account("stu"))
        assert student is not None and student.id is not None and student.cohort == "year-1"
        sessions = respondent_history(db, student.id)
        assert [s.session.config["format"] for s in sessions] == ["recall", "recall"]
        assert [len(s.answers) for s in sessions] == [1, 0]
    finally:
        db.dispose()
    page.context.close()
