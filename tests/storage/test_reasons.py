"""Reason reviews (storage/reasons.py) and repeat groups (storage/repo.py) on both backends."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from quizbot.domain import Outcome
from quizbot.errors import InputError, NotFoundError
from storage import Database
from storage.reasons import mark_reason, run_reason_reviews
from storage.repo import create_run, get_run, record_responses, repeat_group
from tests.helpers.factories import answer, make_run


def test_a_mark_is_stored_replaced_and_read_back_by_run(db: Database) -> None:
    fx = make_run(db, 3)
    ids = record_responses(db, [answer(fx, i, Outcome.CORRECT) for i in fx.item_ids])
    first = mark_reason(db, response_id=ids[0], sound=True, reviewer="  dr\nwho ")
    assert (first.response_id, first.sound, first.reviewer) == (ids[0], True, "dr who")
    mark_reason(db, response_id=ids[1], sound=False, reviewer="ann")
    again = mark_reason(db, response_id=ids[0], sound=False, reviewer="bob")  # replaces it
    assert again.id == first.id and again.reviewed_at >= first.reviewed_at
    marks = run_reason_reviews(db, fx.run_id)
    assert {k: (m.sound, m.reviewer) for k, m in marks.items()} == {
        ids[0]: (False, "bob"),
        ids[1]: (False, "ann"),
    }
    other = make_run(db, 1, kb_name="other-kb")
    assert run_reason_reviews(db, other.run_id) == {}
    count = db.read(lambda s: s.execute(text("SELECT count(*) FROM reason_reviews")).scalar())
    assert count == 2  # one row per answer


def test_bad_marks_are_refused_and_nothing_is_written(db: Database) -> None:
    fx = make_run(db, 1)
    (rid,) = record_responses(db, [answer(fx, fx.item_ids[0])])
    with pytest.raises(NotFoundError, match="no answer with id 999"):
        mark_reason(db, response_id=999, sound=True, reviewer="ann")
    with pytest.raises(InputError, match="reviewer"):
        mark_reason(db, response_id=rid, sound=True, reviewer="   ")
    with pytest.raises(InputError, match="NUL"):
        mark_reason(db, response_id=rid, sound=True, reviewer="a\x00b")
    with pytest.raises(InputError, match="longer than 200"):
        mark_reason(db, response_id=rid, sound=True, reviewer="x" * 201)
    assert run_reason_reviews(db, fx.run_id) == {}


def test_marks_go_with_their_run(db: Database) -> None:
    fx = make_run(db, 2)
    ids = record_responses(db, [answer(fx, i) for i in fx.item_ids])
    mark_reason(db, response_id=ids[0], sound=True, reviewer="ann")
    db.write(lambda s: s.execute(text("DELETE FROM response WHERE id = :i"), {"i": ids[0]}))
    assert run_reason_reviews(db, fx.run_id) == {}  # cascaded with the answer


def test_a_repeat_group_is_its_first_run_and_the_runs_pointing_at_it(db: Database) -> None:
    fx = make_run(db, 1)
    repeats = [
        create_run(db, respondent_id=fx.respondent_id, model_requested="test/model",
                   repeat_of=fx.run_id).id
        for _ in range(2)
    ]  # fmt: skip
    lone = create_run(db, respondent_id=fx.respondent_id, model_requested="test/model").id
    expected = [fx.run_id, *repeats]
    for member in expected:
        assert [r.id for r in repeat_group(db, member)] == expected
    assert [r.id for r in repeat_group(db, lone)] == [lone]
    assert get_run(db, repeats[0]).repeat_of == fx.run_id
    with pytest.raises(NotFoundError):
        repeat_group(db, 12345)
