"""An open recall assignment through the CLI: `assignment create --format recall`, students answer
in their recall sessions, `assignment results` (text, JSON, CSV export) and the Assignments tab's
results page show mean F1 per aspect. Expected F1s are counted by hand from the answers given."""

from __future__ import annotations

import csv
import json
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.generate.service import load_any_items
from quizbot.items import RecallItem
from quizbot.practice.service import answer_recall, next_recall_question, start_recall_assignment
from quizbot.ui.assignments import render_results
from storage import open_database
from storage.sessions import load_session


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def _ok(runner: CliRunner, *args: str) -> str:
    done = runner.invoke(cli, list(args))
    assert done.exit_code == 0, done.output
    return done.stdout


def test_a_recall_assignment_from_the_cli_to_its_results(
    runner: CliRunner, database_url: str, tmp_path: Path
) -> None:
    made = json.loads(
        _ok(
            runner,
            "assignment",
            "create",
            "rc",
            "--kb",
            "clinical-core",
            "--format",
            "recall",
            "--points",
            "4",
            "--seed",
            "7",
            "--json",
        )
    )
    assert made["n_items"] == 4 and made["config"]["format"] == "recall"
    bad = runner.invoke(cli, ["assignment", "create", "rc2", "--kb", "clinical-core",
                              "--format", "recall", "--two-pass"])  # fmt: skip
    assert bad.exit_code == 65 and "recall" in bad.output

    f1s: dict[str, list[float]] = defaultdict(list)
    db = open_database(database_url)
    try:
        view = start_recall_assignment(db, assignment="rc", student="Una")
        entries = load_session(db, view.id).session.config["items"]
        while (question := next_recall_question(db, view.id)) is not None:
            item = load_any_items(db, [entries[question.position - 1]["id"]])[0]
            assert isinstance(item, RecallItem)
            named = list(item.answers[:1])
            answer_recall(db, view.id, question.id, ", ".join(named))
            recall = len(named) / len(item.answers)
            f1s[item.aspect].append(2 * recall / (1 + recall))
    finally:
        db.dispose()

    text = _ok(runner, "assignment", "results", "rc")
    every = [f for values in f1s.values() for f in values]
    assert f"mean F1 {statistics.mean(every):.3f}" in text
    out = tmp_path / "rc.csv"
    results = json.loads(_ok(runner, "assignment", "results", "rc", "--json",
                             "--export-csv", str(out)))  # fmt: skip
    (una,) = [r for r in results["respondents"] if r["kind"] == "student"]
    for aspect, values in f1s.items():
        assert una["recall"]["by_aspect"][aspect]["f1"]["mean"] == pytest.approx(
            statistics.mean(values)
        )
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert any(r["record"] == "respondent" and r["respondent"] == "una" for r in rows)
    page = render_results(results)
    assert "Open recall: mean F1 per aspect" in page
    assert f"{statistics.mean(every):.3f}" in page and "no finished model run" in page


def test_a_recall_items_file_makes_a_recall_assignment_and_is_never_mixed(
    runner: CliRunner, tmp_path: Path
) -> None:
    _ok(runner, "assignment", "create", "rc", "--kb", "clinical-core", "--format", "recall",
        "--points", "3", "--seed", "2")  # fmt: skip
    exported = tmp_path / "rc.jsonl"
    _ok(runner, "assignment", "export", "rc", "--out", str(exported))
    lines = exported.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and all(json.loads(line)["kind"] == "recall" for line in lines)
    made = json.loads(_ok(runner, "assignment", "create", "rc-file", "--kb", "clinical-core",
                          "--items", str(exported), "--json"))  # fmt: skip
    assert made["config"]["format"] == "recall" and made["n_items"] == 3
    _ok(runner, "assignment", "create", "st", "--kb", "clinical-core", "--points", "1")
    statements = tmp_path / "st.jsonl"
    _ok(runner, "assignment", "export", "st", "--out", str(statements))
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(lines[0] + "\n" + statements.read_text(encoding="utf-8"), encoding="utf-8")
    bad = runner.invoke(cli, ["assignment", "create", "mx", "--kb", "clinical-core",
                              "--items", str(mixed)])  # fmt: skip
    assert bad.exit_code == 65 and "mixed" in bad.output and "line 2" in bad.output
