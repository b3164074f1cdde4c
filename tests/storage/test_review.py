"""Flags, KB overrides and retired items on both backends (storage/review.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from quizbot import domain
from quizbot.domain import MAX_FLAG_COMMENT, FlagDecision, FlagState, OverrideKind, RespondentKind
from quizbot.errors import InputError, NotFoundError
from storage import Database
from storage.repo import get_or_create_respondent, table_counts
from storage.review import (
    NewOverride,
    add_overrides,
    create_flag,
    decide_item,
    get_flag,
    list_flags,
    list_overrides,
    list_retired,
    retired_item_ids,
)
from storage.sessions import create_session
from tests.helpers.factories import make_run


def _override(tail: str, kind: OverrideKind = OverrideKind.TRUE_NOT_NEGATIVE) -> NewOverride:
    return NewOverride("test-kb", "gout", "has_symptom", tail, kind, source="cli", created_by="me")


def test_a_flag_is_stored_open_with_its_session_and_comment(db: Database) -> None:
    fx = make_run(db, 2)
    student = get_or_create_respondent(db, RespondentKind.HUMAN, "ada")
    session = create_session(db, respondent_id=student.id, kb_name="test-kb", config={})
    flag = create_flag(
        db,
        item_id=fx.item_ids[0],
        reason="wrong_key",
        comment="  the key says true ",
        quiz_session_id=session.id,
    )
    assert type(flag) is domain.ItemFlag
    assert (flag.item_id, flag.quiz_session_id, flag.reason, flag.comment, flag.state) == (
        fx.item_ids[0],
        session.id,
        "wrong_key",
        "the key says true",
        "open",
    )
    assert flag.decision is None and flag.decided_at is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        flag.state = "resolved"  # type: ignore[misc]
    assert get_flag(db, flag.id) == flag
    assert list_flags(db, state=FlagState.OPEN) == [flag]
    assert list_flags(db, state=FlagState.RESOLVED) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"reason": "boring"}, "unknown reason"),
        ({"comment": "x" * (MAX_FLAG_COMMENT + 1)}, "longer than"),
        ({"comment": "bad\x00byte"}, "NUL byte"),
    ],
)
def test_a_bad_flag_is_refused_clearly_and_nothing_is_stored(
    db: Database, kwargs: dict[str, str], message: str
) -> None:
    fx = make_run(db, 1)
    values = {"reason": "other", "comment": "", **kwargs}
    with pytest.raises(InputError, match=message) as info:
        create_flag(db, item_id=fx.item_ids[0], reason=values["reason"], comment=values["comment"])
    assert info.value.field in {"reason", "comment"}
    assert list_flags(db) == []


def test_a_flag_on_an_unknown_item_or_session_is_not_found(db: Database) -> None:
    fx = make_run(db, 1)
    with pytest.raises(NotFoundError):
        create_flag(db, item_id="i1:nope", reason="other")
    with pytest.raises(NotFoundError):
        create_flag(db, item_id=fx.item_ids[0], reason="other", quiz_session_id=999)
    with pytest.raises(NotFoundError):
        get_flag(db, 12345)


def test_a_decision_stores_overrides_retires_and_closes_every_open_flag_on_the_item(
    db: Database,
) -> None:
    fx = make_run(db, 2)
    first = create_flag(db, item_id=fx.item_ids[0], reason="wrong_key", comment="a")
    second = create_flag(db, item_id=fx.item_ids[0], reason="ambiguous", comment="b")
    other = create_flag(db, item_id=fx.item_ids[1], reason="other")
    decided = decide_item(
        db,
        item_id=fx.item_ids[0],
        decision=FlagDecision.RETIRE,
        decided_by="dr who",
        overrides=[_override("fever")],
        retire_reason="wrong key",
        flag_id=first.id,
    )
    assert decided.retired and decided.new_overrides == 1
    assert [f.id for f in decided.flags] == [first.id, second.id]
    for flag in decided.flags:
        assert (flag.state, flag.decision, flag.decided_by) == ("resolved", "retire", "dr who")
        assert flag.decided_at is not None
    assert get_flag(db, other.id).state == "open"
    (retired,) = list_retired(db)
    assert (retired.item_id, retired.flag_id, retired.reason) == (
        fx.item_ids[0],
        first.id,
        "wrong key",
    )
    assert retired_item_ids(db) == {fx.item_ids[0]}
    assert retired_item_ids(db, [fx.item_ids[1]]) == set()
    # Deciding again changes nothing stored twice: the item stays retired once.
    again = decide_item(
        db,
        item_id=fx.item_ids[0],
        decision="retire",
        decided_by="x",
        overrides=[_override("fever")],
        retire_reason="again",
    )
    assert (again.flags, again.new_overrides, again.retired) == ((), 0, False)
    assert len(list_retired(db)) == 1 and len(list_overrides(db)) == 1


def test_dismissing_marks_flags_dismissed_and_stores_nothing_else(db: Database) -> None:
    fx = make_run(db, 1)
    flag = create_flag(db, item_id=fx.item_ids[0], reason="other")
    decided = decide_item(db, item_id=fx.item_ids[0], decision="dismiss", decided_by="rev")
    assert [(f.id, f.state, f.decision) for f in decided.flags] == [
        (flag.id, "dismissed", "dismiss")
    ]
    assert list_overrides(db) == [] and list_retired(db) == []
    with pytest.raises(InputError):
        decide_item(db, item_id=fx.item_ids[0], decision="dismiss", decided_by=" ")


def test_overrides_are_idempotent_per_kb_triplet_and_kind(db: Database) -> None:
    assert add_overrides(db, [_override("fever"), _override("rash")]) == 2
    assert add_overrides(db, [_override("fever"), _override("rash")]) == 0
    assert add_overrides(db, [_override("fever", OverrideKind.FALSE_REMOVE)]) == 1
    stored = list_overrides(db, "test-kb")
    assert [(o.tail, o.kind, o.source, o.created_by) for o in stored] == [
        ("fever", "true_not_negative", "cli", "me"),
        ("rash", "true_not_negative", "cli", "me"),
        ("fever", "false_remove", "cli", "me"),
    ]
    assert all(type(o) is domain.KbOverride for o in stored)
    assert list_overrides(db, "other-kb") == []


def test_a_bad_override_stores_none_of_the_batch(db: Database) -> None:
    with pytest.raises(InputError, match="NUL"):
        add_overrides(db, [_override("fever"), _override("ra\x00sh")])
    assert list_overrides(db) == []


def _execute(statement: str) -> Callable[[Session], object]:
    """A write that runs one SQL statement (binds it now, not when the loop has moved on)."""
    return lambda s: s.execute(text(statement))


def test_the_database_refuses_a_duplicate_override_and_an_unknown_kind(db: Database) -> None:
    add_overrides(db, [_override("fever")])
    insert = (
        "INSERT INTO kb_overrides (kb_name, head, relation, tail, kind, note, source, created_by,"
        " created_at) VALUES ('test-kb', 'gout', 'has_symptom', 'fever', '{kind}', '', 'cli', '',"
        " CURRENT_TIMESTAMP)"
    )
    for kind in ("true_not_negative", "maybe"):
        with pytest.raises(IntegrityError):
            db.write(_execute(insert.format(kind=kind)))
    assert table_counts(db)["kb_overrides"] == 1
