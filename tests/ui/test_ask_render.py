"""The "Ask a model" tab without a browser: its helpers, the baselines and a logged batch."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from quizbot.config import Settings
from quizbot.domain import Outcome
from quizbot.errors import InputError
from quizbot.items import ChoiceItem
from quizbot.transforms import Transform
from quizbot.ui.ask import (
    ANSWER_HEADERS,
    ModelAnswer,
    answer_table,
    ask_models,
    batch_breakdown,
    batch_table,
    custom_statement,
    describe_item,
    run_batch,
    truth_of,
)
from quizbot.ui.context import UiContext
from quizbot.ui.render import format_estimate as format_proportion
from storage import Database
from storage.repo import list_responses, list_runs


def test_truth_choices_map_to_a_label_or_unknown() -> None:
    assert truth_of("True") is True
    assert truth_of("False") is False
    assert truth_of("Unknown") is None
    assert truth_of(None) is None


def test_a_typed_statement_becomes_an_item_with_the_chosen_truth() -> None:
    false = custom_statement("  Insulin   raises\nblood glucose. ", False)
    assert false.text == "Insulin raises blood glucose."
    assert false.label is False
    assert false.kb == "custom"
    assert false.transform is Transform.NONE
    assert custom_statement("Insulin lowers blood glucose.", True).label is True
    with pytest.raises(InputError, match="type a statement"):
        custom_statement("   ", True)
    with pytest.raises(InputError, match="longer than"):
        custom_statement("x" * 1001, None)


def test_answer_table_shows_raw_parsed_correctness_source_and_errors() -> None:
    answers = [
        ModelAnswer("m/a", "True.", "true", "keyword", Outcome.INCORRECT, latency_ms=12.4),
        ModelAnswer("m/b", "I do not know", "idk", "idk phrase", Outcome.ABSTAINED, cached=True),
        ModelAnswer("m/c", "Hmm", None, "nothing", None),
        ModelAnswer("m/d", None, None, "down", None, error="connection refused"),
        ModelAnswer("m/e", "A and C", "A,C", "letters", Outcome.CORRECT),
    ]
    table = answer_table(answers)
    assert table["headers"] == ANSWER_HEADERS
    assert table["data"] == [
        ["m/a", "True.", "True", "no", "live", "12", "keyword"],
        ["m/b", "I do not know", "I do not know", "no answer", "cached", "", "idk phrase"],
        ["m/c", "Hmm", "(unreadable)", "-", "live", "", "nothing"],
        ["m/d", "", "", "", "error", "", "connection refused"],
        ["m/e", "A and C", "A, C", "yes", "live", "", "letters"],
    ]


def test_proportions_print_with_their_interval() -> None:
    assert format_proportion(0.75, [0.40926, 0.92849]) == "0.750 [0.409, 0.928]"
    assert format_proportion(0.5, None) == "0.500"
    assert format_proportion(None, None) == "-"
    assert format_proportion(float("nan"), [0.1, 0.2]) == "-"


def test_describe_item_gives_the_key_only_when_known() -> None:
    statement = custom_statement("Aspirin inhibits platelets.", True)
    assert "**Truth:** True" in describe_item(statement)
    assert "**Truth:** unknown" in describe_item(statement, truth_known=False)
    choice = ChoiceItem(
        kb="kb",
        kb_version="1",
        relation="r",
        head="h",
        question="Which?",
        options=("x", "y", "I do not know"),
        answer_keys=("B",),
        subtype="semantic",
        knowledge_point_ids=("p",),
    )
    text = describe_item(choice)
    assert "A. x\nB. y\nC. I do not know" in text
    assert "**Correct:** B" in text


def _report(
    run_id: int, model: str, by_relation: dict[str, tuple[int, float]]
) -> dict[str, object]:
    def part(n: int, value: float) -> dict[str, object]:
        return {
            "n": n,
            "metrics": {"average_accuracy": value},
            "intervals": {"average_accuracy": [value / 2, (1 + value) / 2]},
        }

    return {
        "run_id": run_id,
        "model": model,
        "status": "completed",
        "n_items": 16,
        "answered": 16,
        "n_errors": 0,
        "metrics": {
            "average_accuracy": 0.5,
            "joint_accuracy": 0.0,
            "answer_rate": 1.0,
            "accuracy_answered": 0.5,
            "sycophancy_rate": None,
        },
        "intervals": {
            "average_accuracy": [0.28, 0.72],
            "joint_accuracy": [0.0, 0.658],
            "answer_rate": [0.806, 1.0],
            "accuracy_answered": [0.28, 0.72],
            "sycophancy_rate": None,
        },
        "by_relation": {name: part(n, v) for name, (n, v) in by_relation.items()},
        "by_transform": {},
    }


def test_batch_tables_show_each_run_and_each_relation_side_by_side() -> None:
    reports = [
        _report(3, "baseline/x", {"a": (8, 0.5), "b": (8, 0.25)}),
        _report(4, "openai/y", {"b": (8, 1.0)}),
    ]
    runs = batch_table(reports)
    assert runs["data"][0] == [
        "3",
        "baseline/x",
        "completed",
        "16/16",
        "0",
        "0.500 [0.280, 0.720]",
        "0.000 [0.000, 0.658]",
        "1.000 [0.806, 1.000]",
        "0.500 [0.280, 0.720]",
        "-",
    ]
    parts = batch_breakdown(reports)
    assert parts["headers"] == ["by", "name", "run 3: baseline/x", "run 4: openai/y"]
    assert parts["data"] == [
        ["relation", "a", "0.500 [0.250, 0.750] (n=8)", "-"],
        ["relation", "b", "0.250 [0.125, 0.625] (n=8)", "1.000 [0.500, 1.000] (n=8)"],
    ]


def _ctx(db: Database, tmp_path: Path) -> UiContext:
    return UiContext(Settings(home=tmp_path / "home"), db)


def test_models_are_asked_together_and_one_failing_does_not_stop_the_others(
    db: Database, tmp_path: Path
) -> None:
    ctx = _ctx(db, tmp_path)
    item = custom_statement("Insulin raises blood glucose.", False)
    answers = asyncio.run(
        ask_models(ctx, item, ["baseline/always-true", "baseline/nope"], use_cache=False)
    )
    assert [a.model for a in answers] == ["baseline/always-true", "baseline/nope"]
    assert (answers[0].raw, answers[0].parsed, answers[0].outcome) == (
        "True",
        "true",
        Outcome.INCORRECT,
    )
    assert answers[1].error is not None and "unknown baseline" in answers[1].error
    unscored = asyncio.run(
        ask_models(ctx, item, ["baseline/always-true"], use_cache=False, scored=False)
    )
    assert unscored[0].outcome is None
    with pytest.raises(InputError, match="choose at least one model"):
        asyncio.run(ask_models(ctx, item, []))


def test_a_batch_logs_one_run_per_model_and_reports_a_model_it_cannot_reach(
    db: Database, tmp_path: Path
) -> None:
    ctx = _ctx(db, tmp_path)
    seen: list[tuple[int, int, str]] = []
    run_ids, failures = asyncio.run(
        run_batch(
            ctx,
            ["baseline/always-true", "local/gemma-3-270m"],
            kb="clinical-core",
            points=1,
            seed="3",
            progress=lambda done, total, model: seen.append((done, total, model)),
        )
    )
    assert len(run_ids) == 1
    assert len(failures) == 1 and failures[0].startswith("local/gemma-3-270m:")
    assert "not running" in failures[0]
    (run, stored), *_ = [(r, n) for r, n in list_runs(db) if r.id == run_ids[0]]
    assert run.model_requested == "baseline/always-true"
    assert run.status == "completed"
    assert stored == run.n_items > 0
    assert {r.raw_text for r in list_responses(db, run_id=run.id)} == {"True"}
    # Progress counts the answers of the run, then the skipped model's share.
    assert seen[-1][0] == seen[-1][1] == 2 * run.n_items
    with pytest.raises(InputError, match="1 to 50 knowledge points"):
        asyncio.run(run_batch(ctx, ["baseline/random"], kb="clinical-core", points=0))
