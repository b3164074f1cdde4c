"""Storage hands out plain records of quizbot.domain, never table rows, on both backends."""

from __future__ import annotations

import dataclasses
import typing
from datetime import date
from typing import Any

import pytest
from sqlmodel import SQLModel

from quizbot import domain
from quizbot.domain import NightStatus, Outcome, RespondentKind, RunStatus, SessionStatus
from storage import Database
from storage.cohorts import completed_runs
from storage.models import (
    Alert,
    EvalRun,
    ItemFlagRow,
    KbOverrideRow,
    KnowledgeBase,
    ModelCallCache,
    Monitor,
    MonitorNight,
    PrototypeSetRow,
    QuizSession,
    Respondent,
    Response,
    RetiredItemRow,
)
from storage.monitoring import (
    NewFinding,
    claim_night,
    get_monitor,
    list_alerts,
    list_monitors,
    list_nights,
    save_findings,
    upsert_monitor,
)
from storage.records import to_record
from storage.repo import (
    get_cached_call,
    get_knowledge_base,
    get_or_create_respondent,
    get_prototype_set,
    get_run,
    list_knowledge_bases,
    list_responses,
    list_runs,
    put_cached_call,
    record_response,
    save_prototype_set,
    update_run,
    upsert_knowledge_base,
)
from storage.sessions import (
    create_session,
    find_respondent,
    load_session,
    respondent_history,
    set_respondent_cohort,
    set_session_status,
)
from tests.helpers.factories import answer, make_run

PAIRS: list[tuple[type[Any], type[SQLModel]]] = [
    (domain.KnowledgeBaseInfo, KnowledgeBase),
    (domain.StoredPrototypeSet, PrototypeSetRow),
    (domain.CachedCall, ModelCallCache),
    (domain.Respondent, Respondent),
    (domain.Run, EvalRun),
    (domain.ResponseRecord, Response),
    (domain.PracticeSessionRecord, QuizSession),
    (domain.Monitor, Monitor),
    (domain.NightRecord, MonitorNight),
    (domain.Alert, Alert),
    (domain.ItemFlag, ItemFlagRow),
    (domain.KbOverride, KbOverrideRow),
    (domain.RetiredItem, RetiredItemRow),
]


@pytest.mark.parametrize(("record", "table"), PAIRS, ids=lambda t: t.__name__)
def test_a_record_has_its_tables_columns_with_the_same_names_and_types(
    record: type[Any], table: type[SQLModel]
) -> None:
    assert dataclasses.is_dataclass(record)
    params = vars(record)["__dataclass_params__"]  # typeshed does not declare the attribute
    assert params.frozen
    hints = typing.get_type_hints(record)
    columns = {name: f.annotation for name, f in table.model_fields.items()}
    assert list(hints) == list(columns)
    for name, annotation in columns.items():
        expected = int if name == "id" else annotation  # a record's id is always set
        assert hints[name] == expected, name


def test_a_row_without_an_id_is_not_a_record() -> None:
    with pytest.raises(ValueError, match="flush"):
        to_record(domain.Monitor, Monitor(name="m"))


def _plain(value: object, record: type[Any]) -> None:
    assert type(value) is record
    assert not isinstance(value, SQLModel)
    assert isinstance(value.id, int)  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.id = 0  # type: ignore[attr-defined]


def test_repo_returns_records(db: Database) -> None:
    fx = make_run(db, 2)
    kb, _, _ = upsert_knowledge_base(db, name="other", version="1", source="test", points=[])
    _plain(kb, domain.KnowledgeBaseInfo)
    _plain(get_knowledge_base(db, "test-kb"), domain.KnowledgeBaseInfo)
    for summary in list_knowledge_bases(db):
        _plain(summary.kb, domain.KnowledgeBaseInfo)

    stored, created = save_prototype_set(
        db, name="p", format="pool", digest="d", content="x", source_path=None
    )
    assert created
    _plain(stored, domain.StoredPrototypeSet)
    again, created = save_prototype_set(
        db, name="p", format="pool", digest="d", content="x", source_path=None
    )
    assert not created and again == stored
    _plain(get_prototype_set(db, "p"), domain.StoredPrototypeSet)
    assert get_prototype_set(db, "nope") is None

    put_cached_call(db, key="k", model="m", text="t", provider_model="pm", total_tokens=3)
    cached = get_cached_call(db, "k")
    _plain(cached, domain.CachedCall)
    assert cached is not None and (cached.text, cached.total_tokens) == ("t", 3)
    assert get_cached_call(db, "missing") is None

    _plain(get_or_create_respondent(db, RespondentKind.MODEL, "test/model"), domain.Respondent)
    run = get_run(db, fx.run_id)
    _plain(run, domain.Run)
    done = update_run(db, fx.run_id, status=RunStatus.COMPLETED, model_reported="test/m-1")
    _plain(done, domain.Run)
    assert done.status == "completed" and done.finished_at is not None
    assert run.status == "pending"  # a record is a snapshot, not a live row
    ((listed, n),) = list_runs(db)
    _plain(listed, domain.Run)
    assert listed == done and n == 0
    (completed,) = completed_runs(db, "test/model")
    assert completed == done

    record_response(db, answer(fx, fx.item_ids[0], Outcome.INCORRECT))
    (response,) = list_responses(db, run_id=fx.run_id)
    _plain(response, domain.ResponseRecord)
    assert response.outcome == "incorrect" and response.cached is False


def test_sessions_return_records(db: Database) -> None:
    student = get_or_create_respondent(db, RespondentKind.HUMAN, "ada")
    row = create_session(db, respondent_id=student.id, kb_name="kb", config={"n": 1})
    _plain(row, domain.PracticeSessionRecord)
    assert row.status == SessionStatus.ACTIVE and row.config == {"n": 1}
    loaded = load_session(db, row.id)
    _plain(loaded.session, domain.PracticeSessionRecord)
    _plain(loaded.respondent, domain.Respondent)
    assert loaded.session == row and loaded.respondent == student
    ended = set_session_status(db, row.id, SessionStatus.ABANDONED)
    _plain(ended, domain.PracticeSessionRecord)
    assert ended.finished_at is not None
    (past,) = respondent_history(db, student.id)
    assert past.session == ended and past.answers == []
    moved = set_respondent_cohort(db, student.id, "year 2")
    _plain(moved, domain.Respondent)
    assert moved.cohort == "year 2" and student.cohort is None
    assert find_respondent(db, RespondentKind.HUMAN, "ada") == moved


def test_monitoring_returns_records(db: Database) -> None:
    monitor = upsert_monitor(db, "m", {"points": 2})
    _plain(monitor, domain.Monitor)
    assert get_monitor(db, "m") == monitor
    assert list_monitors(db) == [monitor]
    night = claim_night(db, monitor.id, "a", date(2026, 3, 1), "me")
    _plain(night, domain.NightRecord)
    assert night is not None and night.status == NightStatus.CLAIMED
    assert list_nights(db, monitor.id) == [night]
    moved = dataclasses.replace(night, run_id=7)  # how callers change a record: a copy
    assert moved.run_id == 7 and list_nights(db, monitor.id)[0].run_id is None
    (alert,) = save_findings(
        db,
        night.id,
        [NewFinding("overall", "accuracy", severity="warning", alert_message="dropped")],
    )
    _plain(alert, domain.Alert)
    assert alert.metric == "overall:accuracy" and alert.run_ids == []
    ((listed, its_night),) = list_alerts(db, monitor.id)
    _plain(listed, domain.Alert)
    _plain(its_night, domain.NightRecord)
    assert listed == alert and its_night == night
