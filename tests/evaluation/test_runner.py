"""Runs: each answer stored as it arrives, errors kept as outcomes, resumption without re-asking."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tenacity import wait_none

from quizbot.analysis.reporting import run_report
from quizbot.domain import RunStatus
from quizbot.evaluation.runner import RunConfig, execute, majority_answer, prepare_run
from quizbot.generate.service import GenerateRequest, prepare
from quizbot.items import StatementItem
from quizbot.providers import ProviderError, get_provider
from quizbot.providers import retry as retry_module
from quizbot.providers.scripted import ScriptedProvider
from storage import Database
from storage.repo import count_responses, get_run, list_responses
from tests.helpers.stub import stub_server

QUIZBOT = str(Path(sys.executable).with_name("quizbot"))


@pytest.fixture(autouse=True)
def _no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry_module, "WAIT", wait_none())


def _items(db: Database, points: int = 3) -> list[StatementItem]:
    generation = prepare(db, GenerateRequest(kb="clinical-core", points=points, seed=5))
    return [i for i in generation.items() if isinstance(i, StatementItem)]


def test_a_baseline_run_scores_every_item(db: Database) -> None:
    items = _items(db)
    run_id = prepare_run(db, items, RunConfig(model="baseline/always-true"))
    summary = asyncio.run(execute(db, run_id, get_provider("baseline/always-true")))
    assert (summary.asked, summary.errors, summary.status) == (48, 0, RunStatus.COMPLETED)
    responses = {r.item_id: r for r in list_responses(db, run_id=run_id)}
    assert len(responses) == 48
    for item in items:  # "True" is right exactly when the label is true
        assert responses[item.id].outcome == ("correct" if item.label else "incorrect")
        assert responses[item.id].raw_text == "True"
        prompt = responses[item.id].prompt
        assert prompt and item.text in prompt
    report = run_report(db, run_id)
    assert report["metrics"]["average_accuracy"] == 0.5  # 8 of 16 are true for every point
    assert (
        report["metrics"]["sycophancy_rate"] == 1.0
    )  # agrees with every statement and its negation
    assert report["model_reported"] == "baseline/always-true"


def test_the_majority_baseline_answers_the_most_frequent_key(db: Database) -> None:
    items = _items(db, points=2)
    true_items = [i for i in items if i.label]
    skewed = true_items + [i for i in items if not i.label][:3]  # 16 true, 3 false
    assert majority_answer(skewed) == "True"
    assert majority_answer([i for i in items if not i.label]) == "False"
    run_id = prepare_run(db, skewed, RunConfig(model="baseline/majority"))
    assert get_run(db, run_id).config["majority_answer"] == "True"


def test_failures_are_stored_as_errors_and_retried_on_request(db: Database) -> None:
    items = _items(db, points=1)
    failing_ids = {items[0].id, items[5].id}
    answers = {i.text: ("True" if i.label else "False") for i in items}

    def fail(_n: int, request: object) -> ProviderError | None:
        text = request.text  # type: ignore[attr-defined]
        hit = any(i.text in text for i in items if i.id in failing_ids)
        return ProviderError("HTTP 400 bad request", retryable=False) if hit else None

    def answer(request: object) -> str:
        return next(v for k, v in answers.items() if k in request.text)  # type: ignore[attr-defined]

    provider = ScriptedProvider(answer, fail=fail, reported_model="oracle-2026-11")
    run_id = prepare_run(db, items, RunConfig(model="scripted/oracle"))
    first = asyncio.run(execute(db, run_id, provider))
    assert (first.errors, first.status) == (2, RunStatus.COMPLETED)
    outcomes = {r.item_id: r.outcome for r in list_responses(db, run_id=run_id)}
    assert {i for i, o in outcomes.items() if o == "error"} == failing_ids
    assert get_run(db, run_id).model_reported == "oracle-2026-11"

    healed = ScriptedProvider(answer, reported_model="oracle-2026-11")
    asyncio.run(execute(db, run_id, healed))  # plain resume: nothing left to ask
    assert healed.calls == 0
    again = asyncio.run(execute(db, run_id, healed, retry_errors=True))
    assert healed.calls == 2 and again.errors == 0
    assert {r.outcome for r in list_responses(db, run_id=run_id)} == {"correct"}
    assert run_report(db, run_id)["metrics"]["average_accuracy"] == 1.0


def test_transient_failures_are_retried_within_the_run(db: Database) -> None:
    items = _items(db, points=1)
    calls: dict[str, int] = {}

    def flaky(_n: int, request: object) -> ProviderError | None:
        key = request.text  # type: ignore[attr-defined]
        calls[key] = calls.get(key, 0) + 1
        return ProviderError("429", retryable=True, status=429) if calls[key] < 3 else None

    provider = ScriptedProvider(["True"], fail=flaky)
    run_id = prepare_run(db, items, RunConfig(model="scripted/flaky"))
    summary = asyncio.run(execute(db, run_id, provider))
    assert summary.errors == 0 and provider.calls == 3 * len(items)


@pytest.mark.parametrize(("retryable", "calls"), [(True, 3), (False, 1)])
def test_the_first_attempt_counts_as_the_policys_first(
    db: Database, monkeypatch: pytest.MonkeyPatch, retryable: bool, calls: int
) -> None:
    # The runner makes a call's first attempt itself and hands a failure to the retry policy:
    # the policy must see it as its attempt 1 (no extra call; its waits numbered from 1; the
    # policy asks for a wait after every retryable failure, the last one included).
    items = _items(db, points=1)[:2]
    waited: list[int] = []

    def wait(state: object) -> float:
        waited.append(state.attempt_number)  # type: ignore[attr-defined]
        return 0.0

    monkeypatch.setattr(retry_module, "WAIT", wait)
    provider = ScriptedProvider(
        ["True"],
        fail=lambda _n, _r: ProviderError("503", retryable=retryable, kind="server", status=503),
        max_concurrency=1,
    )
    run_id = prepare_run(db, items, RunConfig(model="scripted/down", attempts=3, concurrency=1))
    summary = asyncio.run(execute(db, run_id, provider))
    assert summary.errors == len(items) and provider.calls == calls * len(items)
    assert waited == (list(range(1, calls + 1)) if retryable else []) * len(items)
    assert {r.outcome for r in list_responses(db, run_id=run_id)} == {"error"}


def test_few_shot_prompts_use_demonstrations_outside_the_run(db: Database) -> None:
    items = _items(db, points=2)
    provider = ScriptedProvider(["True"])
    run_id = prepare_run(db, items, RunConfig(model="scripted/x", shots=3, style="completion"))
    asyncio.run(execute(db, run_id, provider))
    demo_ids = set(get_run(db, run_id).config["demo_ids"])
    assert demo_ids and not demo_ids & {i.id for i in items}
    for request in provider.requests:
        assert request.text.count("Answer:") == 4  # three demonstrations and the question
        assert sum(i.text in request.text for i in items) == 1  # no other evaluated item leaks


@pytest.mark.slow
def test_an_eval_killed_mid_run_resumes_without_asking_again(
    database_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "stub.jsonl"
    env = {**os.environ, "DATABASE_URL": database_url, "QUIZBOT_HOME": str(tmp_path / "h")}
    with stub_server("--answer", "true", "--latency-ms", "40", "--log", str(log)) as base:
        args = [QUIZBOT, "eval", "--model", "openai/stub", "--api-base", base, "--kb",
                "clinical-core", "--points", "10", "--concurrency", "2", "--json"]  # fmt: skip
        proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        db = Database(database_url)
        try:
            deadline = time.monotonic() + 120
            while True:
                assert time.monotonic() < deadline, "the eval stalled before 30 answers"
                try:
                    if count_responses(db) >= 30:
                        break
                except Exception:
                    pass
                time.sleep(0.1)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
            stored_at_kill = count_responses(db)
            assert 30 <= stored_at_kill < 160
            time.sleep(0.5)  # requests the killed process had in flight reach the stub's log
            asked_before_resume = len(log.read_text().splitlines())
            resumed = subprocess.run(
                [QUIZBOT, "eval", "--resume", "1", "--api-base", base, "--json"],
                env=env, capture_output=True, text=True, timeout=300,
            )  # fmt: skip
        finally:
            db.dispose()
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["n_items"] == 160 and report["status"] == "completed"
    assert report["metrics"]["average_accuracy"] == 0.5
    asked = len(log.read_text().splitlines())
    # Every stored answer is kept and never asked again (30+ were stored at the kill): the resume
    # asks exactly the items without a stored answer. What is asked twice is only what had not
    # been committed at the kill (the requests in flight and the answers waiting for the writer;
    # how many depends on how slow the database was at that moment).
    assert asked - asked_before_resume == 160 - stored_at_kill
    assert asked_before_resume >= stored_at_kill
