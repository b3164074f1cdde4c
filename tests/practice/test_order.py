"""The order of a session's questions (issue 29): topics interleaved in a per-session order, and
mixed sessions drawing each question's kind at random, never strictly alternating.

Before, every session took its relations in the same (alphabetical) sequence, and "Mixed"
always went true/false, multiple choice, true/false...: both are patterns a student can read.
Real SQLite (and PostgreSQL) databases through the ``db`` fixture.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest

from quizbot.practice.service import (
    answer,
    next_question,
    resumable_session,
    start_session,
)
from storage import Database
from storage.repo import ItemRow, get_items
from storage.sessions import load_session


def _rows(db: Database, session_id: int) -> list[ItemRow]:
    ids = [e["id"] for e in load_session(db, session_id).session.config["items"]]
    return get_items(db, ids)


def _relations(db: Database, session_id: int) -> list[str]:
    return [r.relation for r in _rows(db, session_id)]


def test_sessions_with_other_seeds_take_the_topics_in_other_orders(db: Database) -> None:
    orders = [
        _relations(db, start_session(db, student=f"s{n}", length=12, seed=f"seed{n}").id)
        for n in range(5)
    ]
    # Not merely other facts: another sequence of topics, from the very first question on.
    assert len({tuple(o) for o in orders}) == 5
    assert len({o[0] for o in orders}) > 1, orders
    assert len({tuple(o[:4]) for o in orders}) > 1, orders
    for order in orders:  # a topic never follows itself
        assert all(a != b for a, b in pairwise(order)), order


def test_the_same_seed_and_a_resume_keep_the_order(db: Database) -> None:
    first = start_session(db, student="ana", length=8, seed="same")
    second = start_session(db, student="ben", length=8, seed="same")
    assert _relations(db, first.id) == _relations(db, second.id)

    # What a student sees: the topic of each question, answered straight through...
    straight = []
    while (question := next_question(db, first.id)) is not None:
        straight.append(question.topic)
        answer(db, first.id, question.id, "idk")
    # ...and with a reload (the session offered again) after three answers.
    resumed = []
    for _ in range(3):
        question = next_question(db, second.id)
        assert question is not None
        resumed.append(question.topic)
        answer(db, second.id, question.id, "idk")
    offered = resumable_session(db, "ben")
    assert offered is not None and offered.id == second.id
    while (question := next_question(db, offered.id)) is not None:
        resumed.append(question.topic)
        answer(db, offered.id, question.id, "idk")
    assert resumed == straight and len(straight) == 8


def test_mixed_sessions_draw_each_kind_at_random_in_the_usual_proportions(db: Database) -> None:
    kinds_by_seed = []
    for n in range(3):
        view = start_session(db, student=f"m{n}", format="mixed", length=40, seed=f"mix{n}")
        kinds = [r.kind for r in _rows(db, view.id)]
        assert Counter(kinds) == {"statement": 20, "choice": 20}
        # Not strictly alternating: somewhere two of a kind in a row (both kinds do).
        pairs = {a for a, b in pairwise(kinds) if a == b}
        assert pairs == {"statement", "choice"}, kinds
        kinds_by_seed.append(tuple(kinds))
    assert len(set(kinds_by_seed)) == 3  # each session its own draw
    assert len({k[0] for k in kinds_by_seed} | {k[1] for k in kinds_by_seed}) == 2


@pytest.mark.parametrize(
    ("fmt", "length", "expected"),
    [
        ("statement", 12, {"statement": 12}),
        ("choice", 6, {"choice": 6}),
        ("mixed", 7, {"statement": 4, "choice": 3}),
        ("mixed", 16, {"statement": 8, "choice": 8}),
    ],
)
def test_the_counts_of_each_kind_are_as_before(
    db: Database, fmt: str, length: int, expected: dict[str, int]
) -> None:
    view = start_session(db, student="cam", format=fmt, length=length, seed="counts")  # type: ignore[arg-type]
    assert Counter(r.kind for r in _rows(db, view.id)) == expected
