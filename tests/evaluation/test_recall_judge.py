"""The optional judge of open recall (quizbot/providers/judge.py and
quizbot/evaluation/recall_judge.py) over real HTTP through litellm to the test model server:
unverified entries put to it once each, its verdicts stored per entry and counted, the fixed
prompt stored with the run; without a judge no call is made and the scoring is the text's alone.
Also the judge setting of monitors and assignments."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from quizbot.analysis.reporting import run_report
from quizbot.errors import InputError
from quizbot.evaluation import EvalSpec, ModelOverrides, evaluate
from quizbot.evaluation.recall_judge import stored_verdicts
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.generate.service import GenerateRequest, load_any_items, prepare, write
from quizbot.items import RecallItem
from quizbot.providers.judge import (
    JUDGE_PROMPT,
    JUDGE_PROMPT_VERSION,
    judge_prompt,
    parse_verdict,
)
from storage import Database
from storage.repo import get_run, list_responses
from tests.helpers.model_server import JUDGE_MARKER, WRONG_ENTITY
from tests.helpers.served_models import monitor_from
from tests.helpers.stub import stub_server

JUDGE = "openai/recall-judge"


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("Correct.", "correct"),
        ("incorrect: not a symptom", "incorrect"),
        ("It is not correct", "incorrect"),
        ("Yes", "correct"),
        ("Maybe.", "unclear"),
        ("", "unclear"),
    ],
)
def test_verdicts_are_read_from_the_first_word_that_states_one(reply: str, verdict: str) -> None:
    assert parse_verdict(reply) == verdict


def test_the_prompt_is_fixed_and_names_the_question_and_the_entry() -> None:
    text = judge_prompt("What are the main symptoms of gout?", "  hot   swollen toe ")
    assert "Question: What are the main symptoms of gout?" in text
    assert "Entry: hot swollen toe" in text and JUDGE_MARKER in text
    assert text == JUDGE_PROMPT.format(
        question="What are the main symptoms of gout?", entry="hot swollen toe"
    )


def _items(db: Database, out: Path, n: int = 4) -> list[RecallItem]:
    request = GenerateRequest(kb="clinical-core", format="recall", points=n, seed="j")
    write(db, prepare(db, request), out)
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    return [i for i in load_any_items(db, ids) if isinstance(i, RecallItem)]


def _spec(base: str, **changes: object) -> EvalSpec:
    spec = EvalSpec(
        model="openai/recall-test",
        max_tokens=256,
        overrides=ModelOverrides(api_base=base),
        style="chat",
    )
    from dataclasses import replace

    return replace(spec, **changes)  # type: ignore[arg-type]


def _judge_calls(log: Path) -> list[str]:
    prompts = [json.loads(line)["prompt"] for line in log.read_text().splitlines()]
    return [p for p in prompts if JUDGE_MARKER in p]


def test_a_judge_decides_the_unverified_entries_and_is_asked_once_each(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "recall.jsonl"
    items = _items(db, out)
    log = tmp_path / "calls.jsonl"
    # bar1: the first half of each gold list and "unrelated finding", which nothing in the KB
    # knows; the judge (the same server) calls it incorrect.
    with stub_server(
        "--oracle", str(out), "--policy", "bar1", "--judge-correct", "nothing", "--log", str(log)
    ) as base:
        from quizbot.config import load_settings

        settings = load_settings(model_settings={JUDGE: {"api_base": base}})
        plain = asyncio.run(evaluate(db, _spec(base), items, settings=settings))
        assert _judge_calls(log) == []  # no judge: no call, the scoring is the text's alone
        judged = asyncio.run(evaluate(db, _spec(base, judge=JUDGE), items, settings=settings))
        again = asyncio.run(evaluate(db, _spec(base, judge=JUDGE), items, settings=settings))
    assert plain.status == judged.status == again.status == "completed"

    # The run stores its judge, how it is reached (no key) and the fixed prompt with its version.
    config = get_run(db, judged.run_id).config
    assert config["judge"] == JUDGE and config["judge_prompt"] == JUDGE_PROMPT
    assert config["judge_prompt_version"] == JUDGE_PROMPT_VERSION
    # One question per item, the entry named; the second run asked nothing again.
    calls = _judge_calls(log)
    assert len(calls) == len(items)
    assert all(f"Entry: {WRONG_ENTITY}" in c for c in calls)
    assert {c.split("Question: ")[1].splitlines()[0] for c in calls} == {i.question for i in items}
    verdicts = stored_verdicts(db, [i.id for i in items], config)
    assert verdicts == {i.id: {WRONG_ENTITY: "incorrect"} for i in items}

    # Without the judge the extra entry is unverified: precision 1. With it: h / (h + 1).
    def halves(item: RecallItem) -> tuple[int, int]:
        return (len(item.answers) + 1) // 2, len(item.answers)

    expected = [h / (h + 1) for h, _ in map(halves, items)]
    plain_report = run_report(db, plain.run_id)["recall"]["overall"]
    judged_report = run_report(db, judged.run_id)["recall"]["overall"]
    assert plain_report["precision"]["mean"] == pytest.approx(1.0)
    assert judged_report["precision"]["mean"] == pytest.approx(sum(expected) / len(items))
    assert judged_report["entries"]["judged_incorrect"] == len(items)
    assert plain_report["entries"]["judged_incorrect"] == 0
    assert plain_report["entries"]["unverified"] == len(items)
    # Stored with each answer as scored then: "wrong 1" with the judge.
    summaries = {r.item_id: r.parsed_answer for r in list_responses(db, run_id=judged.run_id)}
    for item in items:
        h, n = halves(item)
        assert summaries[item.id] == f"recalled {h}/{n}, wrong 1"
    plain_summaries = {r.parsed_answer for r in list_responses(db, run_id=plain.run_id)}
    assert all(s is not None and s.endswith("wrong 0, unverified 1") for s in plain_summaries)


def test_a_judge_that_calls_the_entry_correct_or_cannot_say(db: Database, tmp_path: Path) -> None:
    out = tmp_path / "recall.jsonl"
    items = _items(db, out, n=2)
    with stub_server(
        "--oracle", str(out), "--policy", "bar1", "--judge-correct", "unrelated"
    ) as base:
        from quizbot.config import load_settings

        settings = load_settings(model_settings={JUDGE: {"api_base": base}})
        run = asyncio.run(evaluate(db, _spec(base, judge=JUDGE), items, settings=settings))
    report = run_report(db, run.run_id)["recall"]["overall"]
    assert report["precision"]["mean"] == pytest.approx(1.0)
    assert report["entries"]["judged_correct"] == len(items)


def test_the_judge_setting_of_monitors_and_assignments(db: Database, tmp_path: Path) -> None:
    toml = """
[[monitor]]
name = "recall-judged"
models = ["baseline/random"]
cron = "0 2 * * *"
format = "recall"
judge = "openai/judge"
"""
    spec = monitor_from(tmp_path, toml)
    assert spec.judge == "openai/judge" and spec.as_json()["judge"] == "openai/judge"
    with pytest.raises(InputError, match="judge"):
        monitor_from(tmp_path, toml.replace('format = "recall"\n', ""))
    made = make_assignment(
        db,
        AssignmentRequest(
            name="judged", kb="clinical-core", points=2, format="recall", judge="openai/judge"
        ),
    )
    assert made.config["judge"] == "openai/judge"
    with pytest.raises(InputError, match="recall"):
        make_assignment(
            db, AssignmentRequest(name="tf", kb="clinical-core", points=2, judge="openai/judge")
        )
