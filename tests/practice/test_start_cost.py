"""What a session start costs in the database, whatever the student's history (issue 32).

A start reads the student's history, brings their review cards up to date (a returning
student's first start turns their whole history into cards) and records the session. Each of
those must be a fixed number of statements, never one per past session, answer or item, and the
backfill must read only the columns naming an item's facts, never whole items. Counted with a
SQLAlchemy event on the real engine (SQLite file and PostgreSQL), not timed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import delete, event

from quizbot.generate.choice import choice_questions
from quizbot.generate.service import item_from_row, load_items, store_items
from quizbot.generate.service import store_items as planning_store_items
from quizbot.items import ChoiceItem, StatementItem
from quizbot.kb.registry import get_kb
from quizbot.practice import facts, planning, review_queue
from quizbot.practice.facts import _entries
from quizbot.practice.service import answer, start_session
from quizbot.practice.views import SessionView
from storage import Database
from storage.models import ReviewCardRow, ReviewSyncRow
from storage.repo import get_items
from storage.review_cards import get_cards, item_facts, pending_answers
from storage.sessions import load_session

# What a returning student's first start runs today is 29 statements on SQLite (transactions
# included); the bound leaves room for a statement or two more, never one per past answer.
MAX_STATEMENTS_AT_START = 32


@contextmanager
def _statements(db: Database, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The statements run meanwhile, but for storing items a start plans for the first time
    (once per item ever: how many depends on which facts the seed picked, not on history)."""
    seen: list[str] = []
    paused: list[bool] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if not paused:
            seen.append(statement)

    def store_items(*args: Any, **kwargs: Any) -> Any:
        paused.append(True)
        try:
            return planning_store_items(*args, **kwargs)
        finally:
            paused.pop()

    monkeypatch.setattr(facts, "store_items", store_items)
    event.listen(db.engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", count)
        monkeypatch.undo()


def _answer_session(db: Database, student: str, seed: str) -> SessionView:
    view = start_session(db, student=student, length=10, seed=seed)
    items = load_items(db, [e["id"] for e in _entries(load_session(db, view.id).session.config)])
    for position, item in enumerate(items, 1):
        assert isinstance(item, StatementItem)
        right = position % 3 != 0
        answer(db, view.id, f"s{view.id}q{position}", "true" if item.label == right else "false")
    return view


def _forget_cards(db: Database) -> None:
    """As before spaced review existed: every answer stored, no card, no watermark."""

    def _do(session: Any) -> None:
        session.execute(delete(ReviewCardRow))
        session.execute(delete(ReviewSyncRow))

    db.write(_do)


def _first_start(db: Database, student: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with _statements(db, monkeypatch) as seen:
        start_session(db, student=student, length=10, seed="next")
    return seen


def test_a_start_runs_the_same_statements_for_a_short_and_a_long_history(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    _answer_session(db, "short", "a1")
    for k in range(4):
        _answer_session(db, "long", f"b{k}")
    _forget_cards(db)  # both students' first start now backfills their whole history

    short = _first_start(db, "short", monkeypatch)
    long = _first_start(db, "long", monkeypatch)

    assert len(long) == len(short), "a start ran more statements for a longer history"
    assert len(long) <= MAX_STATEMENTS_AT_START
    # The backfill really ran: the long history's 40 answers are cards now.
    rid = load_session(db, start_session(db, student="long", seed="c").id).respondent.id
    assert rid is not None
    assert pending_answers(db, rid).answers == []
    # ...reading only what names each item's facts: no item's text, options or prototype.
    item_reads = [s for s in long if "FROM item" in s and "item.text" in s]
    assert item_reads == []


def test_a_backfill_gives_the_cards_the_answer_hook_gives(db: Database) -> None:
    """The backfill (columns only) and the hook (whole items) build the same cards."""
    view = _answer_session(db, "ana", "s1")
    rid = load_session(db, view.id).respondent.id
    assert rid is not None
    entries = _entries(load_session(db, view.id).session.config)
    facts = [str(e["fact"]) for e in entries]
    by_hook = get_cards(db, rid, facts)
    _forget_cards(db)
    review_queue.catch_up(db, rid)
    by_backfill = get_cards(db, rid, facts)
    assert set(by_backfill) == set(by_hook)
    for fact, card in by_hook.items():
        again = by_backfill[fact]
        assert (again.kb_name, again.relation, again.head, again.tail) == (
            card.kb_name,
            card.relation,
            card.head,
            card.tail,
        )
        assert (again.reviews, again.lapses) == (card.reviews, card.lapses)


def _stored_kinds(db: Database) -> list[StatementItem | ChoiceItem]:
    kb, kb_id = get_kb(db, "clinical-core")
    facts = [t for t in kb.triplets if t.relation == "has_symptom"][:40]
    choice = [q for q in choice_questions(kb, facts, seed="x")][:4]
    assert choice
    frequency = dataclasses.replace(
        choice[0], subtype="frequency", meta={**choice[0].meta, "tail": facts[0].tail}
    )
    view = start_session(db, student="kinds", length=12, seed="k")
    ids = [e["id"] for e in _entries(load_session(db, view.id).session.config)]
    statements = [i for i in load_items(db, ids) if isinstance(i, StatementItem)]
    assert {s.polarity.value for s in statements} == {"positive", "negative"}
    store_items(db, kb, kb_id, [*choice, frequency])
    return [*statements, *choice, frequency]


def test_the_facts_read_from_columns_are_those_of_the_whole_item(db: Database) -> None:
    items = _stored_kinds(db)
    ids = [i.id for i in items]
    rows = {r.id: r for r in item_facts(db, ids)}
    for item, full in zip(items, get_items(db, ids), strict=True):
        rebuilt = item_from_row(full)
        assert review_queue._facts_of_stored(rows[item.id]) == review_queue._facts_of(rebuilt)
    assert any(review_queue._facts_of_stored(rows[i.id]) for i in items if i.kind == "choice")


def test_after_prepare_a_start_plans_no_fact_again(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``quizbot serve`` computes before its first request is all a start needs of the KB."""
    kb, _ = get_kb(db, "clinical-core")
    assert planning.prepare(kb) == len(facts._kb_cache(kb).candidates())

    def refuse(*_args: Any) -> Any:
        raise AssertionError("a fact planned at start after prepare()")

    monkeypatch.setattr(facts, "plan_for", refuse)
    for seed in ("p1", "p2", "p3"):
        view = start_session(db, student="prepared", length=10, seed=seed)
        assert view.total == 10
