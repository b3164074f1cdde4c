"""Time taken, the assignment window and EBMQA's two-pass protocol, students and models.

Figures are checked against values worked out here from the stored answers' keys (the items'
labels), never by calling the code under test.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot import clock
from quizbot.cli import cli
from quizbot.domain import Assignment, AssignmentMode
from quizbot.errors import InputError
from quizbot.generate.assignments import AssignmentRequest, assignment_items, make_assignment
from quizbot.items import StatementItem
from quizbot.practice.assignments import (
    exam_review,
    second_pass_session,
    start_assignment_session,
)
from quizbot.practice.feedback import WITHHELD
from quizbot.practice.service import answer, next_question
from quizbot.practice.windows import check_window
from storage import Database, open_database
from storage.assignments import assignment_answers, get_assignment
from storage.sessions import load_session
from tests.helpers.stub import stub_server

Z = 1.959963984540054


def hand_wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson score interval straight from the formula."""
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


def check(figure: dict[str, float | None], k: int, n: int) -> None:
    low, high = hand_wilson(k, n)
    assert (figure["k"], figure["n"]) == (k, n)
    assert figure["value"] == pytest.approx(k / n)
    assert figure["low"] == pytest.approx(low)
    assert figure["high"] == pytest.approx(high)


@contextmanager
def _opened(url: str) -> Iterator[Database]:
    db = open_database(url)
    try:
        yield db
    finally:
        db.dispose()


def _make(db: Database, name: str = "wk", **options: object) -> None:
    base: dict[str, object] = {"name": name, "kb": "clinical-core", "points": 4, "seed": "2"}
    make_assignment(db, AssignmentRequest(**{**base, **options}))  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Time taken


def test_a_student_answer_stores_the_time_from_question_shown_to_answer(db: Database) -> None:
    _make(db)
    view = start_assignment_session(db, assignment="wk", student="Ann")
    question = next_question(db, view.id)
    assert question is not None and question.shown_at is not None
    shown = datetime.now(UTC) - timedelta(seconds=3)  # as if it had been on screen for 3 s
    answer(db, view.id, question.id, "true", shown_at=shown)
    after = (datetime.now(UTC) - shown).total_seconds() * 1000
    question = next_question(db, view.id)
    assert question is not None
    answer(db, view.id, question.id, "false")  # a caller that does not hand the time back
    taken = [a.response.latency_ms for a in assignment_answers(db, get_assignment(db, "wk").id)]
    assert taken[1] is None
    assert taken[0] is not None and 3000 <= taken[0] <= after


def test_answers_json_and_exports_carry_the_time_taken(
    monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Path
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    with _opened(database_url) as db:
        _make(db, mode=AssignmentMode.EXAM)
        view = start_assignment_session(db, assignment="wk", student="Bo")
        question = next_question(db, view.id)
        assert question is not None
        answer(db, view.id, question.id, "true", shown_at=datetime.now(UTC) - timedelta(seconds=2))
    runner = CliRunner()
    done = runner.invoke(cli, ["answers", "--assignment", "wk", "--json"])
    assert done.exit_code == 0, done.output
    timed = [
        a["time_taken_ms"]
        for item in json.loads(done.stdout)["items"]
        for a in item["answers"]
        if a["kind"] == "student"
    ]
    assert len(timed) == 1 and timed[0] >= 2000
    out = tmp_path / "rows.jsonl"
    done = runner.invoke(cli, ["assignment", "results", "wk", "--export-jsonl", str(out)])
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["time_taken_ms"] for r in rows if r["record"] == "answer"] == timed


# --------------------------------------------------------------------------------------------
# Window


def test_an_assignment_not_yet_open_cannot_be_started(db: Database) -> None:
    opens = datetime.now(UTC) + timedelta(days=1)
    _make(db, opens_at=opens)
    with pytest.raises(InputError, match=r"opens on .* cannot be started before then"):
        start_assignment_session(db, assignment="wk", student="Cy")


def test_a_closed_assignment_refuses_a_start_and_any_later_answer(db: Database) -> None:
    _make(db, "past", closes_at=datetime.now(UTC) - timedelta(minutes=1))
    with pytest.raises(InputError, match=r"closed on .* can no longer be started"):
        start_assignment_session(db, assignment="past", student="Cy")
    closes = (datetime.now(UTC) + timedelta(hours=1)).replace(second=0, microsecond=0)
    _make(db, "soon", closes_at=closes)
    view = start_assignment_session(db, assignment="soon", student="Cy")
    question = next_question(db, view.id)
    assert question is not None
    # The window reads the clock as each answer arrives: set it instead of sleeping.
    with clock.frozen(closes - timedelta(microseconds=1)):
        answer(db, view.id, question.id, "true")  # still open: taken
    question = next_question(db, view.id)
    assert question is not None
    # the closing moment itself is already late (the window is half-open)
    with (
        clock.frozen(closes),
        pytest.raises(InputError, match=r"closed on .* can no longer be answered"),
    ):
        answer(db, view.id, question.id, "true")
    assert len(load_session(db, view.id).answers) == 1  # nothing written by the refusal


def test_cli_window_is_shown_and_bad_dates_are_user_errors(
    monkeypatch: pytest.MonkeyPatch, database_url: str
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    runner = CliRunner()
    base = ["assignment", "create", "w", "--kb", "clinical-core", "--points", "2"]
    bad = runner.invoke(cli, [*base, "--opens", "next tuesday"])
    assert bad.exit_code == 65 and "--opens" in bad.output and "Traceback" not in bad.output
    bad = runner.invoke(cli, [*base, "--opens", "2030-01-02", "--closes", "2030-01-01"])
    assert bad.exit_code == 65 and "--closes" in bad.output
    bad = runner.invoke(cli, [*base, "--two-pass", "--mode", "practice"])
    assert bad.exit_code == 65 and "--two-pass" in bad.output
    done = runner.invoke(cli, [*base, "--opens", "2030-01-01T09:00", "--closes", "2030-01-08"])
    assert done.exit_code == 0, done.output
    listed = json.loads(runner.invoke(cli, ["assignment", "list", "--json"]).stdout)
    entry = listed["assignments"][0]
    assert entry["opens_at"] == "2030-01-01T09:00:00+00:00"
    assert entry["closes_at"] == "2030-01-08T00:00:00+00:00"
    shown = runner.invoke(cli, ["assignment", "show", "w"])
    assert "opens 2030-01-01T09:00:00+00:00" in shown.output
    assert "closes 2030-01-08T00:00:00+00:00" in shown.output


# --------------------------------------------------------------------------------------------
# Two passes


def _labels(db: Database, name: str) -> dict[str, bool]:
    out = {}
    for item in assignment_items(db, name)[1]:
        assert isinstance(item, StatementItem)
        out[item.id] = item.label
    return out


def _entries(db: Database, session_id: int) -> list[str]:
    return [e["id"] for e in load_session(db, session_id).session.config["items"]]


def test_student_two_pass_keeps_both_passes_and_reports_with_and_without_guessing(
    monkeypatch: pytest.MonkeyPatch, database_url: str
) -> None:
    """Student: pass 1 "true" on true items, "I don't know" on false ones; pass 2 guesses
    "true" on the first abstained item and "false" on the rest."""
    monkeypatch.setenv("DATABASE_URL", database_url)
    with _opened(database_url) as db:
        _make(db, points=6, two_pass=True, mode=AssignmentMode.EXAM)
        labels = _labels(db, "wk")
        n = len(labels)
        n_true = sum(labels.values())
        assert 0 < n_true < n  # both kinds of item, or the test proves nothing
        view = start_assignment_session(db, assignment="wk", student="Di")
        order = _entries(db, view.id)
        while (question := next_question(db, view.id)) is not None:
            item_id = order[question.position - 1]
            said = answer(db, view.id, question.id, "true" if labels[item_id] else "idk")
            assert said.outcome == WITHHELD  # even the last: a second pass follows
        with pytest.raises(InputError, match="second pass"):
            exam_review(db, view.id)
        second = second_pass_session(db, view.id)
        assert second is not None and second.total == n - n_true
        again = start_assignment_session(db, assignment="wk", student="di")
        assert again.id == second.id  # resuming goes to the second pass
        asked = _entries(db, second.id)
        assert set(asked) == {i for i, label in labels.items() if not label}
        first_q = next_question(db, second.id)
        assert first_q is not None
        with pytest.raises(InputError, match="best guess"):
            answer(db, second.id, first_q.id, "I don't know")
        while (question := next_question(db, second.id)) is not None:
            answer(db, second.id, question.id, "true" if question.position == 1 else "false")
        review = exam_review(db, view.id)  # both passes done: now it is shown
        assert len(review) == n
        stored = assignment_answers(db, get_assignment(db, "wk").id)
        passes = [a.response.answer_pass for a in stored]
        assert passes.count(1) == n and passes.count(2) == n - n_true
    done = CliRunner().invoke(cli, ["assignment", "results", "wk", "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["two_pass"] is True
    (di,) = data["respondents"]
    m = di["metrics"]
    guesses_right = n - n_true - 1  # all but the first guess ("true" on a false item)
    check(m["accuracy"], n_true, n)
    check(m["accuracy_without_guessing"], n_true, n)
    check(m["answer_rate"], n_true, n)
    check(m["accuracy_with_guessing"], n_true + guesses_right, n)
    check(m["answer_rate_with_guessing"], n, n)
    check(m["guess_accuracy"], guesses_right, n - n_true)
    assert di["n_items"] == n


def test_model_two_pass_asks_abstained_items_again_with_a_forced_prompt(
    monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Path
) -> None:
    """A model sure of true statements only: pass 1 abstains on every false one; pass 2, pushed,
    answers them right. Over real HTTP through ``quizbot eval --assignment``."""
    monkeypatch.setenv("DATABASE_URL", database_url)
    runner = CliRunner()
    made = runner.invoke(
        cli, ["assignment", "create", "tp", "--kb", "clinical-core", "--points", "6",
              "--seed", "2", "--two-pass"],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    items = tmp_path / "items.jsonl"
    assert runner.invoke(cli, ["assignment", "export", "tp", "--out", str(items)]).exit_code == 0
    keys = [json.loads(line) for line in items.read_text().splitlines()]
    n = len(keys)
    n_true = sum(bool(k["label"]) for k in keys)
    assert 0 < n_true < n
    with stub_server("--oracle", str(items), "--policy", "unsure") as url:
        done = runner.invoke(
            cli, ["eval", "--assignment", "tp", "--model", "openai/unsure", "--api-base", url,
                  "--style", "chat", "--json"],
        )  # fmt: skip
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert "second_pass" in report
    answers = json.loads(runner.invoke(cli, ["answers", "--assignment", "tp", "--json"]).stdout)
    model = [a for item in answers["items"] for a in item["answers"]]
    first = [a for a in model if a["answer_pass"] == 1]
    second = [a for a in model if a["answer_pass"] == 2]
    assert len(first) == n and len(second) == n - n_true
    assert all("I do not know" in a["prompt"] for a in first)
    assert all("best guess" in a["prompt"] for a in second)
    assert {a["parsed_answer"] for a in second} == {"false"}
    results = json.loads(runner.invoke(cli, ["assignment", "results", "tp", "--json"]).stdout)
    (m,) = [r for r in results["respondents"] if r["kind"] == "model"]
    check(m["metrics"]["accuracy"], n_true, n)
    check(m["metrics"]["answer_rate"], n_true, n)
    check(m["metrics"]["accuracy_with_guessing"], n, n)
    check(m["metrics"]["guess_accuracy"], n - n_true, n - n_true)
    assert m["second_pass_run_id"] is not None


def test_the_window_is_half_open_an_answer_at_the_closing_moment_is_late() -> None:
    opens = datetime(2030, 1, 1, 9, 0, tzinfo=UTC)
    closes = datetime(2030, 1, 1, 10, 0, tzinfo=UTC)
    exam = Assignment(
        id=1, name="wk", kb_name="clinical-core", mode=AssignmentMode.EXAM.value, cohort=None,
        opens_at=opens, closes_at=closes, config={}, created_at=opens,
    )  # fmt: skip
    check_window(exam, "answered", now=opens)  # open from its opening moment on
    check_window(exam, "answered", now=closes - timedelta(microseconds=1))
    with pytest.raises(InputError, match=r"closed on .* can no longer be answered"):
        check_window(exam, "answered", now=closes)
    with pytest.raises(InputError, match=r"opens on .* cannot be started before then"):
        check_window(exam, "started", now=opens - timedelta(microseconds=1))
