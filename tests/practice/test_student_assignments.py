"""A student's own assignments (issue 29): listed by cohort and window with their status, and
My progress per week and on the weakest topics. Real assignments and sessions through the
services, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizbot.config import get_settings
from quizbot.domain import AssignmentMode
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.seats import Sitter
from quizbot.practice.service import (
    answer,
    coverage,
    end_session,
    next_question,
    progress,
    start_session,
    student_assignments,
)
from storage import Database
from tests.practice.test_service import reply, session_rows

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _make(db: Database, name: str, cohort: str | None, **more: object) -> None:
    make_assignment(
        db,
        AssignmentRequest(name=name, kb="clinical-core", points=2, cohort=cohort, **more),  # type: ignore[arg-type]
    )


def _answer_all(db: Database, session_id: int, right: bool = True) -> None:
    for row in session_rows(db, session_id):  # in the order asked
        question = next_question(db, session_id)
        assert question is not None
        answer(db, session_id, question.id, reply(row, right=right))


def test_a_student_sees_their_cohorts_open_and_upcoming_assignments_with_status(
    db: Database,
) -> None:
    _make(db, "y1-open", "year-1")
    _make(db, "y1-later", "year-1", opens_at=NOW + timedelta(days=2))
    _make(db, "y1-closed", "year-1", closes_at=NOW - timedelta(hours=1))
    _make(db, "y1-soon-over", "year-1", closes_at=NOW + timedelta(days=1))
    _make(db, "y2-open", "year-2")
    _make(db, "everyone", None)
    _make(db, "y2-exam", "year-2", mode=AssignmentMode.EXAM)
    amy = Sitter("year-1")
    listed = student_assignments(db, "Amy", sitter=amy, now=NOW)
    # Open ones first, closing soonest first, then by name; then those opening later.
    assert [a.name for a in listed] == ["y1-soon-over", "everyone", "y1-open", "y1-later"]
    assert {a.status for a in listed} == {"not started"}
    later = listed[-1]
    assert not later.open_now and later.window.startswith("opens 2026-11-22 12:00 UTC")
    assert listed[0].window == "closes 2026-11-21 12:00 UTC" and listed[0].open_now
    # Another cohort's assignments never appear; a student of no cohort sees only those of none.
    assert [a.name for a in student_assignments(db, "Nobody", sitter=Sitter(None), now=NOW)] == [
        "everyone"
    ]
    zoe = [a.name for a in student_assignments(db, "zoe", sitter=Sitter("year-2"), now=NOW)]
    assert "y2-exam" in zoe and not any(n.startswith("y1") for n in zoe)
    # A name a login proxy sent without an account sits no exam, so it is not offered one.
    proxied = student_assignments(db, "p", sitter=Sitter("year-2", account=False), now=NOW)
    assert "y2-exam" not in [a.name for a in proxied]


def test_the_status_follows_the_students_own_sessions(db: Database) -> None:
    _make(db, "a-open", "year-1")
    _make(db, "b-open", "year-1")
    _make(db, "c-exam", "year-1", mode=AssignmentMode.EXAM)
    amy = Sitter("year-1")

    def status() -> dict[str, str]:
        return {a.name: a.status for a in student_assignments(db, "amy", sitter=amy)}

    assert status() == dict.fromkeys(["a-open", "b-open", "c-exam"], "not started")
    started = start_assignment_session(db, assignment="a-open", student="Amy", sitter=amy)
    assert status()["a-open"] == "in progress"
    _answer_all(db, started.id)
    assert status()["a-open"] == "finished"
    # Ended early: it may be started again, so it is "not started" once more.
    ended = start_assignment_session(db, assignment="b-open", student="Amy", sitter=amy)
    end_session(db, ended.id)
    assert status()["b-open"] == "not started"
    # An exam under way says only that: nothing of its answers.
    exam = start_assignment_session(db, assignment="c-exam", student="Amy", sitter=amy)
    question = next_question(db, exam.id)
    assert question is not None
    answer(db, exam.id, question.id, "true")
    entry = next(a for a in student_assignments(db, "amy", sitter=amy) if a.name == "c-exam")
    assert entry.status == "in progress" and entry.mode == "exam"
    assert set(entry.as_json()) == {
        "name", "kb", "kind", "mode", "n_items", "status", "open_now", "opens_at",
        "closes_at", "window",
    }  # fmt: skip


def test_a_two_pass_exam_is_in_progress_until_its_second_pass_is_done(db: Database) -> None:
    _make(db, "tp", "year-1", mode=AssignmentMode.EXAM, two_pass=True)
    amy = Sitter("year-1")
    view = start_assignment_session(db, assignment="tp", student="amy", sitter=amy)
    while (question := next_question(db, view.id)) is not None:
        answer(db, view.id, question.id, "idk")
    (entry,) = student_assignments(db, "amy", sitter=amy)
    assert entry.status == "in progress"  # the second pass is still to do
    second = start_assignment_session(db, assignment="tp", student="amy", sitter=amy)
    assert second.id != view.id
    while (question := next_question(db, second.id)) is not None:
        answer(db, second.id, question.id, "true")
    (entry,) = student_assignments(db, "amy", sitter=amy)
    assert entry.status == "finished"


def test_progress_per_week_counts_answers_on_the_clocks_day(
    db: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Answers are stamped by the review queue's clock (QUIZBOT_CLOCK_FILE), so three weeks of
    practice made by moving it are three weeks in My progress, per day and per week."""
    clock = tmp_path / "clock"
    monkeypatch.setenv("QUIZBOT_CLOCK_FILE", str(clock))
    get_settings.cache_clear()
    try:
        monday = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)  # a Monday
        days = [
            monday,
            monday + timedelta(days=2),
            monday + timedelta(days=8),
            monday + timedelta(days=16),
        ]
        for i, day in enumerate(days):
            clock.write_text(day.isoformat(), encoding="utf-8")
            view = start_session(db, student="Cleo", length=3, seed=f"w{i}")
            _answer_all(db, view.id, right=i % 2 == 0)
        by_day = progress(db, "cleo", by="day", now=days[-1])
        assert [p.period for p in by_day.timeline] == [d.date().isoformat() for d in days]
        by_week = progress(db, "cleo", by="week", now=days[-1])
        assert [p.period for p in by_week.timeline] == ["2026-11-02", "2026-11-09", "2026-11-16"]
        assert [p.accuracy.n for p in by_week.timeline] == [6, 3, 3]
        first = by_week.timeline[0].accuracy
        assert first.k == 3 and first.low is not None and first.high is not None
        assert first.low < first.value < first.high  # type: ignore[operator]
    finally:
        get_settings.cache_clear()


def test_a_session_on_the_weakest_topics_draws_from_them_only(db: Database) -> None:
    symptoms, drugs = "relation:has_symptom", "relation:treated_with_drug"
    for topic, right in ((symptoms, False), (drugs, False)):
        view = start_session(db, student="Dan", topic=topic, length=3, seed=topic)
        _answer_all(db, view.id, right=right)
    weak = coverage(db, "dan", kb="clinical-core").weakest("relation")
    assert {t.key for t in weak} == {symptoms, drugs}
    view = start_session(db, student="Dan", topics=[t.key for t in weak], length=6, seed="w")
    relations = {r.relation for r in session_rows(db, view.id)}
    assert relations <= {"has_symptom", "treated_with_drug"} and len(relations) == 2
    assert view.topic_label.startswith("Topics: ")
