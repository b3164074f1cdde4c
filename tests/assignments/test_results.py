"""An assignment end to end through the CLI and the practice service, figures checked by hand.

The assignment: clinical-core, 2 facts, ``--all-variants`` (each fact's 8 variants and its
negative's 8: 32 true/false statements, 4 complete knowledge-point sides). Respondents:
  ann               answers every item right                         32/32, joint 4/4
  bob               answers "true" to everything, except "I don't know" on his first item
                    whose key is True                                (#True keys - 1)/32
  baseline/always-true (quizbot eval --assignment)                   #True keys/32, joint 0/4
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.generate.assignments import assignment_items
from quizbot.items import StatementItem
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.service import answer, next_question
from storage import Database, open_database

Z = 1.959963984540054


def hand_wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson score interval straight from the formula."""
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def check(figure: dict[str, float | None], k: int, n: int) -> None:
    low, high = hand_wilson(k, n)
    assert (figure["k"], figure["n"]) == (k, n)
    assert figure["value"] == pytest.approx(k / n)
    assert figure["low"] == pytest.approx(low)
    assert figure["high"] == pytest.approx(high)


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def _json(runner: CliRunner, *args: str) -> dict[str, object]:
    done = runner.invoke(cli, list(args))
    assert done.exit_code == 0, done.output
    data: dict[str, object] = json.loads(done.stdout)
    return data


def _take(db: Database, student: str, reply: object, assignment: str = "wk") -> None:
    view = start_assignment_session(db, assignment=assignment, student=student)
    items = {i.id: i for i in assignment_items(db, assignment)[1]}
    from storage.sessions import load_session

    entries = load_session(db, view.id).session.config["items"]
    first = True
    while (question := next_question(db, view.id)) is not None:
        item = items[entries[question.position - 1]["id"]]
        assert isinstance(item, StatementItem)
        text = reply(item, first) if callable(reply) else str(reply)
        first = False
        answer(db, view.id, question.id, text)


def test_results_match_hand_computed_figures_and_ignore_unrelated_runs(
    runner: CliRunner, database_url: str, tmp_path: Path
) -> None:
    made = runner.invoke(
        cli, ["assignment", "create", "wk", "--kb", "clinical-core", "--points", "2",
              "--seed", "3", "--all-variants", "--json"],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert json.loads(made.stdout)["n_items"] == 32
    again = runner.invoke(cli, ["assignment", "create", "wk", "--kb", "clinical-core"])
    assert again.exit_code == 65 and "already exists" in again.output

    db = open_database(database_url)
    try:
        _, items = assignment_items(db, "wk")
        n_true = sum(bool(i.label) for i in items if isinstance(i, StatementItem))
        _take(db, "ann", lambda item, first: "true" if item.label else "false")
        skipped: list[bool] = []

        def bob(item: StatementItem, first: bool) -> str:
            if item.label and not skipped:
                skipped.append(True)
                return "I don't know"
            return "true"

        _take(db, "bob", bob)
    finally:
        db.dispose()

    ran = runner.invoke(
        cli, ["eval", "--assignment", "wk", "--model", "baseline/always-true", "--json"]
    )
    assert ran.exit_code == 0, ran.output
    run_id = json.loads(ran.stdout)["run_id"]
    results = _json(runner, "assignment", "results", "wk", "--json")
    by_name = {r["name"]: r for r in results["respondents"]}  # type: ignore[attr-defined]
    assert set(by_name) == {"ann", "bob", "baseline/always-true"}
    ann, bob_r, model = by_name["ann"], by_name["bob"], by_name["baseline/always-true"]
    assert (ann["kind"], bob_r["kind"], model["kind"]) == ("student", "student", "model")
    assert ann["n_items"] == bob_r["n_items"] == model["n_items"] == 32
    check(ann["metrics"]["accuracy"], 32, 32)
    check(ann["metrics"]["joint_accuracy"], 4, 4)
    check(bob_r["metrics"]["accuracy"], n_true - 1, 32)
    check(bob_r["metrics"]["answer_rate"], 31, 32)
    check(bob_r["metrics"]["joint_accuracy"], 0, 4)
    check(model["metrics"]["accuracy"], n_true, 32)
    check(model["metrics"]["answer_rate"], 32, 32)
    check(model["metrics"]["joint_accuracy"], 0, 4)
    assert model["run_id"] == run_id
    # Students' differences (student - model, correct answers): ann +(32 - n_true), bob -1.
    # Matched percentile, ties half: one student below the model, one above -> 50.
    assert model["percentile"] == pytest.approx(50.0)
    (overall,) = [t for t in model["tests"] if t["scope"] == "overall"]
    k_a, n_a, k_b, n_b = 32 + n_true - 1, 64, n_true, 32
    # Clustered by respondent and item (its p is checked by hand in test_fair_statistics.py).
    assert overall["test"] == "cluster_robust_t"
    assert (overall["n_a"], overall["n_b"]) == (n_a, n_b)
    assert overall["difference"] == pytest.approx(k_b / n_b - k_a / n_a)
    assert 0 < overall["p_value"] <= 1

    # A later run of the same model that is not made for the assignment changes nothing.
    export = tmp_path / "wk.jsonl"
    assert runner.invoke(cli, ["assignment", "export", "wk", "--out", str(export)]).exit_code == 0
    assert len(export.read_text().splitlines()) == 32
    other = runner.invoke(
        cli, ["eval", "--items", str(export), "--model", "baseline/always-true", "--json"]
    )
    assert other.exit_code == 0, other.output
    assert _json(runner, "assignment", "results", "wk", "--json") == results
    # Nor does a student answering the same items on another assignment.
    copy = runner.invoke(cli, ["assignment", "create", "wk2", "--kb", "clinical-core",
                               "--items", str(export)])  # fmt: skip
    assert copy.exit_code == 0, copy.output
    db = open_database(database_url)
    try:
        _take(db, "dan", "false", assignment="wk2")
    finally:
        db.dispose()
    assert _json(runner, "assignment", "results", "wk", "--json") == results
    dan = _json(runner, "assignment", "results", "wk2", "--json")["respondents"]
    assert [r["name"] for r in dan] == ["dan"]  # type: ignore[attr-defined]
    # A later run made for the assignment is the one used.
    newer = runner.invoke(
        cli, ["eval", "--assignment", "wk", "--model", "baseline/always-true", "--json"]
    )
    later = _json(runner, "assignment", "results", "wk", "--json")
    models = [r for r in later["respondents"] if r["kind"] == "model"]  # type: ignore[attr-defined]
    assert [m["run_id"] for m in models] == [json.loads(newer.stdout)["run_id"]]


def test_list_show_and_unknown_assignment(runner: CliRunner) -> None:
    assert _json(runner, "assignment", "list", "--json") == {"assignments": []}
    made = runner.invoke(
        cli, ["assignment", "create", "q", "--kb", "clinical-core", "--points", "3",
              "--mode", "exam", "--cohort", "Y3"],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    listed = _json(runner, "assignment", "list", "--json")["assignments"]
    assert [(a["name"], a["mode"], a["cohort"], a["n_items"]) for a in listed] == [  # type: ignore[attr-defined]
        ("q", "exam", "Y3", 3)
    ]
    shown = _json(runner, "assignment", "show", "q", "--json")
    assert len(shown["item_ids"]) == 3  # type: ignore[arg-type]
    missing = runner.invoke(cli, ["assignment", "results", "nope", "--json"])
    assert missing.exit_code == 66 and "no assignment 'nope'" in missing.output
    none = runner.invoke(cli, ["eval", "--assignment", "nope", "--model", "baseline/random"])
    assert none.exit_code == 66
