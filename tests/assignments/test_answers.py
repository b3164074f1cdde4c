"""`quizbot answers`: every respondent's answer to every item of a tiny assignment.

Two scripted students (ann right on everything, bob "true" to everything) and one baseline model
(``baseline/always-true`` through ``quizbot eval --assignment``). The model's prompt and raw text
must be exactly what the runner stored; a student's ``feedback_shown_before`` follows the rule in
:mod:`quizbot.analysis.answers` (practice: an earlier answer on the same fact; exam: never).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quizbot.analysis.answers import NO_REASON
from quizbot.cli import cli
from quizbot.generate.assignments import assignment_items
from quizbot.items import ChoiceItem, StatementItem
from storage import open_database
from storage.repo import list_responses
from tests.assignments.test_results import _take


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def _ok(runner: CliRunner, *args: str) -> str:
    done = runner.invoke(cli, list(args))
    assert done.exit_code == 0, done.output
    return done.stdout


def _fact(item: StatementItem | ChoiceItem) -> str:
    assert isinstance(item, StatementItem)
    return item.fact_id


def _make(runner: CliRunner, database_url: str, mode: str) -> tuple[list[Any], int]:
    _ok(runner, "assignment", "create", "wk", "--kb", "clinical-core", "--points", "2",
        "--seed", "3", "--all-variants", "--mode", mode)  # fmt: skip
    db = open_database(database_url)
    try:
        _take(db, "ann", lambda item, first: "true" if item.label else "false")
        _take(db, "bob", "true")
        _, items = assignment_items(db, "wk")
    finally:
        db.dispose()
    ran = _ok(runner, "eval", "--assignment", "wk", "--model", "baseline/always-true", "--json")
    return items, int(json.loads(ran)["run_id"])


def test_answers_json_lists_every_answer_with_what_was_stored(
    runner: CliRunner, database_url: str
) -> None:
    items, run_id = _make(runner, database_url, "practice")
    data = json.loads(_ok(runner, "answers", "--assignment", "wk", "--json"))
    assert data["assignment"] == "wk"
    assert [i["id"] for i in data["items"]] == [i.id for i in items]

    db = open_database(database_url)
    try:
        stored = {r.item_id: r for r in list_responses(db, run_id=run_id)}
    finally:
        db.dispose()
    by_id = {i.id: i for i in items}
    for entry in data["items"]:
        item = by_id[entry["id"]]
        assert isinstance(item, StatementItem)
        assert (entry["kind"], entry["text"]) == ("statement", item.text)
        assert entry["key"] == ("true" if item.label else "false")
        answers = {a["respondent"]: a for a in entry["answers"]}
        assert list(answers) == ["ann", "bob", "baseline/always-true"]
        ann, bob, model = answers["ann"], answers["bob"], answers["baseline/always-true"]
        assert (ann["kind"], bob["kind"], model["kind"]) == ("student", "student", "model")
        assert ann["outcome"] == "correct" and ann["answer"] == entry["key"]
        assert bob["answer"] == "true" and bob["parsed_answer"] == "true"
        for student in (ann, bob):
            assert student["time_taken_ms"] is None and student["time_taken_note"]
            assert isinstance(student["feedback_shown_before"], bool)
        record = stored[item.id]
        assert model["run_id"] == run_id
        assert model["prompt"] == record.prompt and model["prompt"]
        assert model["raw_text"] == record.raw_text
        assert model["parsed_answer"] == record.parsed_answer == "true"
        assert model["outcome"] == ("correct" if item.label else "incorrect")
        assert model["why"] == (record.parse_reason or NO_REASON)

    # Practice: feedback follows each answer, so a student's later answer on a fact already
    # answered has seen it. Sessions answer in their own order: replay it per student.
    for name in ("ann", "bob"):
        mine = sorted(
            ((a["answered_at"], e["id"], a) for e in data["items"] for a in e["answers"]
             if a["respondent"] == name),
            key=lambda t: t[0],
        )  # fmt: skip
        seen: set[str] = set()
        for _, item_id, answer in mine:
            fact = _fact(by_id[item_id])
            assert answer["feedback_shown_before"] is (fact in seen), (name, item_id)
            seen.add(fact)
        assert any(a["feedback_shown_before"] for _, _, a in mine)

    one = json.loads(_ok(runner, "answers", "--assignment", "wk", "--item", items[0].id, "--json"))
    assert [i["id"] for i in one["items"]] == [items[0].id]
    text = _ok(runner, "answers", "--assignment", "wk", "--item", items[0].id)
    assert "student ann" in text and "model   baseline/always-true" in text and "prompt:" in text
    run = json.loads(_ok(runner, "answers", "--run", str(run_id), "--json"))
    assert run["run_id"] == run_id and len(run["items"]) == len(items)
    assert all([a["kind"] for a in i["answers"]] == ["model"] for i in run["items"])


def test_exam_answers_never_had_feedback_and_errors_are_user_safe(
    runner: CliRunner, database_url: str
) -> None:
    _make(runner, database_url, "exam")
    data = json.loads(_ok(runner, "answers", "--assignment", "wk", "--json"))
    students = [a for i in data["items"] for a in i["answers"] if a["kind"] == "student"]
    assert len(students) == 2 * len(data["items"])
    assert not any(a["feedback_shown_before"] for a in students)

    for args, code, words in (
        (["answers", "--assignment", "nope"], 66, "no assignment 'nope'"),
        (["answers", "--assignment", "wk", "--item", "x"], 66, "not in assignment"),
        (["answers"], 65, "exactly one of"),
        (["answers", "--run", "999"], 66, "999"),
    ):
        done = runner.invoke(cli, args)
        assert done.exit_code == code, done.output
        assert words in done.output and "Traceback" not in done.output


def test_exports_hold_every_respondent_and_the_results_figures(
    runner: CliRunner, database_url: str, tmp_path: Path
) -> None:
    items, _ = _make(runner, database_url, "practice")
    results = json.loads(_ok(runner, "assignment", "results", "wk", "--json"))
    out = tmp_path / "out"
    out.mkdir()
    csv_path, jsonl_path = out / "wk.csv", out / "wk.jsonl"
    done = runner.invoke(cli, ["assignment", "results", "wk", "--json", "--export-csv",
                               str(csv_path), "--export-jsonl", str(jsonl_path)])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) == results  # --json is unchanged by the exports
    assert sorted(p.name for p in out.iterdir()) == ["wk.csv", "wk.jsonl"]  # no temp files

    rows = [json.loads(line) for line in jsonl_path.read_text(encoding="utf-8").splitlines()]
    with csv_path.open(encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == len(rows)
    for flat, cells in zip(rows, table, strict=True):
        assert {k: "" if v is None else str(v) for k, v in flat.items() if
                not isinstance(v, list | dict)} == {k: cells[k] for k in flat if
                not isinstance(flat[k], list | dict)}  # fmt: skip

    people = {r["respondent"]: r for r in rows if r["record"] == "respondent"}
    assert set(people) == {"ann", "bob", "baseline/always-true"}
    for expected in results["respondents"]:
        row = people[expected["name"]]
        assert (row["kind"], row["n_items"]) == (expected["kind"], expected["n_items"])
        for metric in ("accuracy", "answer_rate", "joint_accuracy"):
            figure = expected["metrics"][metric]
            assert row[metric] == figure["value"]
            assert (row[f"{metric}_low"], row[f"{metric}_high"]) == (figure["low"], figure["high"])
            assert (row[f"{metric}_k"], row[f"{metric}_n"]) == (figure["k"], figure["n"])
        assert row["percentile"] == expected.get("percentile")
    (model,) = [r for r in results["respondents"] if r["kind"] == "model"]
    tests = [r for r in rows if r["record"] == "test"]
    assert len(tests) == len(model["tests"]) > 0
    for row, expected in zip(tests, model["tests"], strict=True):
        assert row["p_value"] == expected["p_value"]
        assert row["p_adjusted"] == expected["p_adjusted"]
    answers = [r for r in rows if r["record"] == "answer"]
    assert len(answers) == 3 * len(items)
    assert {(r["item_id"], r["respondent"]) for r in answers} == {
        (i.id, who) for i in items for who in ("ann", "bob", "baseline/always-true")
    }
    assert all(r["prompt"] for r in answers if r["kind"] == "model")

    before = csv_path.read_text(encoding="utf-8")
    for bad in (out / "missing" / "x.csv", out):
        failed = runner.invoke(cli, ["assignment", "results", "wk", "--export-csv", str(bad)])
        assert failed.exit_code == 65, failed.output
        assert str(bad) in failed.output and "Traceback" not in failed.output
    assert csv_path.read_text(encoding="utf-8") == before
    # One bad target writes nothing at all.
    fresh = out / "fresh.csv"
    both = runner.invoke(cli, ["assignment", "results", "wk", "--export-csv", str(fresh),
                               "--export-jsonl", str(out / "no" / "x.jsonl")])  # fmt: skip
    assert both.exit_code == 65 and not fresh.exists()
