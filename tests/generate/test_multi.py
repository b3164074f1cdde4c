"""Multi-answer questions (`quizbot generate --format multi`): up to five right options, every
wrong one checked false with Knowledge.conflict, scored by exact match and fractional credit end
to end over HTTP (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.generate.choice import MULTI_MAX_CORRECT, MULTI_OPTIONS, multi_answer_questions
from quizbot.items import I_DO_NOT_KNOW
from quizbot.kb.clinical import load_clinical_core
from quizbot.kb.knowledge import Knowledge
from tests.helpers.stub import stub_server

LETTERS = "ABCDEFGHIJ"


def test_multi_answer_questions_are_safe_and_have_up_to_five_right_options() -> None:
    kb = load_clinical_core()
    facts = [t for t in kb.triplets if t.relation == "has_symptom"]
    items = multi_answer_questions(kb, facts, seed=3)
    assert items
    true = {(t.head, t.relation, t.tail) for t in kb.triplets}
    knowledge = Knowledge(kb)
    n_right = []
    for item in items:
        assert item.meta["multi_answer"] is True
        assert len(item.options) == MULTI_OPTIONS + 1 and item.options[-1] == I_DO_NOT_KNOW
        right = {item.options[LETTERS.index(k)] for k in item.answer_keys}
        wrong = set(item.options[:-1]) - right
        assert 1 <= len(right) <= MULTI_MAX_CORRECT
        assert all((item.head, item.relation, option) in true for option in right)
        for option in wrong:
            assert (item.head, item.relation, option) not in true
            assert knowledge.conflict(item.head, item.relation, option) is None
        tails = {t for h, r, t in true if h == item.head and r == item.relation}
        assert len(right) <= min(MULTI_MAX_CORRECT, len(tails))
        n_right.append(len(right))
    assert max(n_right) > 2  # more right options than the ordinary choice questions' two
    assert multi_answer_questions(kb, facts, seed=3) == items  # same seed, same questions


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def _eval(runner: CliRunner, base: str, *args: str) -> dict[str, Any]:
    done = runner.invoke(cli, ["eval", "--model", "openai/stub", "--api-base", base,
                               "--concurrency", "4", "--json", *args])  # fmt: skip
    assert done.exit_code == 0, done.output
    return dict(json.loads(done.stdout))


def test_generated_multi_answer_questions_score_exactly(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "multi.jsonl"
    made = runner.invoke(cli, ["generate", "--kb", "clinical-core", "--format", "multi",
                               "--points", "12", "--seed", "2", "--out", str(out)])  # fmt: skip
    assert made.exit_code == 0, made.output
    items = [json.loads(line) for line in out.read_text().splitlines()]
    assert items and all(item["meta"]["multi_answer"] for item in items)
    with stub_server("--oracle", str(out), "--policy", "correct") as base:
        report = _eval(runner, base, "--items", str(out))
        permuted = _eval(runner, base, "--items", str(out), "--permutations", "3")
    assert report["multi_answer"]["exact_match"] == 1.0
    assert report["multi_answer"]["partial_credit"] == 1.0
    assert permuted["multi_answer"]["exact_match"] == 1.0
    assert permuted["stability"]["conditions"]["with_idk"]["consistency"]["value"] == 1.0
    with stub_server("--answer", "A, B") as base:
        report = _eval(runner, base, "--items", str(out))
    credit, exact = [], []
    for item in items:
        keys = set(item["answer_keys"])
        chosen = {"A", "B"}
        credit.append(max(0.0, (len(chosen & keys) - len(chosen - keys)) / len(keys)))
        exact.append(chosen == keys)
    assert report["multi_answer"]["n_items"] == len(items)
    assert report["multi_answer"]["partial_credit"] == pytest.approx(sum(credit) / len(items))
    assert report["multi_answer"]["exact_match"] == pytest.approx(sum(exact) / len(items))
