"""Every answer behind an assignment's results (or a run's), item by item, as plain records.

:func:`assignment_answers` lists, per item of the assignment (its id, kind, text and key), the
answer of every respondent that :func:`quizbot.analysis.assignments.assignment_results` counts
as a respondent: each student with answers in sessions on the assignment (on a two-pass
assignment their second-pass guesses too), and per model the run the results use
(:func:`storage.assignments.latest_runs`) with, on a two-pass assignment, its second-pass run.
:func:`run_answers` does the same for one plain run.

A model's answer carries what the runner stored: the prompt sent, the raw text, the parsed
answer, the outcome and why it was classed so. ``why`` is the stored parse reason; when the
response has none it says so (``"not stored: the response has no parse_reason"``), and for an
``error`` outcome without a reason it gives the stored error text.

A student's answer carries the text given, the parsed answer, the outcome, when it was given,
the session, the time taken and whether feedback on that fact had been shown before it:

* ``time_taken_ms`` is the stored ``latency_ms`` of the response: the time from the server
  putting the question out (:attr:`quizbot.practice.views.Question.shown_at`) to the answer
  arriving. Answers stored without one (before times were recorded, or through a caller that
  did not hand the question's ``shown_at`` back) have null (``time_taken_note`` says so); it is
  never guessed from the gaps between answers.
* ``answer_pass`` is 1 or 2 on a two-pass assignment (pass 2: a forced guess on an item
  abstained on in pass 1), null otherwise; models' answers carry it too.
* ``feedback_shown_before`` follows the feedback policy of the sessions. In an exam-mode session
  (the session's ``config["mode"]`` is ``"exam"``, or the assignment's mode is exam) nothing is
  shown until every question is answered, so it is always false. In a practice-mode session
  every answer is followed at once by its outcome, key and explanation, so it is true exactly
  when the same student had, earlier (by storage time, then response id), answered in a
  practice-mode session on this assignment an item about the same fact: for a statement the
  fact is its ``fact_id`` (a negative shares its positive's fact, since the feedback names the
  true tail), for a multiple-choice question each of its ``knowledge_point_ids``. Practice
  outside the assignment is not considered, and an answer that was an ``error`` (the question
  never reached the student) shows nothing.

Items come in the assignment's order; answers within an item list students by name, then models
by name. Records are frozen; ``as_json`` gives strict JSON-ready dicts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quizbot.domain import AssignmentMode, Outcome, ResponseRecord, Run
from quizbot.errors import NotFoundError
from quizbot.generate.service import load_any_items
from quizbot.items import AnyItem, RecallItem, StatementItem
from storage import Database
from storage.assignments import (
    SessionAnswer,
    assignment_sessions,
    get_assignment,
    latest_runs,
    second_pass_runs,
)
from storage.assignments import assignment_answers as stored_session_answers
from storage.repo import get_run, list_responses

__all__ = [
    "AnswerSet",
    "ItemAnswers",
    "ModelAnswer",
    "StudentAnswer",
    "assignment_answers",
    "item_key",
    "run_answers",
]

NO_REASON = "not stored: the response has no parse_reason"
NO_TIME = "not stored: this answer was recorded without the time the question was shown"


@dataclass(frozen=True)
class ModelAnswer:
    """A model's answer to one item, as the runner stored it."""

    respondent: str  # the model as requested
    run_id: int
    prompt: str | None
    raw_text: str | None
    parsed_answer: str | None
    outcome: str
    parse_reason: str | None
    why: str  # the parse reason, or which field is missing
    error_text: str | None
    answer_pass: int | None = None  # 1 or 2 on a two-pass assignment

    kind = "model"

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict, ``kind`` included."""
        return {
            "respondent": self.respondent,
            "kind": self.kind,
            "run_id": self.run_id,
            "prompt": self.prompt,
            "raw_text": self.raw_text,
            "parsed_answer": self.parsed_answer,
            "outcome": self.outcome,
            "parse_reason": self.parse_reason,
            "why": self.why,
            "error_text": self.error_text,
            "answer_pass": self.answer_pass,
        }


@dataclass(frozen=True)
class StudentAnswer:
    """A student's answer to one item in a session on the assignment."""

    respondent: str  # the student's pseudonym
    session_id: int
    answer: str | None  # the text given
    parsed_answer: str | None
    outcome: str
    answered_at: str  # ISO 8601
    time_taken_ms: float | None
    time_taken_note: str | None  # why the time is null
    feedback_shown_before: bool
    answer_pass: int | None = None  # 1 or 2 on a two-pass assignment

    kind = "student"

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict, ``kind`` included."""
        return {
            "respondent": self.respondent,
            "kind": self.kind,
            "session_id": self.session_id,
            "answer": self.answer,
            "parsed_answer": self.parsed_answer,
            "outcome": self.outcome,
            "answered_at": self.answered_at,
            "time_taken_ms": self.time_taken_ms,
            "time_taken_note": self.time_taken_note,
            "feedback_shown_before": self.feedback_shown_before,
            "answer_pass": self.answer_pass,
        }


@dataclass(frozen=True)
class ItemAnswers:
    """One item and every respondent's answer to it."""

    id: str
    kind: str  # "statement" or "choice"
    text: str
    key: str  # "true"/"false" for a statement, the correct letters for a choice
    answers: tuple[StudentAnswer | ModelAnswer, ...]

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "id": self.id,
            "kind": self.kind,
            "text": self.text,
            "key": self.key,
            "answers": [a.as_json() for a in self.answers],
        }


@dataclass(frozen=True)
class AnswerSet:
    """The answers of an assignment (``assignment`` set) or of one run (``run_id`` set)."""

    assignment: str | None
    run_id: int | None
    items: tuple[ItemAnswers, ...]

    def as_json(self) -> dict[str, Any]:
        """The ``quizbot answers --json`` object."""
        head: dict[str, Any] = (
            {"assignment": self.assignment} if self.run_id is None else {"run_id": self.run_id}
        )
        return {**head, "items": [i.as_json() for i in self.items]}


def item_key(item: AnyItem) -> str:
    """The answer key as shown: ``true``/``false``, the correct letters joined by commas, or an
    open recall item's gold list joined by ", "."""
    if isinstance(item, StatementItem):
        return "true" if item.label else "false"
    if isinstance(item, RecallItem):
        return ", ".join(item.answers)
    return ",".join(item.answer_keys)


def _facts(item: AnyItem) -> frozenset[str]:
    if isinstance(item, StatementItem):
        return frozenset({item.fact_id})
    return frozenset(item.knowledge_point_ids)


def _why(record: ResponseRecord) -> str:
    if record.parse_reason:
        return record.parse_reason
    if record.outcome == Outcome.ERROR.value and record.error_text:
        return f"error: {record.error_text}"
    return NO_REASON


def _model_answer(run: Run, record: ResponseRecord) -> ModelAnswer:
    assert run.id is not None
    return ModelAnswer(
        respondent=run.model_requested,
        run_id=run.id,
        prompt=record.prompt,
        raw_text=record.raw_text,
        parsed_answer=record.parsed_answer,
        outcome=record.outcome,
        parse_reason=record.parse_reason,
        why=_why(record),
        error_text=record.error_text,
        answer_pass=record.answer_pass,
    )


def _student_answers(
    answers: Sequence[SessionAnswer],
    items: Mapping[str, AnyItem],
    exam_sessions: set[int],
) -> list[tuple[str, StudentAnswer]]:
    """(item id, answer) per stored answer; ``answers`` oldest first (see the module rule)."""
    seen: dict[int, set[str]] = defaultdict(set)  # respondent id -> facts given feedback on
    out: list[tuple[str, StudentAnswer]] = []
    for given in answers:
        r = given.response
        assert r.quiz_session_id is not None
        item = items.get(r.item_id)
        facts = _facts(item) if item is not None else frozenset()
        exam = r.quiz_session_id in exam_sessions
        shown = not exam and bool(facts & seen[r.respondent_id])
        if not exam and r.outcome != Outcome.ERROR.value:
            seen[r.respondent_id] |= facts
        out.append(
            (
                r.item_id,
                StudentAnswer(
                    respondent=given.respondent,
                    session_id=r.quiz_session_id,
                    answer=r.raw_text,
                    parsed_answer=r.parsed_answer,
                    outcome=r.outcome,
                    answered_at=r.created_at.isoformat(),
                    time_taken_ms=r.latency_ms,
                    time_taken_note=None if r.latency_ms is not None else NO_TIME,
                    feedback_shown_before=shown,
                    answer_pass=r.answer_pass,
                ),
            )
        )
    return out


def _gather(
    items: Sequence[AnyItem],
    answers: Iterable[tuple[str, StudentAnswer | ModelAnswer]],
    only: str | None,
) -> tuple[ItemAnswers, ...]:
    by_item: dict[str, list[StudentAnswer | ModelAnswer]] = defaultdict(list)
    for item_id, answer in answers:
        by_item[item_id].append(answer)
    out = []
    for item in items:
        if only is not None and item.id != only:
            continue
        listed = sorted(
            by_item[item.id],
            key=lambda a: (a.kind != "student", a.respondent, a.answer_pass or 0),
        )
        out.append(ItemAnswers(item.id, item.kind, item.text, item_key(item), tuple(listed)))
    return tuple(out)


def _check_item(item_ids: Sequence[str], item_id: str | None, where: str) -> None:
    if item_id is not None and item_id not in item_ids:
        raise NotFoundError(
            f"item {item_id!r} is not in {where}",
            hint="`quizbot assignment show NAME` lists an assignment's item ids",
        )


def assignment_answers(db: Database, name: str, *, item_id: str | None = None) -> AnswerSet:
    """Every respondent's answer to every item of assignment ``name`` (or only ``item_id``).

    Respondents are those the assignment's results count (module docstring).
    :class:`~quizbot.errors.NotFoundError` for an unknown assignment or an item not in it.
    """
    assignment = get_assignment(db, name)
    item_ids = list(assignment.item_ids)
    _check_item(item_ids, item_id, f"assignment {name!r}")
    items = load_any_items(db, item_ids)
    by_id = {i.id: i for i in items}
    exam_assignment = assignment.mode == AssignmentMode.EXAM.value
    exam_sessions = {
        s.id
        for s in assignment_sessions(db, assignment.id)
        if exam_assignment or s.config.get("mode") == AssignmentMode.EXAM.value
    }
    answers: list[tuple[str, StudentAnswer | ModelAnswer]] = list(
        _student_answers(stored_session_answers(db, assignment.id), by_id, exam_sessions)
    )
    seconds = second_pass_runs(db, assignment.id)
    for run in latest_runs(db, assignment.id):
        assert run.id is not None
        for made in (run, seconds.get(run.id)):  # a two-pass assignment: the guesses too
            if made is None:
                continue
            assert made.id is not None
            stored = list_responses(db, run_id=made.id)
            answers.extend((r.item_id, _model_answer(made, r)) for r in stored)
    return AnswerSet(assignment.name, None, _gather(items, answers, item_id))


def run_answers(db: Database, run_id: int, *, item_id: str | None = None) -> AnswerSet:
    """The answers of one run, item by item in the order they were stored.

    :class:`~quizbot.errors.NotFoundError` for an unknown run or an item the run did not answer.
    """
    run = get_run(db, run_id)
    records = list_responses(db, run_id=run_id)
    item_ids = list(dict.fromkeys(r.item_id for r in records))
    _check_item(item_ids, item_id, f"run {run_id}")
    items = load_any_items(db, item_ids)
    answers = [(r.item_id, _model_answer(run, r)) for r in records]
    return AnswerSet(None, run_id, _gather(items, answers, item_id))
