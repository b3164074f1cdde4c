"""An exam is open only to its cohort (issue 25, N2).

An account made without ``--cohort``, and every proxy-mode user without an account, could start
any cohort's exam (and finish it with three "I don't know"s, reading every key at the end).
"""

from __future__ import annotations

import pytest

from quizbot.domain import AssignmentMode
from quizbot.errors import InputError, NotFoundError
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.recall import start_recall_assignment
from quizbot.practice.seats import Sitter
from storage import Database
from storage.assignments import get_assignment

# --------------------------------------------------------------------------------------------
# N2: who may sit an exam


def _make(
    db: Database, name: str, mode: AssignmentMode, cohort: str | None, **more: object
) -> None:
    request = AssignmentRequest(
        name=name,
        kb="clinical-core",
        points=3,
        mode=mode,
        cohort=cohort,
        **more,  # type: ignore[arg-type]
    )
    make_assignment(db, request)


def test_an_exam_of_a_cohort_is_refused_to_an_account_of_no_cohort(db: Database) -> None:
    _make(db, "y1-exam", AssignmentMode.EXAM, "year-1")
    with pytest.raises(InputError, match=r"exam for one cohort.*no cohort") as refused:
        start_assignment_session(db, assignment="y1-exam", student="nocohort", sitter=Sitter(None))
    assert "year-1" not in str(refused.value)  # the refusal names no cohort
    with pytest.raises(NotFoundError, match="no assignment"):  # another cohort's: unknown
        start_assignment_session(db, assignment="y1-exam", student="zoe", sitter=Sitter("year-2"))
    mine = start_assignment_session(
        db, assignment="y1-exam", student="amy", sitter=Sitter(" year-1 ")
    )
    assert mine.total == len(get_assignment(db, "y1-exam").item_ids)


def test_a_name_from_the_login_proxy_without_an_account_sits_no_exam(db: Database) -> None:
    _make(db, "y1-exam", AssignmentMode.EXAM, "year-1")
    _make(db, "open-exam", AssignmentMode.EXAM, None)
    stranger = Sitter(None, account=False)
    for name in ("y1-exam", "open-exam"):
        with pytest.raises(InputError, match="open only to students with an account"):
            start_assignment_session(db, assignment=name, student="proxied", sitter=stranger)
    # an account of no cohort may sit an exam of no cohort
    assert start_assignment_session(
        db, assignment="open-exam", student="nocohort", sitter=Sitter(None)
    ).total


def test_practice_assignments_and_local_mode_are_unchanged(db: Database) -> None:
    _make(db, "y1-practice", AssignmentMode.PRACTICE, "year-1")
    _make(db, "y1-exam", AssignmentMode.EXAM, "year-1")
    # a practice assignment's feedback reveals its answers anyway: open to an account of none
    assert start_assignment_session(
        db, assignment="y1-practice", student="nocohort", sitter=Sitter(None)
    ).total
    # local mode and the command line know no account: the typed cohort is only a label
    assert start_assignment_session(db, assignment="y1-exam", student="local").total


def test_a_recall_exam_follows_the_same_rule(db: Database) -> None:
    _make(db, "y1-recall", AssignmentMode.EXAM, "year-1", format="recall")
    with pytest.raises(InputError, match="no cohort"):
        start_recall_assignment(db, assignment="y1-recall", student="n", sitter=Sitter(None))
    with pytest.raises(InputError, match="with an account"):
        start_recall_assignment(
            db, assignment="y1-recall", student="p", sitter=Sitter(None, account=False)
        )
    assert start_recall_assignment(
        db, assignment="y1-recall", student="amy", sitter=Sitter("year-1")
    ).total
