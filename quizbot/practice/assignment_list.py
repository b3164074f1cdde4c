"""A student's own assignments: the ones they may start now or soon, with how far they got.

In accounts mode the Practice tab lists these instead of asking the student to type an
assignment's exact name (issue 29). :func:`student_assignments` applies the very rules a start
applies (:func:`quizbot.practice.seats.check_seat`), so the list never names an assignment the
student could not start: another cohort's assignment is left out (its existence stays unknown to
them), as is an exam they may not sit. Only assignments still open or not yet open are listed
(one whose window has closed is over for the student).

A status is read from the student's own sessions on the assignment, never from their answers'
outcomes, so the list reveals nothing of an exam: *not started* (no session, or only sessions
they ended early, which :func:`start_assignment_session` lets them start again), *in progress*
(a session still active, or a two-pass exam whose second pass is still to do) and *finished*.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from quizbot.domain import Assignment, RespondentKind, SessionStatus
from quizbot.errors import InputError, NotFoundError
from quizbot.practice.seats import Sitter, check_seat
from quizbot.practice.topics import normalise_student
from quizbot.practice.windows import window_text
from storage import Database
from storage.assignments import list_assignments
from storage.practice_queries import AssignmentSessionState, assignment_session_states
from storage.sessions import find_respondent

__all__ = ["AssignmentStatus", "StudentAssignment", "student_assignments"]

AssignmentStatus = Literal["not started", "in progress", "finished"]


@dataclass(frozen=True)
class StudentAssignment:
    """One assignment as its student sees it in their list."""

    name: str
    kb: str
    kind: str  # "statements", "choice", "mixed" or "recall" (recall: Start recall takes it)
    mode: str  # "exam" or "practice"
    n_items: int
    status: AssignmentStatus
    open_now: bool  # False: it opens later
    opens_at: datetime | None
    closes_at: datetime | None
    window: str  # the window in words (:func:`quizbot.practice.windows.window_text`)

    def as_json(self) -> dict[str, Any]:
        """Plain JSON types (datetimes as ISO 8601)."""
        return {
            "name": self.name,
            "kb": self.kb,
            "kind": self.kind,
            "mode": self.mode,
            "n_items": self.n_items,
            "status": self.status,
            "open_now": self.open_now,
            "opens_at": self.opens_at.isoformat() if self.opens_at else None,
            "closes_at": self.closes_at.isoformat() if self.closes_at else None,
            "window": self.window,
        }


def _status(name: str, states: Sequence[AssignmentSessionState]) -> AssignmentStatus:
    """The student's status on assignment ``name`` from their assignment sessions."""
    mine = [
        s
        for s in states
        if s.config.get("assignment") == name and s.status != SessionStatus.ABANDONED.value
    ]
    firsts = [s for s in mine if s.config.get("pass", 1) != 2]
    if not firsts:
        return "not started"
    first = firsts[-1]  # the newest: an older one was ended early
    if first.status == SessionStatus.ACTIVE.value:
        return "in progress"
    if first.config.get("two_pass") and first.abstained:
        second_done = any(
            s.config.get("first_session") == first.id and s.status == SessionStatus.FINISHED.value
            for s in mine
        )
        if not second_done:
            return "in progress"  # the second pass is still to do
    return "finished"


def _sittable(found: Assignment, sitter: Sitter | None, cohort: str | None) -> bool:
    """Whether the student may start ``found`` (the rules of a start, without starting)."""
    mine = sitter.cohort if sitter is not None else cohort
    if found.cohort and not mine:
        # Another cohort's assignment is not listed to a student of no cohort either (a start
        # by its name stays allowed for practice: :mod:`quizbot.practice.seats`).
        return False
    try:
        check_seat(found, sitter, cohort)
    except (NotFoundError, InputError):
        return False
    return True


def student_assignments(
    db: Database,
    student: str,
    *,
    sitter: Sitter | None = None,
    cohort: str | None = None,
    now: datetime | None = None,
) -> list[StudentAssignment]:
    """The assignments ``student`` may start, open now or opening later, with their status.

    ``sitter`` is who the server knows is asking (accounts mode, with the account's cohort);
    without one ``cohort`` is the student's cohort. Only the student's cohort's assignments and
    those of no cohort are listed, and an exam only when they may sit it. Ordered: open ones
    first (closing soonest first, then by name), then those opening later (soonest first).
    ``now`` defaults to the clock the window check takes. Raises :class:`InputError` for an
    unusable pseudonym.
    """
    key = normalise_student(student)
    at = now or datetime.now(UTC)
    respondent = find_respondent(db, RespondentKind.HUMAN, key)
    states = (
        assignment_session_states(db, respondent.id)
        if respondent is not None and respondent.id is not None
        else []
    )
    listed: list[StudentAssignment] = []
    for found in list_assignments(db):
        if found.closes_at is not None and at >= found.closes_at:
            continue
        if not _sittable(found, sitter, cohort):
            continue
        listed.append(
            StudentAssignment(
                name=found.name,
                kb=found.kb_name,
                kind=str(found.config.get("format", "statements")),
                mode=found.mode,
                n_items=len(found.item_ids),
                status=_status(found.name, states),
                open_now=found.opens_at is None or at >= found.opens_at,
                opens_at=found.opens_at,
                closes_at=found.closes_at,
                window=window_text(found),
            )
        )
    far = datetime.max.replace(tzinfo=UTC)
    listed.sort(
        key=lambda a: (
            not a.open_now,
            (a.closes_at or far) if a.open_now else (a.opens_at or far),
            a.name.casefold(),
        )
    )
    return listed
