"""Exams that are still sealed: nothing of them reaches their student until the last answer.

An exam (an assignment in ``exam`` mode) gives no feedback while it runs
(:func:`quizbot.practice.feedback.answer` withholds it). Everything else a student can read
about their answers must hold the exam back too, or the key leaks through a side door: "My
progress" (per-session accuracy after each true/false answer is the key), "Review my mistakes"
(a review session shows the right answer and the explanation), spaced review (its due facts
and the due count), the choice of facts for the next practice session, and a session's summary.

A session is *sealed* (:func:`sealed_sessions`) while it is an exam session that is not
complete:

* not finished: still active, or abandoned ("End session" before the last answer; the student
  may start the exam afresh, so an abandoned exam is never released);
* pass 1 of a two-pass exam, finished with answers of "I do not know", while its second pass
  (those questions again, a guess asked for) is not finished.

Readers drop the answers of sealed sessions: :func:`quizbot.practice.facts._history`
(practice planning, review mode, the spaced-review questions), :func:`quizbot.practice.reports.
progress` and :func:`~quizbot.practice.reports.summary`, and :func:`quizbot.practice.review_queue.
sync`, which keeps the sessions it skipped in the student's review watermark and reviews their
answers once the exam is complete (at that time: when its feedback is shown).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from quizbot.domain import AssignmentMode, SessionStatus
from storage import Database
from storage.practice_queries import assignment_session_states
from storage.sessions import SessionHistory

__all__ = ["ExamState", "is_sealed", "sealed_in_history", "sealed_of", "sealed_sessions"]


class ExamState(NamedTuple):
    """What the sealing rule needs of one of a student's assignment sessions."""

    id: int
    status: str
    config: Mapping[str, Any]
    abstained: bool  # some answer of the session is "I do not know"


def _exam(config: Mapping[str, Any]) -> bool:
    return config.get("mode") == AssignmentMode.EXAM.value


def sealed_sessions(states: Iterable[ExamState]) -> set[int]:
    """The ids of the sessions among ``states`` that are sealed (see the module docstring).

    ``states`` should hold all of the student's assignment sessions: a first pass is released
    by a finished second pass found among them.
    """
    every = list(states)
    second_done = {
        s.config.get("first_session")
        for s in every
        if s.config.get("pass") == 2 and s.status == SessionStatus.FINISHED.value
    }
    sealed: set[int] = set()
    for s in every:
        if not _exam(s.config):
            continue
        if s.status != SessionStatus.FINISHED.value or (
            s.config.get("two_pass")
            and s.config.get("pass", 1) != 2
            and s.abstained
            and s.id not in second_done
        ):
            sealed.add(s.id)
    return sealed


def sealed_in_history(history: Sequence[SessionHistory]) -> set[int]:
    """:func:`sealed_sessions` of a student's sessions as :func:`storage.sessions.
    respondent_history` returns them (with their answers: no further read)."""
    return sealed_sessions(
        ExamState(
            h.session.id,
            h.session.status,
            h.session.config,
            any(a.parsed_answer == "idk" for a in h.answers),
        )
        for h in history
        if h.session.assignment_id is not None
    )


def sealed_of(db: Database, respondent_id: int) -> set[int]:
    """The student's sealed sessions, read from the database (one query)."""
    return sealed_sessions(
        ExamState(s.id, s.status, s.config, s.abstained)
        for s in assignment_session_states(db, respondent_id)
    )


def is_sealed(db: Database, respondent_id: int, session_id: int) -> bool:
    """Whether the student's session ``session_id`` is sealed."""
    return session_id in sealed_of(db, respondent_id)
