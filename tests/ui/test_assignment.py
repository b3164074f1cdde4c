"""Taking an assignment in the Practice tab, in a real browser.

The assignments are made through the service in the database the served app uses; the keys are
read from that database, never from the app. An exam must show no verdict, key or explanation
anywhere on the page until the last answer, then the review of every answer with its key; a
finished assignment entered again is not restarted (a message and the review once more, the
choice documented in :mod:`quizbot.ui.practice`). A practice assignment gives feedback as usual.

Every test makes an assignment of its own name that only its own student takes, and reads only
that student's sessions: they run on the shared app (``served_shared``), each in a page of its
own.
"""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import col, select

from quizbot.domain import AssignmentMode
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.items import ChoiceItem, StatementItem
from storage import Database
from storage.models import QuizSession
from tests.ui.conftest import Served, screenshot
from tests.ui.test_practice import (
    LEAKY_KEYS,
    WORDS,
    database,
    expected_outcome,
    key_text,
    session_items,
    stored,
)

# Words only feedback (or the review) contains: none may appear before an exam's end, on the
# whole page for the first two, in the Practice tab for the others (the Ask tab has a control
# labelled "The statement is").
REVEALING = ("Correct answer", "The right answer")
IN_THE_TAB = ("The statement is", ": right.", ": wrong.", "✓", "✗")


def make(db: Database, name: str, mode: AssignmentMode) -> None:
    """A small assignment: 2 facts, true/false statements."""
    make_assignment(
        db,
        AssignmentRequest(name=name, kb="clinical-core", points=2, seed="3", mode=mode),
    )


def start(tab: Any, student: str, assignment: str) -> None:
    tab.locator("#qb-practice-student textarea, #qb-practice-student input").first.fill(student)
    box = tab.locator("#qb-practice-assignment textarea, #qb-practice-assignment input").first
    box.fill(assignment)
    tab.locator("#qb-practice-start").click()


def sessions_of(db: Database, session_id: int) -> int:
    """How many sessions share this session's respondent and assignment."""
    row = db.read(lambda s: s.get(QuizSession, session_id))
    assert row is not None
    return len(
        db.read(
            lambda s: list(
                s.execute(
                    select(QuizSession)
                    .where(col(QuizSession.respondent_id) == row.respondent_id)
                    .where(col(QuizSession.assignment_id) == row.assignment_id)
                ).scalars()
            )
        )
    )


def newest_session(db: Database) -> int:
    """The id of the newest session in ``db`` (0 for none)."""
    ids = db.read(lambda s: list(s.execute(select(col(QuizSession.id))).scalars()))
    return max((i for i in ids if i is not None), default=0)


def review_line(review: str, position: int, total: int) -> str:
    lines = [line for line in review.splitlines() if f"Answer {position} of {total}:" in line]
    assert len(lines) == 1, review
    return lines[0]


def test_an_exam_assignment_reveals_nothing_until_the_end_and_is_not_retaken(
    shared_page: Any, served_shared: Served
) -> None:
    tab, served = shared_page, served_shared
    student = "Ira Exam"
    with database(served.database_url) as db:
        make(db, "week-3-exam", AssignmentMode.EXAM)
    start(tab, student, "week-3-exam")
    chat = tab.locator("#qb-practice-chat")
    chat.get_by_text("This is an exam").wait_for()
    panel = tab.get_by_role("tabpanel").filter(has=chat)

    with database(served.database_url) as db:
        session_id, items = session_items(db, student)
        n = len(items)
        assert n >= 2 and all(isinstance(item, StatementItem) for item in items)
        sent: list[str] = []
        for position, item in enumerate(items, start=1):
            chat.get_by_text(f"Question {position} of {n}").first.wait_for()
            # Before the last answer nothing on the page (nor in the tab's markup) reveals a key.
            page_text, html = tab.content(), panel.inner_html()
            shown = panel.inner_text()
            assert not any(words in page_text for words in REVEALING), page_text
            assert not any(words in shown for words in REVEALING + IN_THE_TAB), shown
            assert not any(key in html for key in LEAKY_KEYS)
            assert item.id.split(":")[-1] not in page_text
            assert tab.locator("#qb-practice-summary").inner_text().strip() == ""
            assert tab.locator("#qb-practice-flag").is_hidden()
            if position == 2:
                tab.set_viewport_size({"width": 1280, "height": 900})
                screenshot(tab, "assignment-exam-1280")
                tab.set_viewport_size({"width": 390, "height": 844})
                screenshot(tab, "assignment-exam-390")
                tab.set_viewport_size({"width": 1280, "height": 900})
            answer = "True" if position % 2 else "False"
            tab.locator("#qb-practice-true" if answer == "True" else "#qb-practice-false").click()
            sent.append(answer)
            if position < n:  # the next question, checked for leaks at the top of the loop
                chat.get_by_text(f"Question {position + 1} of {n}").first.wait_for()
                receipt = rf"Answer recorded\. Question {position} of {n}\. Your results are shown"
                assert re.search(receipt, chat.inner_text()), chat.inner_text()

        summary = tab.locator("#qb-practice-summary")
        summary.get_by_text("Review of every question").wait_for()
        assert f"Answer recorded. Question {n} of {n}. That was the last" in chat.inner_text()
        rows = stored(db, session_id)
        assert [r.raw_text for r in rows] == sent
        outcomes = [expected_outcome(item, a) for item, a in zip(items, sent, strict=True)]
        assert [r.outcome for r in rows] == outcomes
        review = summary.inner_text()
        for position, (item, outcome) in enumerate(zip(items, outcomes, strict=True), start=1):
            line = review_line(review, position, n)
            assert f": {WORDS[outcome]}" in line, line
            assert all(piece in line.split("Correct answer:")[1] for piece in key_text(item))
        right = outcomes.count("correct")
        accuracy_row = summary.locator("tr", has_text="Accuracy (right / answered)").inner_text()
        assert f"{right}/{n}" in accuracy_row
        chat.get_by_text("Exam complete").wait_for()
        assert tab.locator("#qb-practice-true").is_hidden()
        screenshot(tab, "assignment-exam-review-1280")
        tab.set_viewport_size({"width": 390, "height": 844})
        screenshot(tab, "assignment-exam-review-390")

        # Again, after a reload, under the same pseudonym: not restarted, the review again.
        tab.reload()
        tab.get_by_text("quizbot", exact=False).first.wait_for()
        start(tab, "  ira exam ", "week-3-exam")
        chat.get_by_text("You have already finished").wait_for()
        summary.get_by_text("Review of every question").wait_for()
        assert tab.locator("#qb-practice-true").is_hidden()
        assert tab.locator("#qb-practice-answer").is_hidden()
        screenshot(tab, "assignment-again-390")
        assert sessions_of(db, session_id) == 1
        assert len(stored(db, session_id)) == n
        assert session_items(db, student)[0] == session_id


def test_a_practice_assignment_gives_feedback_and_an_unknown_name_starts_nothing(
    shared_page: Any, served_shared: Served
) -> None:
    tab, served = shared_page, served_shared
    student = "Jo Practice"
    chat = tab.locator("#qb-practice-chat")
    with database(served.database_url) as db:
        before = newest_session(db)
    start(tab, student, "no-such-assignment")
    chat.get_by_text("There is no assignment called").wait_for()
    assert "Traceback" not in chat.inner_text()
    assert tab.locator("#qb-practice-true").is_hidden()
    tab.set_viewport_size({"width": 1280, "height": 900})
    screenshot(tab, "assignment-unknown-1280")

    with database(served.database_url) as db:
        make(db, "week-3-practice", AssignmentMode.PRACTICE)
        # An unknown name started nothing: no session since the test began (the shared app's
        # other tests run before or after it, never beside it, in a test process).
        assert newest_session(db) == before
        tab.locator("#qb-practice-assignment textarea, #qb-practice-assignment input").first.fill(
            "week-3-practice"
        )
        tab.locator("#qb-practice-start").click()
        chat.get_by_text("Question 1 of").first.wait_for()
        session_id, items = session_items(db, student)
        n = len(items)
        assert "This is an exam" not in chat.inner_text()
        tab.set_viewport_size({"width": 390, "height": 844})
        screenshot(tab, "assignment-practice-390")
        tab.locator("#qb-practice-false").click()
        chat.get_by_text(f"Answer 1 of {n}:").wait_for()
        line = next(x for x in chat.inner_text().splitlines() if f"Answer 1 of {n}:" in x)
        outcome = expected_outcome(items[0], "False")
        assert f": {WORDS[outcome]}" in line, line
        assert all(piece in line.split("Correct answer:")[1] for piece in key_text(items[0]))
        assert [(r.raw_text, r.outcome) for r in stored(db, session_id)] == [("False", outcome)]
        if n > 1:  # practice feedback stays until the student asks for the next question
            tab.locator("#qb-practice-next").click()
            chat.get_by_text(f"Question 2 of {n}").first.wait_for()


def test_the_api_takes_an_assignment_and_withholds_an_exams_keys(served_shared: Served) -> None:
    """``/practice_start`` takes the assignment as its seventh argument (or by name)."""
    from gradio_client import Client

    served = served_shared
    with database(served.database_url) as db:
        make(db, "api-exam", AssignmentMode.EXAM)
        client = Client(served.url, verbose=False)
        first = client.predict("Kai", assignment="api-exam", api_name="/practice_start")[0]
        assert first["error"] is None and first["session"]["mode"] == "exam"
        assert first["session"]["assignment"] == "api-exam"
        session_id, items = session_items(db, "Kai")
        assert first["session"]["id"] == session_id
        n = len(items)
        for position in range(1, n + 1):
            out = client.predict("true", api_name="/practice_answer")
            if position < n:
                assert out[0]["feedback"] is None and out[0]["summary"] is None
                assert "Correct answer" not in str(out), out
        assert out[0]["summary"]["n_answered"] == n
        assert "Review of every question" in out[3]
        unknown = client.predict(
            "Kai", "clinical-core", "all", "statement", 3, None, "nope", api_name="/practice_start"
        )[0]
        assert unknown["error"] == "no assignment 'nope'" and unknown["session"] is None


def test_a_multiple_choice_exam_takes_letters_and_typing_and_withholds_the_key(
    shared_page: Any, served_shared: Served
) -> None:
    """An exam of its own name that only its own student takes: on the shared app."""
    tab, served = shared_page, served_shared
    student = "Mo Choice"
    with database(served.database_url) as db:
        make_assignment(
            db,
            AssignmentRequest(
                name="mc-exam", kb="clinical-core", points=2, seed="4", format="choice",
                mode=AssignmentMode.EXAM,
            ),
        )  # fmt: skip
        start(tab, student, "mc-exam")
        chat = tab.locator("#qb-practice-chat")
        chat.get_by_text("This is an exam").wait_for()
        session_id, items = session_items(db, student)
        n = len(items)
        assert n == 2 and all(isinstance(item, ChoiceItem) for item in items)
        panel = tab.get_by_role("tabpanel").filter(has=chat)
        # The first by the letter buttons and Submit, the second typed.
        chat.get_by_text(f"Question 1 of {n}").first.wait_for()
        tab.locator("#qb-practice-letter-A").click()
        tab.locator("#qb-practice-letter-B").click()
        tab.locator("#qb-practice-submit").get_by_text(re.compile(r"Submit A, B")).wait_for()
        tab.locator("#qb-practice-submit").click()
        chat.get_by_text(f"Question 2 of {n}").first.wait_for()
        shown = panel.inner_text()
        assert "Answer recorded. Question 1 of 2." in shown
        assert not any(words in shown for words in REVEALING + IN_THE_TAB), shown
        assert not any(words in tab.content() for words in REVEALING)
        box = tab.locator("#qb-practice-answer textarea, #qb-practice-answer input").first
        box.fill("banana")  # unreadable: a hint, nothing stored, still the same question
        box.press("Enter")
        chat.get_by_text("could not read 'banana'").wait_for()
        assert [r.raw_text for r in stored(db, session_id)] == ["A, B"]
        box.fill("c")
        box.press("Enter")
        summary = tab.locator("#qb-practice-summary")
        summary.get_by_text("Review of every question").wait_for()
        rows = stored(db, session_id)
        assert [r.raw_text for r in rows] == ["A, B", "c"]
        expected = [expected_outcome(items[0], {"A", "B"}), expected_outcome(items[1], {"C"})]
        assert [r.outcome for r in rows] == expected
        review = summary.inner_text()
        for position, item in enumerate(items, start=1):
            line = review_line(review, position, n)
            assert f": {WORDS[expected[position - 1]]}" in line, line
            assert all(piece in line.split("Correct answer:")[1] for piece in key_text(item))
