"""Flagging a practice question, and retired items never asked again (both backends)."""

from __future__ import annotations

import pytest

from quizbot.errors import DuplicateError, InputError
from quizbot.practice.service import answer, flag, next_question, start_session
from storage import Database
from storage.review import decide_item, list_flags
from storage.sessions import load_session


def _items(db: Database, session_id: int) -> list[str]:
    return [e["id"] for e in load_session(db, session_id).session.config["items"]]


def test_only_an_answered_question_can_be_flagged_and_once(db: Database) -> None:
    view = start_session(db, student="ada", length=3, seed="s")
    first = next_question(db, view.id)
    assert first is not None
    with pytest.raises(InputError, match="not been answered"):
        flag(db, view.id, first.id, "wrong_key")
    assert list_flags(db) == []
    feedback = answer(db, view.id, first.id, "true")
    stored = flag(db, view.id, feedback.question_id, "wrong_key", "the key looks wrong")
    assert stored.item_id == _items(db, view.id)[0]
    assert (stored.quiz_session_id, stored.reason, stored.comment) == (
        view.id,
        "wrong_key",
        "the key looks wrong",
    )
    with pytest.raises(DuplicateError):
        flag(db, view.id, feedback.question_id, "other")
    second = next_question(db, view.id)
    assert second is not None
    with pytest.raises(InputError, match="not been answered"):
        flag(db, view.id, second.id, "other")
    assert len(list_flags(db)) == 1


@pytest.mark.parametrize("fmt", ["statement", "choice"])
def test_a_retired_item_is_never_planned_again(db: Database, fmt: str) -> None:
    def plan() -> list[str]:
        view = start_session(db, student="bo", length=6, seed="same", format=fmt)  # type: ignore[arg-type]
        return _items(db, view.id)

    before = plan()
    assert plan() == before  # the same seed and no answers: the same session
    retired = before[:2]
    for item_id in retired:
        decide_item(db, item_id=item_id, decision="retire", decided_by="t", retire_reason="x")
    after = plan()
    assert not set(after) & set(retired)
    assert len(after) == len(before)  # other items take their place
