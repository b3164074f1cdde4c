"""Choice items without an "I do not know" option (imported item banks) are valid items.

Such an item once crashed `quizbot eval` ("internal error ... this is a bug") and left an
interrupted run: the prompt builder insisted that the last option be "I do not know".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.domain import Outcome
from quizbot.evaluation.parse import parse_and_score
from quizbot.evaluation.prompts import build_prompt
from quizbot.evaluation.runner import RunConfig, build_request
from quizbot.items import I_DO_NOT_KNOW, ChoiceItem

NO_IDK = ChoiceItem(
    kb="clinical-core",
    kb_version="1",
    relation="mcq",
    head="q1",
    question="Which drug is a beta blocker?",
    options=("Metoprolol", "Amlodipine", "Lisinopril", "Furosemide"),
    answer_keys=("A",),
    subtype="semantic",
    knowledge_point_ids=(),
)


def test_asked_with_its_own_options_and_idk_only_when_asked_for() -> None:
    plain = build_prompt(NO_IDK).text
    assert "D. Furosemide" in plain and "E." not in plain and I_DO_NOT_KNOW not in plain
    offered = build_prompt(NO_IDK, idk=True).text
    assert f"D. Furosemide\nE. {I_DO_NOT_KNOW}\n" in offered
    # An item that has its own IDK option is never given a second one.
    own = ChoiceItem("k", "1", "r", "h", "Q?", ("a", "b", "I don't know"), ("A",), "semantic", ())
    assert own.offered_options(True) == own.options
    assert build_prompt(own, idk=True).text.count("know") == 1


def test_baselines_may_pick_every_real_option_but_never_an_added_idk() -> None:
    for idk in (False, True):
        request = build_request(NO_IDK, (), RunConfig(model="baseline/random", idk=idk), set())
        assert request.options == ("A", "B", "C", "D")


def test_answers_are_read_against_the_options_offered() -> None:
    assert parse_and_score("D", NO_IDK, idk_offered=False)[1] is Outcome.INCORRECT
    assert parse_and_score("A", NO_IDK, idk_offered=False)[1] is Outcome.CORRECT
    # The added option E is "I do not know" only when it was offered.
    parsed, outcome = parse_and_score("E", NO_IDK, idk_offered=True)
    assert outcome is Outcome.ABSTAINED and parsed.abstained
    parsed, outcome = parse_and_score("E", NO_IDK, idk_offered=False)
    assert outcome is Outcome.UNPARSED and "out of range" in parsed.reason


def test_cli_eval_of_an_item_without_idk_completes(
    monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Path
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(NO_IDK.to_json()) + "\n", encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(
        cli, ["eval", "--model", "baseline/majority", "--items", str(items), "--json"]
    )
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["status"] == "completed" and report["metrics"]["average_accuracy"] == 1.0
    listed = json.loads(runner.invoke(cli, ["runs", "list", "--json"]).stdout)["runs"]
    assert [r["status"] for r in listed] == ["completed"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"options": ["only one"]}, "needs 2 to 10 options"),
        ({"options": "Metoprolol"}, "options must be a list"),
        ({"answer_keys": ["F"]}, "must be distinct letters among ABCD"),
        ({"answer_keys": ["A", "A"]}, "must be distinct letters among ABCD"),
        ({"answer_keys": []}, "non-empty list"),
    ],
)
def test_a_choice_shape_quizbot_did_not_write_is_a_user_error_and_leaves_no_run(
    monkeypatch: pytest.MonkeyPatch,
    database_url: str,
    tmp_path: Path,
    change: dict[str, object],
    message: str,
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    record = {**NO_IDK.to_json(), **change}
    record.pop("id")
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(NO_IDK.to_json()) + "\n" + json.dumps(record) + "\n")
    runner = CliRunner()
    done = runner.invoke(cli, ["eval", "--model", "baseline/random", "--items", str(items)])
    assert done.exit_code == 65 and f"{items}, line 2" in done.stderr and message in done.stderr
    assert "internal error" not in done.stderr
    listed = json.loads(runner.invoke(cli, ["runs", "list", "--json"]).stdout)["runs"]
    assert listed == []


def test_a_statement_label_must_be_a_boolean() -> None:
    from quizbot.items import StatementItem, item_from_json

    statement = {
        "kind": "statement", "kb": "k", "kb_version": "1", "relation": "r", "head": "h",
        "tail": "t", "polarity": "positive", "prototype_set": "", "transform": "none",
        "label": "false", "text": "h has t.", "prototype": "",
    }  # fmt: skip
    with pytest.raises(ValueError, match="label must be true or false"):
        item_from_json(statement)
    loaded = item_from_json({**statement, "label": False})
    assert isinstance(loaded, StatementItem)
    assert loaded.label is False
