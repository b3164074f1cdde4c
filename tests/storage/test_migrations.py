"""Migrations on both backends: from empty, idempotent, data-preserving, matching the models."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel

from quizbot.errors import SchemaError
from storage import Database, ensure_schema, head_revision, open_database, schema_status, upgrade
from storage.migrate import include_name
from storage.monitoring import list_nights
from storage.repo import count_responses, get_run, list_responses, table_counts
from tests.conftest import _Templates, fresh_database

EXPECTED_TABLES = {
    "alert",
    "apscheduler_jobs",
    "assignment_items",
    "assignment_retired_items",
    "assignments",
    "audit_log",
    "login_locks",
    "drift_result",
    "eval_run",
    "gradio_sessions",
    "item",
    "item_flags",
    "item_set_items",
    "item_sets",
    "knowledge_base",
    "knowledge_point",
    "kb_overrides",
    "model_call_cache",
    "model_spend",
    "monitor",
    "monitor_incident",
    "monitor_night",
    "practice_plans",
    "prototype_set",
    "quiz_session",
    "rate_buckets",
    "reason_reviews",
    "recall_judgements",
    "recall_self_grades",
    "rephrase_cache",
    "respondent",
    "response",
    "retired_items",
    "review_cards",
    "review_sync",
    "upload_usage",
    "user_sessions",
    "users",
}


def test_upgrade_from_empty_creates_every_table(empty_db: Database) -> None:
    assert schema_status(empty_db).empty
    before, after = upgrade(empty_db)
    assert (before, after) == (None, head_revision())
    assert set(table_counts(empty_db)) == EXPECTED_TABLES


def test_second_upgrade_is_a_no_op(db: Database) -> None:
    # ``db`` is a copy of the template, upgraded once from empty already
    db.write(
        lambda s: s.execute(
            text(
                "INSERT INTO knowledge_base (name, version, title, description, source, license,"
                " meta, created_at, updated_at) VALUES ('kb', '1', '', '', 't', '', '{}',"
                " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )
    )
    before, after = upgrade(db)
    assert before == after == head_revision()
    assert table_counts(db)["knowledge_base"] == 1


def test_migrations_produce_exactly_the_models_schema(empty_db: Database) -> None:
    upgrade(empty_db)
    with empty_db.engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "include_name": include_name}
        )
        assert compare_metadata(context, SQLModel.metadata) == []


_V1_ROWS = [
    "INSERT INTO knowledge_base (id, name, version, title, description, source, license, meta,"
    " created_at, updated_at) VALUES (1, 'kb', '1', '', '', 't', '', '{}',"
    " '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
    "INSERT INTO item (id, kind, kb_id, relation, head, tail, polarity, transform, label, text,"
    " generator_version, lineage, created_at) VALUES ('i1:a', 'statement', 1, 'may_treat', 'h',"
    " 't', 'positive', 'none', true, 'H may treat t.', 'g1', '{}', '2026-01-01 00:00:00')",
    "INSERT INTO respondent (id, kind, name, display_name, meta, created_at) VALUES"
    " (1, 'model', 'm', 'm', '{}', '2026-01-01 00:00:00')",
    "INSERT INTO eval_run (id, respondent_id, model_requested, config, status, n_items,"
    " created_at) VALUES (1, 1, 'm', '{\"shots\": 5}', 'completed', 1, '2026-01-01 00:00:00')",
    "INSERT INTO response (id, run_id, item_id, respondent_id, raw_text, parsed_answer, outcome,"
    " latency_ms, cached, created_at) VALUES (7, 1, 'i1:a', 1, 'True.', 'true', 'correct', 3.5,"
    " false, '2026-01-01 00:00:00')",
]


def _execute(statement: str) -> Callable[[Session], object]:
    """A write that runs one SQL statement (binds it now, not when the loop has moved on)."""
    return lambda s: s.execute(text(statement))


def test_upgrade_from_the_previous_migration_keeps_data(empty_db: Database) -> None:
    upgrade(empty_db, "0001")
    for statement in _V1_ROWS:
        empty_db.write(_execute(statement))
    upgrade(empty_db)
    assert count_responses(empty_db) == 1
    (kept,) = list_responses(empty_db, run_id=1)
    assert (kept.id, kept.item_id, kept.raw_text, kept.outcome, kept.latency_ms) == (
        7,
        "i1:a",
        "True.",
        "correct",
        3.5,
    )
    assert kept.quiz_session_id is None
    config = empty_db.read(lambda s: s.execute(text("SELECT config FROM eval_run")).scalar_one())
    assert (json.loads(config) if isinstance(config, str) else config) == {"shots": 5}
    # The new rule holds on migrated data: a response needs exactly one container.
    with pytest.raises(IntegrityError):
        empty_db.write(
            lambda s: s.execute(
                text(
                    "INSERT INTO response (item_id, respondent_id, outcome, cached, created_at)"
                    " VALUES ('i1:a', 1, 'correct', false, '2026-01-02 00:00:00')"
                )
            )
        )


@pytest.mark.parametrize(
    ("statement", "constraint"),
    [
        ("UPDATE response SET outcome = 'maybe'", "outcome"),
        ("UPDATE respondent SET kind = 'robot'", "kind"),
        ("UPDATE eval_run SET status = 'odd'", "status"),
        ("UPDATE item SET polarity = 'neutral'", "polarity"),
        ("UPDATE response SET item_id = 'i1:missing'", "foreign key"),
    ],
)
def test_rules_are_enforced_after_migration(
    empty_db: Database, statement: str, constraint: str
) -> None:
    upgrade(empty_db, "0001")
    for row in _V1_ROWS:
        empty_db.write(_execute(row))
    upgrade(empty_db)
    with pytest.raises(IntegrityError):
        empty_db.write(lambda s: s.execute(text(statement)))


def test_ensure_schema_migrates_an_empty_database_only(empty_db: Database) -> None:
    status = ensure_schema(empty_db)
    assert status.up_to_date


def test_ensure_schema_refuses_an_outdated_database_and_names_the_fix(empty_db: Database) -> None:
    upgrade(empty_db, "0001")
    with pytest.raises(SchemaError, match="0001") as info:
        ensure_schema(empty_db)
    assert info.value.hint and "quizbot db upgrade" in info.value.hint
    assert schema_status(empty_db).current == "0001"  # nothing was changed


def test_ensure_schema_refuses_a_foreign_database(empty_db: Database) -> None:
    empty_db.write(lambda s: s.execute(text("CREATE TABLE somebody_elses (x INTEGER)")))
    with pytest.raises(SchemaError, match="no quizbot schema version"):
        ensure_schema(empty_db)


def test_a_database_from_a_newer_quizbot_is_refused(db: Database) -> None:
    # a copy of the migrated template, as this quizbot left it; then a newer one moved it on
    db.write(lambda s: s.execute(text("UPDATE alembic_version SET version_num = '9999'")))
    with pytest.raises(SchemaError, match="newer"):
        ensure_schema(db)
    with pytest.raises(SchemaError, match="newer"):
        upgrade(db)


_RACE = """
import sys
from storage import Database, upgrade
db = Database(sys.argv[1])
before, after = upgrade(db)
print(before or "empty", after)
"""


@pytest.mark.slow
def test_two_processes_migrating_an_empty_database_apply_it_once(
    database_url: str, tmp_path: Path
) -> None:
    script = tmp_path / "race.py"
    script.write_text(_RACE)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), database_url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [err for _, err in results]
    lines = sorted(out.strip() for out, _ in results)
    head = head_revision()
    assert lines == sorted([f"empty {head}", f"{head} {head}", f"{head} {head}"])
    db = open_database(database_url)
    assert set(table_counts(db)) == EXPECTED_TABLES
    db.dispose()


def test_nights_stored_before_0004_survive_it_without_a_summary(empty_db: Database) -> None:
    upgrade(empty_db, "0003")
    empty_db.write(
        lambda s: s.execute(
            text(
                "INSERT INTO monitor (id, name, definition, enabled, created_at, updated_at)"
                " VALUES (1, 'm', '{}', TRUE, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )
    )
    empty_db.write(
        lambda s: s.execute(
            text(
                "INSERT INTO monitor_night (monitor_id, model, scheduled_date, status, claimed_by,"
                " created_at) VALUES (1, 'baseline/random', '2026-01-02', 'completed', 'x',"
                " CURRENT_TIMESTAMP)"
            )
        )
    )
    upgrade(empty_db)
    (night,) = list_nights(empty_db, 1)
    assert (night.model, night.status, night.summary, night.provider_model) == (
        "baseline/random",
        "completed",
        None,
        None,
    )


def test_a_job_store_made_by_apscheduler_before_0005_is_adopted_and_its_stale_jobs_dropped(
    empty_db: Database,
) -> None:
    """Databases whose scheduler ran before 0005 already have APScheduler's own table."""
    from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore

    upgrade(empty_db, "0004")
    store = SQLAlchemyJobStore(engine=empty_db.engine, tablename="apscheduler_jobs")
    store.jobs_t.create(empty_db.engine, checkfirst=True)  # what APScheduler did on start
    with empty_db.engine.begin() as conn:
        conn.execute(
            text("INSERT INTO apscheduler_jobs (id, next_run_time, job_state) VALUES (:i, 1, :s)"),
            {"i": "monitor:old", "s": b"pickled reference to quizbot.scheduler:nightly_job"},
        )
    upgrade(empty_db)
    assert table_counts(empty_db)["apscheduler_jobs"] == 0
    with empty_db.engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "include_name": include_name}
        )
        assert compare_metadata(context, SQLModel.metadata) == []


def test_0006_adds_the_review_tables_and_keeps_what_was_stored(empty_db: Database) -> None:
    upgrade(empty_db, "0005")
    for statement in _V1_ROWS:
        empty_db.write(_execute(statement))
    upgrade(empty_db)
    assert count_responses(empty_db) == 1
    counts = table_counts(empty_db)
    assert (counts["item_flags"], counts["kb_overrides"], counts["retired_items"]) == (0, 0, 0)
    from storage.review import create_flag, decide_item, retired_item_ids

    flag = create_flag(empty_db, item_id="i1:a", reason="wrong_key", comment="really?")
    decide_item(
        empty_db, item_id="i1:a", decision="retire", decided_by="rev", retire_reason="x",
        flag_id=flag.id,
    )  # fmt: skip
    assert retired_item_ids(empty_db) == {"i1:a"}
    # A flag cannot point at an item that does not exist, nor have a made-up state.
    for statement in (
        "INSERT INTO item_flags (item_id, reason, comment, created_at, state) VALUES"
        " ('i1:missing', 'other', '', CURRENT_TIMESTAMP, 'open')",
        "UPDATE item_flags SET state = 'pending'",
        "INSERT INTO retired_items (item_id, reason, retired_at) VALUES ('i1:a', '', "
        "CURRENT_TIMESTAMP)",
    ):
        with pytest.raises(IntegrityError):
            empty_db.write(_execute(statement))


def test_0007_adds_assignments_and_keeps_runs_and_sessions_unlinked(empty_db: Database) -> None:
    upgrade(empty_db, "0006")
    for statement in _V1_ROWS:
        empty_db.write(_execute(statement))
    upgrade(empty_db)
    assert count_responses(empty_db) == 1
    counts = table_counts(empty_db)
    assert (counts["assignments"], counts["assignment_items"]) == (0, 0)
    from storage.assignments import assignment_runs, create_assignment

    made = create_assignment(empty_db, name="a1", kb_name="kb", item_ids=["i1:a"], mode="exam")
    assert made.item_ids == ("i1:a",)
    assert assignment_runs(empty_db, made.id) == []  # the run stored before 0007 is not linked
    assert get_run(empty_db, 1).assignment_id is None
    for statement in (
        "UPDATE assignments SET mode = 'homework'",
        "INSERT INTO assignment_items (assignment_id, position, item_id) VALUES (1, 2, 'i1:a')",
        "INSERT INTO assignment_items (assignment_id, position, item_id) VALUES (1, 3, 'i1:zz')",
        "UPDATE eval_run SET assignment_id = 99",
    ):
        with pytest.raises(IntegrityError):
            empty_db.write(_execute(statement))


def test_0015_adds_repeat_groups_and_reason_reviews_and_keeps_runs_ungrouped(
    empty_db: Database,
) -> None:
    upgrade(empty_db, "0013")
    for statement in _V1_ROWS:
        empty_db.write(_execute(statement))
    upgrade(empty_db)
    assert get_run(empty_db, 1).repeat_of is None  # a run stored before 0015 is a group of one
    assert table_counts(empty_db)["reason_reviews"] == 0
    from storage.reasons import mark_reason, run_reason_reviews

    mark_reason(empty_db, response_id=7, sound=True, reviewer="ann")
    assert set(run_reason_reviews(empty_db, 1)) == {7}
    for statement in (
        "UPDATE eval_run SET repeat_of = 99",  # no such run
        "INSERT INTO reason_reviews (response_id, sound, reviewer, reviewed_at)"
        " VALUES (7, false, 'bob', CURRENT_TIMESTAMP)",  # one mark per answer
        "INSERT INTO reason_reviews (response_id, sound, reviewer, reviewed_at)"
        " VALUES (99, false, 'bob', CURRENT_TIMESTAMP)",  # no such answer
    ):
        with pytest.raises(IntegrityError):
            empty_db.write(_execute(statement))


def test_0018_adds_recall_self_grades_and_judgements_and_keeps_what_was_stored(
    empty_db: Database,
) -> None:
    upgrade(empty_db, "0015")
    for statement in _V1_ROWS:
        empty_db.write(_execute(statement))
    upgrade(empty_db)
    counts = table_counts(empty_db)
    assert (counts["recall_self_grades"], counts["recall_judgements"]) == (0, 0)
    assert count_responses(empty_db) == 1
    from storage.recall_grades import (
        NewJudgement,
        judgements,
        put_judgements,
        put_self_grade,
        self_grades,
    )

    put_self_grade(empty_db, response_id=7, entry="Fever", entry_key="fever", verdict="right")
    put_self_grade(empty_db, response_id=7, entry="fever", entry_key="fever", verdict="wrong")
    assert self_grades(empty_db, [7]) == {7: {"fever": "wrong"}}  # marking again replaces
    new = NewJudgement("i1:a", "fever", "fever", "openai/judge", "j1", "correct", "CORRECT")
    assert put_judgements(empty_db, [new, new]) == 1
    assert put_judgements(empty_db, [new]) == 0  # judged once per question, entry, judge, prompt
    assert judgements(empty_db, ["i1:a"], judge_model="openai/judge", prompt_version="j1") == {
        "i1:a": {"fever": "correct"}
    }
    for statement in (
        "INSERT INTO recall_self_grades (response_id, entry_key, entry, verdict, graded_at)"
        " VALUES (7, 'cough', 'cough', 'maybe', CURRENT_TIMESTAMP)",  # no such mark
        "INSERT INTO recall_self_grades (response_id, entry_key, entry, verdict, graded_at)"
        " VALUES (99, 'cough', 'cough', 'right', CURRENT_TIMESTAMP)",  # no such answer
        "INSERT INTO recall_judgements (item_id, entry_key, entry, judge_model, prompt_version,"
        " verdict, reply, created_at) VALUES ('i1:zz', 'x', 'x', 'm', 'j1', 'correct', '',"
        " CURRENT_TIMESTAMP)",  # no such question
    ):
        with pytest.raises(IntegrityError):
            empty_db.write(_execute(statement))


def test_0020_adds_the_secret_seed_and_held_sessions_and_keeps_what_was_stored(
    empty_db: Database,
) -> None:
    upgrade(empty_db, "0019")
    for statement in [
        *_V1_ROWS,
        "INSERT INTO assignments (id, name, kb_name, mode, config, created_at) VALUES"
        " (1, 'old', 'kb', 'exam', '{\"seed\": \"0\"}', '2026-01-01 00:00:00')",
        "INSERT INTO assignment_items (assignment_id, position, item_id) VALUES (1, 1, 'i1:a')",
        "INSERT INTO review_sync (respondent_id, last_response_id, updated_at) VALUES"
        " (1, 7, '2026-01-01 00:00:00')",
    ]:
        empty_db.write(_execute(statement))
    upgrade(empty_db)
    from storage.assignments import get_assignment, secret_seed
    from storage.review_cards import pending_answers, save_cards

    old = get_assignment(empty_db, "old")
    assert old.config == {"seed": "0"} and old.item_ids == ("i1:a",)
    assert secret_seed(empty_db, old.id) is None  # made before: its seed is the public one
    pending = pending_answers(empty_db, 1)
    assert (pending.watermark, pending.held) == (7, ())  # nothing held before 0020
    assert save_cards(empty_db, 1, [], expected_watermark=7, new_watermark=7, held=[3, 3])
    assert pending_answers(empty_db, 1).held == (3,)


def test_an_upgrade_waits_out_another_upgrade_past_the_lock_timeout(
    tmp_path: Path, _templates: _Templates
) -> None:
    """Replicas starting together migrate one after the other: the second waits for the
    first's migration lock however long it takes (the tables' own locks stay bounded by
    ``lock_timeout_ms``), instead of failing as "lock not available"."""
    import threading

    import psycopg

    from storage import EngineOptions
    from storage.migrate import _LOCK_KEY

    with fresh_database("postgresql", tmp_path, _templates, migrated=False) as url:
        db = Database(url, EngineOptions(lock_timeout_ms=200))
        other = psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), autocommit=True)
        try:
            other.execute("SELECT pg_advisory_lock(%s)", (_LOCK_KEY,))  # "another upgrade"
            timer = threading.Timer(1.0, other.execute, ("SELECT pg_advisory_unlock_all()",))
            timer.start()
            before, after = upgrade(db)
            timer.join()
            assert (before, after) == (None, head_revision())
        finally:
            other.close()
            db.dispose()
