"""Repository functions on both backends."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from quizbot.domain import Outcome, RespondentKind, RunStatus
from quizbot.errors import DuplicateError, InputError, NotFoundError
from storage import Database
from storage.repo import (
    NewPoint,
    NewResponse,
    answered_item_ids,
    count_responses,
    create_knowledge_base,
    get_knowledge_base,
    get_or_create_respondent,
    get_run,
    list_responses,
    record_response,
    record_responses,
    save_items,
    save_knowledge_points,
    table_counts,
    update_run,
)
from tests.helpers.factories import answer, make_items, make_run


def test_knowledge_base_names_are_unique(db: Database) -> None:
    kb = create_knowledge_base(db, "clinical", version="1", source="builtin", license="CC0")
    assert get_knowledge_base(db, "clinical") == kb and kb.license == "CC0"
    with pytest.raises(DuplicateError, match="clinical"):
        create_knowledge_base(db, "clinical", version="2", source="builtin")
    with pytest.raises(NotFoundError, match="nope") as info:
        get_knowledge_base(db, "nope")
    assert info.value.hint and "quizbot kb list" in info.value.hint


def test_saving_knowledge_points_twice_adds_nothing(db: Database) -> None:
    kb = create_knowledge_base(db, "kb", version="1", source="test")
    points = [NewPoint("may_treat", f"d{i}", "t", meta={"i": i}) for i in range(50)]
    assert save_knowledge_points(db, kb.id, points) == 50
    assert save_knowledge_points(db, kb.id, points) == 0
    assert table_counts(db)["knowledge_point"] == 50


def test_saving_items_twice_adds_nothing(db: Database) -> None:
    kb = create_knowledge_base(db, "kb", version="1", source="test")
    items = make_items(30)
    assert save_items(db, kb.id, items) == 30
    assert save_items(db, kb.id, items[:10] + make_items(35)[30:]) == 5
    assert table_counts(db)["item"] == 35


def test_respondents_are_created_once_even_concurrently(db: Database) -> None:
    with ThreadPoolExecutor(max_workers=8) as pool:
        found = list(
            pool.map(
                lambda _: get_or_create_respondent(db, RespondentKind.HUMAN, "student-42"),
                range(16),
            )
        )
    assert len({r.id for r in found}) == 1
    assert found[0].display_name == "student-42"
    model = get_or_create_respondent(db, RespondentKind.MODEL, "student-42")
    assert model.id != found[0].id  # same name, different kind
    assert table_counts(db)["respondent"] == 2


def test_run_life_cycle_sets_times_and_reported_model(db: Database) -> None:
    fx = make_run(db, 3)
    run = get_run(db, fx.run_id)
    assert run.status == RunStatus.PENDING and run.started_at is None
    update_run(db, fx.run_id, status=RunStatus.RUNNING)
    done = update_run(
        db, fx.run_id, status=RunStatus.COMPLETED, model_reported="test/model-2026-11-01"
    )
    assert done.started_at is not None and done.finished_at is not None
    assert done.finished_at >= done.started_at
    assert get_run(db, fx.run_id).model_reported == "test/model-2026-11-01"
    with pytest.raises(NotFoundError):
        get_run(db, 99_999)


def test_a_response_keeps_everything_needed_to_replay_it(db: Database) -> None:
    fx = make_run(db, 2)
    rid = record_response(db, answer(fx, fx.item_ids[0], Outcome.ABSTAINED))
    (stored,) = list_responses(db, run_id=fx.run_id)
    assert stored.id == rid
    assert stored.outcome == "abstained"
    assert (stored.raw_text, stored.parsed_answer, stored.parse_reason) == (
        "True",
        "true",
        "keyword 'true'",
    )
    assert (stored.prompt_tokens, stored.completion_tokens, stored.total_tokens) == (40, 1, 41)
    assert stored.latency_ms == 12.5
    assert stored.provider_model == "test/model-2026"
    assert stored.created_at.tzinfo is not None


def test_one_response_per_run_and_item(db: Database) -> None:
    fx = make_run(db, 2)
    record_response(db, answer(fx, fx.item_ids[0]))
    with pytest.raises(DuplicateError):
        record_response(db, answer(fx, fx.item_ids[0], Outcome.INCORRECT))
    assert count_responses(db, run_id=fx.run_id) == 1
    assert answered_item_ids(db, fx.run_id) == {fx.item_ids[0]}


def test_a_batch_is_stored_whole_or_not_at_all(db: Database) -> None:
    fx = make_run(db, 5)
    good = [answer(fx, item) for item in fx.item_ids[:4]]
    bad = NewResponse(
        item_id="i1:does-not-exist",
        respondent_id=fx.respondent_id,
        run_id=fx.run_id,
        outcome=Outcome.ERROR,
        error_text="timeout",
    )
    with pytest.raises(NotFoundError):
        record_responses(db, [*good, bad])
    assert count_responses(db) == 0
    ids = record_responses(db, good)
    assert len(ids) == 4 and ids == sorted(ids)
    assert [r.item_id for r in list_responses(db, run_id=fx.run_id)] == fx.item_ids[:4]


def test_a_response_needs_exactly_one_container() -> None:
    with pytest.raises(InputError, match="exactly one"):
        NewResponse(item_id="i", respondent_id=1, outcome=Outcome.CORRECT).row()
    with pytest.raises(InputError, match="exactly one"):
        NewResponse(
            item_id="i", respondent_id=1, outcome=Outcome.CORRECT, run_id=1, quiz_session_id=1
        ).row()


def test_unknown_outcomes_are_refused_before_the_database() -> None:
    with pytest.raises(ValueError, match="maybe"):
        NewResponse(item_id="i", respondent_id=1, run_id=1, outcome="maybe").row()  # type: ignore[arg-type]
