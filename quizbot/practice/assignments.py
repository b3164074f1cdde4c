"""Students on an assignment: exactly its items, in an order of their own, exam or practice.

:func:`start_assignment_session` starts a student's session on an assignment (or resumes the one
they have): the assignment's items, every one of them, shuffled per student (seeded by the
assignment and the student, so the order is stable across restarts) with the variants of one
fact spread apart (no two adjacent where the mix of facts allows it). The session is an ordinary
practice session (:mod:`quizbot.practice.feedback` asks and scores) marked with the assignment,
so its answers count for the assignment's results and nowhere else changes.

Modes. ``practice``: feedback after every answer, as in practice. ``exam``: an answer is stored
and acknowledged (outcome ``withheld``) with no key or explanation until the student has answered
everything, like a model's run; the last answer gets its full feedback and :func:`exam_review`
then gives the feedback on every question.

Window. A session can be started, and answered, only while the assignment is open
(:mod:`quizbot.practice.windows`).

Two passes (EBMQA). On a two-pass assignment (always an exam) the student's session is pass 1,
"I don't know" allowed. Once it is complete, the items they abstained on are asked again in a
second session of their own (:func:`second_pass_session`, ``config["pass"] == 2``, ``"forced"``:
"I don't know" is refused, a guess is asked for). Nothing is revealed until both passes are
done: the last pass-1 answer is withheld too when a second pass follows. Every answer stores
its pass (``response.answer_pass``); comparisons with models use pass 1 only, and the results
add the with-guessing figures.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from typing import Protocol as _TypingProtocol

from quizbot.domain import Assignment, RespondentKind, SessionStatus
from quizbot.errors import InputError
from quizbot.generate.assignments import Item, assignment_items, fact_key
from quizbot.generate.protocol import Protocol
from quizbot.items import RecallItem
from quizbot.kb.model import KnowledgeBaseData
from quizbot.kb.registry import get_kb
from quizbot.practice.facts import _entries, _view
from quizbot.practice.feedback import (
    _explain,
    _key_words,
    _question,
    _question_id,
    _words,
    is_exam,
)
from quizbot.practice.review_queue import catch_up
from quizbot.practice.seats import Sitter, check_seat
from quizbot.practice.topics import _cohort, _display_name, _relation_label
from quizbot.practice.views import CONFIG_VERSION, Feedback, SessionView
from quizbot.practice.windows import check_window
from storage import Database
from storage.assignments import assignment_by_id, assignment_sessions
from storage.repo import get_or_create_respondent
from storage.sessions import create_session, load_session

__all__ = ["exam_review", "second_pass_session", "spread_order", "start_assignment_session"]


class _HasId(_TypingProtocol):
    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=_HasId)


def _rank(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode()).digest()


def spread_order(
    items: Sequence[T],
    seed: str,
    key: Callable[[T], str] = fact_key,  # type: ignore[assignment]
) -> list[T]:
    """``items`` in a seeded order where no two neighbours ask about the same fact if avoidable.

    Greedy: at each step take a fact with the most items left other than the fact just taken
    (ties broken by seed), then that fact's next item in its own seeded order. Taking the
    largest remaining fact first is what makes a spread order found whenever one exists.
    """
    groups: dict[str, list[T]] = defaultdict(list)
    for item in sorted(items, key=lambda i: _rank(seed, i.id)):
        groups[key(item)].append(item)
    order: list[T] = []
    last: str | None = None
    while groups:
        choices = [k for k in groups if k != last] or list(groups)
        fact = max(choices, key=lambda k: (len(groups[k]), _rank(seed, "fact", k)))
        order.append(groups[fact].pop(0))
        if not groups[fact]:
            del groups[fact]
        last = fact
    return order


def _format(items: Sequence[Item]) -> str:
    kinds = {i.kind for i in items}
    return "mixed" if len(kinds) > 1 else ("choice" if kinds == {"choice"} else "statement")


def _config(
    assignment: Assignment, kb: KnowledgeBaseData, items: Sequence[Item], seed: str
) -> dict[str, Any]:
    """A practice session's config holding the assignment's items in this student's order."""
    relations = sorted({i.relation for i in items})
    return {
        "version": CONFIG_VERSION,
        "kb_version": kb.version,
        "format": _format(items),
        "length": len(items),
        "topic": None,
        "topic_label": f"Assignment {assignment.name}",
        "seed": seed,
        "review": False,
        "cohort": assignment.cohort,
        "assignment": assignment.name,
        "mode": assignment.mode,
        "two_pass": bool(assignment.config.get("two_pass", False)),
        "pass": 1,
        # What the student is offered (:mod:`quizbot.generate.protocol`), as the models are.
        "protocol": Protocol.of_assignment(assignment.config).as_json(),
        "items": [
            {"id": i.id, "fact": fact_key(i), "relation": i.relation, "system": None} for i in items
        ],
        "labels": {f"relation:{r}": _relation_label(kb, r) for r in relations},
        "relation_labels": {r: _relation_label(kb, r) for r in relations},
        "notes": [],
    }


def start_assignment_session(
    db: Database,
    *,
    assignment: str,
    student: str,
    cohort: str | None = None,
    sitter: Sitter | None = None,
) -> SessionView:
    """Start ``student``'s session on ``assignment``, or resume theirs if they have one.

    A student has one session per assignment: an active one is resumed, a finished one is
    returned as it is (its answers stand); only an abandoned one lets them start again.
    Raises :class:`~quizbot.errors.NotFoundError` for an unknown assignment and
    :class:`InputError` for an unusable pseudonym. ``cohort``, when known for sure, keeps the
    student to their cohort's assignments (and those of no cohort): another cohort's is an
    unknown assignment to them, so its instructor never sees them. ``sitter`` is who the server
    knows is asking (accounts and proxy modes): an exam is then open only to an account of its
    cohort (:func:`quizbot.practice.seats.check_seat`).
    """
    display = _display_name(student)
    found, every = assignment_items(db, assignment)
    check_seat(found, sitter, cohort)
    items = [i for i in every if not isinstance(i, RecallItem)]
    if len(items) < len(every):
        raise InputError(
            f"assignment {found.name!r} asks open recall questions",
            hint="take it in the Recall section below the chat (Start recall)",
        )
    group = _cohort(found.cohort)
    respondent = get_or_create_respondent(
        db, RespondentKind.HUMAN, display.casefold(), display_name=display, cohort=group
    )
    check_window(found, "started")
    # As at a practice start: a returning student's spaced-review cards are built here, not
    # inside their first answer's write transaction.
    catch_up(db, respondent.id)
    for earlier in reversed(assignment_sessions(db, found.id, respondent_id=respondent.id)):
        if earlier.status != SessionStatus.ABANDONED.value and earlier.config.get("pass") != 2:
            if earlier.status == SessionStatus.FINISHED.value:
                second = second_pass_session(db, earlier.id)
                if second is not None:
                    return second
            return _view(load_session(db, earlier.id))
    kb, _ = get_kb(db, found.kb_name)
    seed = f"assignment\x1f{found.name}\x1f{respondent.name}"
    ordered = spread_order(items, seed)
    config = _config(found, kb, ordered, seed)
    row = create_session(
        db, respondent_id=respondent.id, kb_name=kb.name, config=config, assignment_id=found.id
    )
    return _view(load_session(db, row.id))


def _abstained(db: Database, session_id: int) -> list[str]:
    loaded = load_session(db, session_id)
    return [a.item_id for a in loaded.answers if a.parsed_answer == "idk"]


def second_pass_session(db: Database, first_session_id: int) -> SessionView | None:
    """The second pass of a finished first-pass session on a two-pass assignment.

    Returns the student's second-pass session (started now if they have none that is not
    abandoned): the items they answered "I don't know" to in pass 1, in pass 1's order, asked
    again with "I don't know" refused. ``None`` when there is no second pass: not a two-pass
    session, not finished yet, or nothing abstained on. Starting one checks the window.
    """
    first = load_session(db, first_session_id).session
    config = first.config
    if (
        not config.get("two_pass")
        or config.get("pass", 1) != 1
        or first.status != SessionStatus.FINISHED.value
        or first.assignment_id is None
    ):
        return None
    abstained = set(_abstained(db, first_session_id))
    if not abstained:
        return None
    for earlier in reversed(
        assignment_sessions(db, first.assignment_id, respondent_id=first.respondent_id)
    ):
        if (
            earlier.config.get("first_session") == first_session_id
            and earlier.status != SessionStatus.ABANDONED.value
        ):
            return _view(load_session(db, earlier.id))
    assignment = assignment_by_id(db, first.assignment_id)
    check_window(assignment, "answered")
    entries = [e for e in _entries(config) if e["id"] in abstained]
    second = {
        **config,
        "items": entries,
        "length": len(entries),
        "pass": 2,
        "forced": True,
        "first_session": first_session_id,
        "topic_label": f"Assignment {assignment.name}, second pass (your best guess)",
    }
    row = create_session(
        db,
        respondent_id=first.respondent_id,
        kb_name=first.kb_name,
        config=second,
        assignment_id=first.assignment_id,
    )
    return _view(load_session(db, row.id))


def exam_review(db: Database, session_id: int) -> list[Feedback]:
    """The feedback on every question of a session, in order, once all are answered, each
    with the question as it was asked (:attr:`Feedback.question`: its whole text and options).

    For an exam it is the full review at the end; before the student has answered everything
    it raises :class:`InputError` (nothing is revealed). Practice sessions get it too.
    """
    loaded = load_session(db, session_id)
    row = loaded.session
    entries = _entries(row.config)
    answered = loaded.answered
    if is_exam(row.config) and len(answered) < len(entries):
        raise InputError(
            f"the exam has {len(entries) - len(answered)} question(s) left to answer",
            hint="the answers are shown once every question is answered",
        )
    if row.config.get("two_pass") and row.config.get("pass", 1) == 1 and _abstained(db, row.id):
        second = second_pass_session(db, row.id)
        if second is None or second.status != SessionStatus.FINISHED.value:
            raise InputError(
                "the second pass (your best guess on the questions you did not know) is not "
                "done yet",
                hint="the answers are shown once both passes are done",
            )
    from quizbot.generate.service import load_items  # noqa: PLC0415 - keeps the import list short

    items = {i.id: i for i in load_items(db, [e["id"] for e in entries])}
    review: list[Feedback] = []
    for position, entry in enumerate(entries, start=1):
        a = answered.get(entry["id"])
        if a is None:
            continue
        item = items[entry["id"]]
        review.append(
            Feedback(
                session_id=row.id,
                question_id=_question_id(row.id, position),
                position=position,
                total=len(entries),
                outcome=a.outcome,
                your_answer=_words(item, a.parsed_answer),
                correct_answer=_key_words(item),
                explanation=_explain(db, loaded, item),
                answered=len(answered),
                finished=row.status == SessionStatus.FINISHED.value,
                question=_question(loaded, position, item),
            )
        )
    return review
