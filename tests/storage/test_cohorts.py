"""The queries behind humans vs models, on both backends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import storage.cohorts
from quizbot.domain import Outcome, RespondentKind, RunStatus
from storage import Database
from storage.cohorts import (
    completed_runs,
    human_answers,
    human_cohorts,
    models_with_completed_runs,
    scored_item_ids,
)
from storage.repo import (
    NewResponse,
    create_knowledge_base,
    create_run,
    get_or_create_respondent,
    record_responses,
    save_items,
    update_run,
)
from storage.sessions import create_session
from tests.helpers.factories import make_items

T0 = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def person(db: Database, name: str, cohort: str | None) -> tuple[int, int]:
    """A human respondent and one practice session of theirs."""
    row = get_or_create_respondent(db, RespondentKind.HUMAN, name, cohort=cohort)
    session = create_session(db, respondent_id=row.id, kb_name="kb-a", config={})
    return row.id, session.id


def said(
    respondent: tuple[int, int],
    item: str,
    at: datetime,
    outcome: Outcome = Outcome.CORRECT,
) -> NewResponse:
    return NewResponse(
        item_id=item,
        respondent_id=respondent[0],
        quiz_session_id=respondent[1],
        outcome=outcome,
        parsed_answer="true",
        created_at=at,
    )


@pytest.fixture
def two_kbs(db: Database) -> tuple[list[str], list[str]]:
    """Items of kb-a (4) and kb-b (2)."""
    ids = []
    for name, n in (("kb-a", 4), ("kb-b", 2)):
        kb = create_knowledge_base(db, name, version="1", source="test")
        items = make_items(n, prefix=name)
        save_items(db, kb.id, items)
        ids.append([i.id for i in items])
    return ids[0], ids[1]


def test_cohorts_are_distinct_human_groups(db: Database) -> None:
    person(db, "a", "2026")
    person(db, "b", "2026")
    person(db, "c", "2025")
    person(db, "d", None)
    get_or_create_respondent(db, RespondentKind.MODEL, "m", cohort="models")
    assert human_cohorts(db) == ["2025", "2026"]


def test_human_answers_filters(db: Database, two_kbs: tuple[list[str], list[str]]) -> None:
    a_items, b_items = two_kbs
    alice = person(db, "alice", "2026")
    bob = person(db, "bob", "2025")
    record_responses(
        db,
        [
            said(alice, a_items[1], T0 + timedelta(minutes=1)),
            said(alice, a_items[0], T0, Outcome.ABSTAINED),
            said(alice, b_items[0], T0 + timedelta(days=1), Outcome.ERROR),
            said(bob, a_items[0], T0 - timedelta(days=1), Outcome.INCORRECT),
        ],
    )
    # A model answering in a run is not a human answer.
    model = get_or_create_respondent(db, RespondentKind.MODEL, "m")
    run = create_run(db, respondent_id=model.id, model_requested="m")
    record_responses(
        db,
        [
            NewResponse(
                item_id=a_items[0], respondent_id=model.id, run_id=run.id, outcome=Outcome.CORRECT
            )
        ],
    )

    every = human_answers(db)
    # oldest first; every outcome, errors included; names and cohorts attached
    assert [(a.respondent, a.item_id, a.outcome) for a in every] == [
        ("bob", a_items[0], "incorrect"),
        ("alice", a_items[0], "abstained"),
        ("alice", a_items[1], "correct"),
        ("alice", b_items[0], "error"),
    ]
    assert every[1].cohort == "2026" and every[1].quiz_session_id == alice[1]
    assert every[1].created_at == T0 and every[1].created_at.tzinfo is not None

    assert [a.item_id for a in human_answers(db, kb="kb-b")] == [b_items[0]]
    assert {a.respondent for a in human_answers(db, cohort="2025")} == {"bob"}
    # since is inclusive, before is exclusive
    window = human_answers(db, since=T0, before=T0 + timedelta(minutes=1))
    assert [(a.respondent, a.item_id) for a in window] == [("alice", a_items[0])]
    chosen = human_answers(db, item_ids=[a_items[0]], cohort="2026")
    assert [(a.respondent, a.outcome) for a in chosen] == [("alice", "abstained")]
    assert human_answers(db, item_ids=[]) == []


def test_human_answers_in_batches(
    db: Database, two_kbs: tuple[list[str], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    a_items, _ = two_kbs
    alice = person(db, "alice", None)
    record_responses(
        db, [said(alice, item, T0 + timedelta(seconds=i)) for i, item in enumerate(a_items)]
    )
    monkeypatch.setattr(storage.cohorts, "BATCH", 1)
    # three batches of one; order restored by time; duplicates in the request ignored
    found = human_answers(db, item_ids=[a_items[2], a_items[0], a_items[3], a_items[0]])
    assert [a.item_id for a in found] == [a_items[0], a_items[2], a_items[3]]


def test_completed_runs_newest_first_and_scored_items(
    db: Database, two_kbs: tuple[list[str], list[str]]
) -> None:
    a_items, _ = two_kbs
    model = get_or_create_respondent(db, RespondentKind.MODEL, "m")
    other = get_or_create_respondent(db, RespondentKind.BASELINE, "baseline/random")
    ids = []
    for status in (RunStatus.COMPLETED, RunStatus.COMPLETED, RunStatus.FAILED):
        run = create_run(db, respondent_id=model.id, model_requested="m")
        update_run(db, run.id, status=status)
        ids.append(run.id)
    base = create_run(db, respondent_id=other.id, model_requested="baseline/random")
    update_run(db, base.id, status=RunStatus.COMPLETED)
    create_run(db, respondent_id=model.id, model_requested="pending/model")

    assert [r.id for r in completed_runs(db, "m")] == [ids[1], ids[0]]
    assert completed_runs(db, "nobody") == []
    assert models_with_completed_runs(db) == ["baseline/random", "m"]

    record_responses(
        db,
        [
            NewResponse(item_id=item, respondent_id=model.id, run_id=ids[0], outcome=outcome)
            for item, outcome in zip(
                a_items,
                [Outcome.CORRECT, Outcome.ERROR, Outcome.ABSTAINED, Outcome.UNPARSED],
                strict=True,
            )
        ],
    )
    assert scored_item_ids(db, ids[0]) == {a_items[0], a_items[2], a_items[3]}
    assert scored_item_ids(db, ids[1]) == set()
