"""One protocol per assignment: students and models are offered the same choices.

The student's choices are read from the practice service's question (what the page renders as
buttons and options); the model's from the prompt its run stored. A run asked under another
protocol is listed apart with why and never tested; a typed flag that contradicts the protocol
is refused before anything is recorded.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.errors import InputError
from quizbot.evaluation.runner import RunConfig, execute, prepare_run
from quizbot.generate.assignments import assignment_items
from quizbot.items import is_idk_option
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.service import answer, next_question
from quizbot.providers import get_provider
from storage import open_database
from storage.repo import list_runs
from storage.sessions import load_session


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def _ok(runner: CliRunner, *args: str) -> dict[str, Any]:
    done = runner.invoke(cli, list(args))
    assert done.exit_code == 0, done.output
    if "--json" not in args:
        return {}
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _norm(choices: list[str]) -> list[str]:
    """The same choice however it is spelled ("I don't know" on a button, "I do not know" in a
    prompt)."""
    return ["I do not know" if is_idk_option(c) else c for c in choices]


def _model_choices(prompt: str) -> list[str]:
    options = re.findall(r"^[A-Z]\. (.+)$", prompt, flags=re.MULTILINE)
    if options:
        return options
    asked = re.search(r"Please answer (.+)\.\s*$", prompt.strip())
    assert asked is not None, prompt
    head, _, last = asked.group(1).rpartition(" or ")
    return [*head.split(", "), last]


def _student_choices(database_url: str, name: str) -> dict[str, list[str]]:
    """Item id -> the choices the practice page offers for it (buttons and options)."""
    db = open_database(database_url)
    try:
        view = start_assignment_session(db, assignment=name, student="ana")
        entries = load_session(db, view.id).session.config["items"]
        offered: dict[str, list[str]] = {}
        while (question := next_question(db, view.id)) is not None:
            if question.options:
                shown = [o.text for o in question.options]
                if question.idk and not any(is_idk_option(o) for o in shown):
                    shown.append("I don't know")  # the page's button
            else:
                shown = list(question.quick_replies)
            offered[entries[question.position - 1]["id"]] = shown
            answer(db, view.id, question.id, "true" if question.kind == "statement" else "A")
        return offered
    finally:
        db.dispose()


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("with-idk", ["--format", "mixed"]),
        ("without-idk", ["--format", "statements", "--no-idk"]),
    ],
)
def test_the_model_prompt_offers_exactly_the_student_pages_choices(
    runner: CliRunner, database_url: str, name: str, options: list[str]
) -> None:
    _ok(runner, "assignment", "create", name, "--kb", "clinical-core", "--points", "4",
        "--seed", "1", *options)  # fmt: skip
    students = _student_choices(database_url, name)
    _ok(runner, "eval", "--assignment", name, "--model", "baseline/always-true", "--json")
    stored = _ok(runner, "answers", "--assignment", name, "--json")
    models = {
        item["id"]: _model_choices(a["prompt"])
        for item in stored["items"]
        for a in item["answers"]
        if a["kind"] == "model"
    }
    assert models.keys() == students.keys() and len(models) >= 4
    for item_id, offered in students.items():
        assert _norm(models[item_id]) == _norm(offered), item_id
    idk = "without" not in name
    assert all(("I do not know" in _norm(c)) is idk for c in models.values())


def test_no_idk_is_refused_on_the_student_page_and_a_contrary_flag_names_the_setting(
    runner: CliRunner, database_url: str
) -> None:
    _ok(runner, "assignment", "create", "strict", "--kb", "clinical-core", "--points", "3",
        "--no-idk")  # fmt: skip
    db = open_database(database_url)
    try:
        view = start_assignment_session(db, assignment="strict", student="bo")
        question = next_question(db, view.id)
        assert question is not None and question.idk is False
        assert question.quick_replies == ["True", "False"]
        with pytest.raises(InputError, match="does not offer"):
            answer(db, view.id, question.id, "I don't know")
        n_runs = len(list_runs(db))
    finally:
        db.dispose()
    refused = runner.invoke(cli, ["eval", "--assignment", "strict", "--model",
                                  "baseline/always-true", "--idk"])  # fmt: skip
    assert refused.exit_code == 65
    assert "strict" in refused.output and 'does not offer "I do not know"' in refused.output
    shots = runner.invoke(
        cli,
        ["eval", "--assignment", "strict", "--model", "baseline/always-true", "--prompt", "sdak"],
    )
    assert shots.exit_code == 65 and "PretexEval" in shots.output
    db = open_database(database_url)
    try:
        assert len(list_runs(db)) == n_runs  # nothing recorded
    finally:
        db.dispose()


def test_a_run_under_another_protocol_is_listed_apart_and_not_tested(
    runner: CliRunner, database_url: str
) -> None:
    _ok(runner, "assignment", "create", "wk", "--kb", "clinical-core", "--points", "6")
    _student_choices(database_url, "wk")  # one student answers
    db = open_database(database_url)
    try:
        found, items = assignment_items(db, "wk")
        # As runs were made before protocols: no "I do not know" offered.
        run_id = prepare_run(
            db, items, RunConfig(model="baseline/majority", idk=False), assignment_id=found.id
        )
        asyncio.run(execute(db, run_id, get_provider("baseline/majority")))
    finally:
        db.dispose()
    _ok(runner, "eval", "--assignment", "wk", "--model", "baseline/always-true")
    results = _ok(runner, "assignment", "results", "wk", "--json")
    names = {r["name"] for r in results["respondents"]}
    assert names == {"ana", "baseline/always-true"}
    (apart,) = results["other_protocol_runs"]
    assert (apart["name"], apart["run_id"]) == ("baseline/majority", run_id)
    assert apart["why"] == [
        'answers offered: without "I do not know"; the assignment\'s are with it'
    ]
    assert all(t["b"] != "baseline/majority" for t in results["model_tests"])
    model = next(r for r in results["respondents"] if r["kind"] == "model")
    assert model["protocol"]["idk"] is True and model["protocol"]["matches"] is True
    text = runner.invoke(cli, ["assignment", "results", "wk"]).output
    assert "not compared: baseline/majority" in text
