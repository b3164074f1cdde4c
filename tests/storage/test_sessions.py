"""Practice-session queries on both backends: answers, finishing, history, model answers."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest

from quizbot.domain import Outcome, RespondentKind, SessionStatus
from quizbot.errors import DuplicateError, InputError, NotFoundError
from storage import Database
from storage.repo import (
    NewPoint,
    NewResponse,
    create_knowledge_base,
    create_run,
    get_or_create_respondent,
    record_responses,
    save_items,
    save_knowledge_points,
)
from storage.sessions import (
    RecordedAnswer,
    create_session,
    find_respondent,
    load_session,
    model_answers,
    point_tails,
    record_session_answer,
    respondent_history,
    set_respondent_cohort,
    set_session_status,
)
from tests.helpers.factories import answer, make_items, make_run


def _student(db: Database, name: str = "ada") -> int:
    respondent = get_or_create_respondent(db, RespondentKind.HUMAN, name)
    return respondent.id


def _session(db: Database, student: int, item_ids: list[str], kb: str = "test-kb") -> int:
    row = create_session(db, respondent_id=student, kb_name=kb, config={"item_ids": item_ids})
    return row.id


def _answer(session_id: int, student: int, item_id: str, outcome: Outcome) -> NewResponse:
    return NewResponse(
        item_id=item_id,
        respondent_id=student,
        quiz_session_id=session_id,
        outcome=outcome,
        raw_text="t",
        parsed_answer="true",
        parse_reason="typed 't'",
    )


def _try(db: Database, response: NewResponse) -> RecordedAnswer | DuplicateError:
    try:
        return record_session_answer(db, response, n_items=3)
    except DuplicateError as exc:
        return exc


def test_answers_are_stored_and_the_last_one_finishes_the_session(db: Database) -> None:
    fx = make_run(db, 4)  # the session asks the first three
    student = _student(db)
    sid = _session(db, student, fx.item_ids[:3])
    loaded = load_session(db, sid)
    assert (loaded.session.status, loaded.answers, loaded.respondent.name) == ("active", [], "ada")
    assert loaded.session.config == {"item_ids": fx.item_ids[:3]}

    first = record_session_answer(
        db, _answer(sid, student, fx.item_ids[0], Outcome.CORRECT), n_items=3
    )
    assert (first.n_answered, first.finished) == (1, False)
    second = record_session_answer(
        db, _answer(sid, student, fx.item_ids[1], Outcome.INCORRECT), n_items=3
    )
    assert (second.n_answered, second.finished) == (2, False)
    assert load_session(db, sid).session.finished_at is None
    last = record_session_answer(
        db, _answer(sid, student, fx.item_ids[2], Outcome.ABSTAINED), n_items=3
    )
    assert (last.n_answered, last.finished) == (3, True)

    loaded = load_session(db, sid)
    assert loaded.session.status == "finished"
    assert loaded.session.finished_at is not None
    assert [(a.item_id, a.outcome) for a in loaded.answers] == [
        (fx.item_ids[0], "correct"),
        (fx.item_ids[1], "incorrect"),
        (fx.item_ids[2], "abstained"),
    ]
    assert loaded.answers[0].raw_text == "t"
    assert loaded.answers[0].parse_reason == "typed 't'"
    assert set(loaded.answered) == set(fx.item_ids[:3])
    assert first.response_id < second.response_id < last.response_id

    # Answers racing for the last items: every answer stored once, the session finished once.
    sid2 = _session(db, student, fx.item_ids[:3])
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(
            pool.map(
                lambda item_id: _try(db, _answer(sid2, student, item_id, Outcome.CORRECT)),
                [*fx.item_ids[:3], fx.item_ids[0]],
            )
        )
    recorded = [r for r in results if not isinstance(r, DuplicateError)]
    assert len(recorded) == 3 and len(results) - len(recorded) == 1
    assert sum(r.finished for r in recorded if not isinstance(r, Exception)) == 1
    assert sorted(r.n_answered for r in recorded if not isinstance(r, Exception)) == [1, 2, 3]
    assert load_session(db, sid2).session.status == "finished"
    assert len(load_session(db, sid2).answers) == 3

    # A finished session takes no more answers.
    with pytest.raises(InputError, match="finished"):
        record_session_answer(db, _answer(sid, student, fx.item_ids[3], Outcome.CORRECT), n_items=3)
    with pytest.raises(DuplicateError):  # an answered item: the first answer stands
        record_session_answer(db, _answer(sid, student, fx.item_ids[0], Outcome.CORRECT), n_items=3)
    assert len(load_session(db, sid).answers) == 3


def test_refused_answers_change_nothing_and_status_changes(db: Database) -> None:
    fx = make_run(db, 2)
    student = _student(db)
    other = _student(db, "bob")
    sid = _session(db, student, fx.item_ids)
    record_session_answer(db, _answer(sid, student, fx.item_ids[0], Outcome.CORRECT), n_items=2)

    with pytest.raises(DuplicateError, match="already answered"):
        record_session_answer(
            db, _answer(sid, student, fx.item_ids[0], Outcome.INCORRECT), n_items=2
        )
    with pytest.raises(InputError, match="another student"):
        record_session_answer(db, _answer(sid, other, fx.item_ids[1], Outcome.CORRECT), n_items=2)
    with pytest.raises(NotFoundError, match="no practice session"):
        record_session_answer(
            db, _answer(sid + 100, student, fx.item_ids[1], Outcome.CORRECT), n_items=2
        )
    with pytest.raises(NotFoundError):  # an item that does not exist: foreign key
        record_session_answer(db, _answer(sid, student, "i1:nope", Outcome.CORRECT), n_items=2)
    with pytest.raises(InputError, match="one practice session"):
        record_session_answer(
            db,
            NewResponse(item_id=fx.item_ids[1], respondent_id=student, run_id=fx.run_id,
                        outcome=Outcome.CORRECT),
            n_items=2,
        )  # fmt: skip

    loaded = load_session(db, sid)
    assert [(a.item_id, a.outcome) for a in loaded.answers] == [(fx.item_ids[0], "correct")]
    assert loaded.session.status == "active"

    with pytest.raises(NotFoundError, match="no practice session with id 999"):
        load_session(db, 999)
    with pytest.raises(NotFoundError):
        create_session(db, respondent_id=student + 50, kb_name="x", config={})
    other_sid = _session(db, student, fx.item_ids)
    row = set_session_status(db, other_sid, SessionStatus.ABANDONED)
    assert row.status == "abandoned"
    assert row.finished_at is not None
    with pytest.raises(InputError, match="abandoned"):
        record_session_answer(
            db, _answer(other_sid, student, fx.item_ids[0], Outcome.CORRECT), n_items=2
        )
    with pytest.raises(NotFoundError):
        set_session_status(db, 999, SessionStatus.FINISHED)


def test_respondents_and_their_history(db: Database) -> None:
    assert find_respondent(db, RespondentKind.HUMAN, "ada") is None
    student = _student(db)  # "ada"
    found = find_respondent(db, RespondentKind.HUMAN, "ada")
    assert found is not None and found.id == student
    assert find_respondent(db, RespondentKind.MODEL, "ada") is None  # kind matters
    assert set_respondent_cohort(db, student, "year 3").cohort == "year 3"
    found = find_respondent(db, RespondentKind.HUMAN, "ada")
    assert found is not None and found.cohort == "year 3"
    with pytest.raises(NotFoundError):
        set_respondent_cohort(db, student + 10, "x")

    fx = make_run(db, 3)
    ada, bob = student, _student(db, "bob")
    s1 = _session(db, ada, fx.item_ids[:2])
    s2 = _session(db, ada, fx.item_ids, kb="other-kb")
    s3 = _session(db, bob, fx.item_ids)
    record_session_answer(db, _answer(s1, ada, fx.item_ids[1], Outcome.INCORRECT), n_items=2)
    record_session_answer(db, _answer(s2, ada, fx.item_ids[0], Outcome.CORRECT), n_items=3)
    record_session_answer(db, _answer(s1, ada, fx.item_ids[0], Outcome.CORRECT), n_items=2)
    record_session_answer(db, _answer(s3, bob, fx.item_ids[0], Outcome.CORRECT), n_items=3)

    history = respondent_history(db, ada)
    assert [h.session.id for h in history] == [s1, s2]
    assert [(a.item_id, a.outcome) for a in history[0].answers] == [
        (fx.item_ids[1], "incorrect"),
        (fx.item_ids[0], "correct"),
    ]
    assert [a.item_id for a in history[1].answers] == [fx.item_ids[0]]
    only = respondent_history(db, ada, kb_name="other-kb")
    assert [h.session.id for h in only] == [s2]
    assert respondent_history(db, ada, kb_name="nothing") == []


def test_model_answers_and_kb_tails(db: Database) -> None:
    fx = make_run(db, 3, model="test/a")
    record_responses(
        db,
        [
            answer(fx, fx.item_ids[0], Outcome.CORRECT),
            answer(fx, fx.item_ids[1], Outcome.ERROR),
            answer(fx, fx.item_ids[2], Outcome.INCORRECT),
        ],
    )
    b = get_or_create_respondent(db, RespondentKind.MODEL, "test/b")
    run_b = create_run(db, respondent_id=b.id, model_requested="test/b")
    record_responses(
        db,
        [
            NewResponse(
                item_id=fx.item_ids[0],
                respondent_id=b.id,
                run_id=run_b.id,
                outcome=Outcome.INCORRECT,
                parsed_answer="false",
                created_at=datetime(2030, 1, 1, tzinfo=UTC),
            )
        ],
    )
    # A person's answer in a session is no model answer.
    student = _student(db)
    sid = _session(db, student, fx.item_ids)
    record_session_answer(db, _answer(sid, student, fx.item_ids[0], Outcome.CORRECT), n_items=3)

    found = model_answers(db, fx.item_ids)
    assert len(found) == 3
    assert sorted((a.model, a.item_id, a.outcome) for a in found[:2]) == sorted(
        [("test/a", fx.item_ids[0], "correct"), ("test/a", fx.item_ids[2], "incorrect")]
    )
    assert (found[-1].model, found[-1].run_id, found[-1].outcome) == (
        "test/b",
        run_b.id,
        "incorrect",
    )  # newest last
    only_b = model_answers(db, fx.item_ids, ["test/b"])
    assert [(a.model, a.item_id, a.parsed_answer) for a in only_b] == [
        ("test/b", fx.item_ids[0], "false")
    ]
    assert model_answers(db, fx.item_ids[1:2]) == []  # only an error there
    assert model_answers(db, fx.item_ids, []) == []

    # The tails a KB lists for a head and relation, in KB order.
    kb = create_knowledge_base(db, "mini", version="1", source="test")
    other = create_knowledge_base(db, "other", version="1", source="test")
    save_knowledge_points(
        db,
        kb.id,
        [
            NewPoint("has_symptom", "flu", "fever"),
            NewPoint("has_symptom", "flu", "cough"),
            NewPoint("treated_with_drug", "flu", "oseltamivir"),
            NewPoint("has_symptom", "asthma", "wheeze"),
        ],
    )
    save_knowledge_points(db, other.id, [NewPoint("has_symptom", "flu", "rash")])
    save_items(db, kb.id, make_items(1))
    assert point_tails(db, "mini", "has_symptom", "flu") == ["fever", "cough"]
    assert point_tails(db, "other", "has_symptom", "flu") == ["rash"]
    assert point_tails(db, "mini", "has_symptom", "gout") == []
