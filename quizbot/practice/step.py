"""One practice answer as one unit of work: the answer stored and scored, and what follows it.

The chat used to store an answer and then, in separate calls, read the next question, the
session's state and (on a two-pass assignment) the second pass: about a dozen transactions per
answer, each with its own commit. :func:`answer_and_next` does all of it in one transaction
(:meth:`storage.Database.unit`): one commit (on SQLite one fsync), and a screen built from one
consistent state of the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from quizbot.errors import InputError
from quizbot.practice import review_queue
from quizbot.practice.assignments import second_pass_session
from quizbot.practice.facts import _view
from quizbot.practice.feedback import answer_loaded, first_unanswered
from quizbot.practice.topics import normalise_student
from quizbot.practice.views import Feedback, Question, SessionView
from storage import Database
from storage.sessions import LoadedSession, load_session

__all__ = ["AnswerStep", "answer_and_next"]


@dataclass(frozen=True)
class AnswerStep:
    """What an answer leads to, as of the moment it was stored.

    ``view`` is the session after the answer; ``question`` its next unanswered question
    (``None`` once it is finished). When a finished first pass of a two-pass assignment
    leads to a second pass, ``second`` is that session and ``second_question`` its first
    question. ``due``: how many facts are due for review now for the student and knowledge
    base asked for (``due_for``), counted after this answer's review; ``None`` when not asked
    for, or asked for another student.
    """

    feedback: Feedback
    view: SessionView
    question: Question | None
    second: SessionView | None = None
    second_question: Question | None = None
    due: int | None = None

    def as_json(self) -> dict[str, Any]:
        """Plain JSON types."""
        return {
            "feedback": self.feedback.as_json(),
            "session": self.view.as_json(),
            "question": None if self.question is None else self.question.as_json(),
            "second": None if self.second is None else self.second.as_json(),
            "second_question": (
                None if self.second_question is None else self.second_question.as_json()
            ),
        }


def answer_and_next(
    db: Database,
    session_id: int,
    item_id: str,
    text: str,
    *,
    shown_at: datetime | None = None,
    due_for: tuple[str, str] | None = None,
) -> AnswerStep:
    """Store and score an answer (:func:`quizbot.practice.feedback.answer`, same refusals) and
    return the feedback with the next question, in one transaction.

    Either everything happens or nothing does: a refused answer (unreadable, a duplicate, a
    closed window) writes nothing; a failure after the answer was stored rolls it back too, so
    the student is never told "stored" for an answer that is not, nor the reverse.

    ``due_for`` (student, knowledge base): the Practice tab's "Due for review" panel, counted
    in the same transaction once the answer is reviewed (one query: the answer hook has just
    brought the student's cards up to date, and the session names the student), so the tab
    needs no second request to show it (:attr:`AnswerStep.due`). Answers of an exam still
    sealed are not counted, as everywhere (:mod:`quizbot.practice.sealed`).
    """

    def _step() -> AnswerStep:
        feedback, loaded = answer_loaded(db, session_id, item_id, text, shown_at=shown_at)
        question = first_unanswered(db, loaded)
        second = second_question = None
        if question is None:
            second = second_pass_session(db, session_id)
            if second is not None:
                second_question = first_unanswered(db, load_session(db, second.id))
        due = None if due_for is None else _due(db, loaded, *due_for)
        return AnswerStep(feedback, _view(loaded), question, second, second_question, due)

    return db.unit(_step)


def _due(db: Database, loaded: LoadedSession, student: str, kb: str) -> int | None:
    """The due count of ``student`` on ``kb`` when the session is theirs, else ``None``."""
    respondent = loaded.respondent
    try:
        theirs = normalise_student(student) == respondent.name
    except InputError:  # an unusable name: not this session's student
        return None
    if not theirs or respondent.id is None:
        return None
    return review_queue.count_due_synced(db, respondent.id, kb)
