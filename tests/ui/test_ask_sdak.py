"""The "Ask a model" tab's SDAK prompt without a browser: single statements and batches go
through the one entry point with the SDAK question (checked in the requests the test model
server received, over real HTTP), answers show the verdict, whether it came first and the
reason, and an SDAK batch shows each run's pair metrics."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from quizbot.analysis.reporting import run_report
from quizbot.config import Settings
from quizbot.domain import SDAK_MAX_TOKENS, Outcome
from quizbot.errors import InputError
from quizbot.evaluation.prompts import SDAK_TEMPLATE
from quizbot.generate.service import GenerateRequest, prepare
from quizbot.items import ChoiceItem
from quizbot.ui.ask import (
    ANSWER_HEADERS,
    SDAK_ANSWER_HEADERS,
    SDAK_HEADERS,
    ModelAnswer,
    answer_table,
    ask_models,
    custom_statement,
    run_batch,
    sdak_table,
)
from quizbot.ui.context import UiContext
from quizbot.ui.render import format_estimate
from storage import Database
from storage.repo import get_run
from tests.helpers.oracles import wilson
from tests.helpers.served_models import model_settings, replies_by_pair, write_oracle
from tests.helpers.stub import stub_server

MODEL = "openai/sdak-ask"
REPLY = "Correct. Because insulin lowers blood glucose."


def _ctx(monkeypatch: pytest.MonkeyPatch, db: Database, tmp_path: Path, base: str) -> UiContext:
    monkeypatch.setenv("QUIZBOT_HOME", str(tmp_path / "home"))
    return UiContext(model_settings(monkeypatch, MODEL, base), db)


def _requests(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _asked_the_sdak_way(prompt: object, statement: str) -> bool:
    before, after = SDAK_TEMPLATE.split("{statement}")
    return isinstance(prompt, str) and f"{before}{statement}{after}" in prompt


def test_sdak_answers_show_the_verdict_whether_it_came_first_and_the_reason() -> None:
    answers = [
        ModelAnswer("m/a", REPLY, "true", "keyword", Outcome.INCORRECT, latency_ms=7.2),
        ModelAnswer("m/b", "The claim is correct, as is known.", "true", "k", None, cached=True),
        ModelAnswer("m/c", None, None, "down", None, error="connection refused"),
    ]
    table = answer_table(answers, "sdak")
    assert table["headers"] == SDAK_ANSWER_HEADERS
    rows = {row[0]: dict(zip(SDAK_ANSWER_HEADERS, row, strict=True)) for row in table["data"]}
    first = rows["m/a"]
    assert (first["verdict"], first["verdict at the start"]) == ("Correct", "yes")
    assert first["reason"] == REPLY.removeprefix("Correct. ")
    assert (first["correct"], first["source"], first["raw answer"]) == ("no", "live", REPLY)
    late = rows["m/b"]
    assert (late["verdict"], late["verdict at the start"], late["correct"]) == ("(none)", "no", "-")
    assert late["source"] == "cached"
    assert rows["m/c"]["reason"] == "connection refused" and rows["m/c"]["source"] == "error"
    assert answer_table(answers)["headers"] == ANSWER_HEADERS  # standard stays as it was


def test_the_sdak_table_shows_each_sdak_runs_pair_metrics_with_intervals() -> None:
    part = {
        "n_pairs": 8,
        "metrics": {"instruction_following": 0.75, "pair_accuracy": 0.5},
        "intervals": {"instruction_following": list(wilson(6, 8)), "pair_accuracy": [0.2, 0.8]},
        "error_types": {"not_following": 0.5},
        "error_type_intervals": {"not_following": [0.15, 0.85]},
    }
    reports = [
        {"run_id": 3, "model": "m/a", "sdak": part},
        {"run_id": 4, "model": "m/b"},  # a standard run: no row
    ]
    table = sdak_table(reports)
    assert table["headers"] == SDAK_HEADERS
    (row,) = table["data"]
    cells = dict(zip(SDAK_HEADERS, row, strict=True))
    assert (cells["run"], cells["model"], cells["pairs"]) == ("3", "m/a", "8")
    assert cells["instruction following"] == format_estimate(0.75, wilson(6, 8))
    assert cells["not following"] == format_estimate(0.5, [0.15, 0.85])
    assert cells["sycophancy"] == "-"
    assert sdak_table(reports[1:])["data"] == []


def test_a_statement_is_asked_the_sdak_way_through_the_entry_point(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "requests.jsonl"
    item = custom_statement("Insulin lowers blood glucose.", True)
    with stub_server("--answer", REPLY, "--log", str(log)) as base:
        ctx = _ctx(monkeypatch, db, tmp_path, base)
        (answer,) = asyncio.run(ask_models(ctx, item, [MODEL], use_cache=False, prompt="sdak"))
        (plain,) = asyncio.run(ask_models(ctx, item, [MODEL], use_cache=False))
    assert plain.error is None
    assert answer.error is None and answer.raw == REPLY
    sdak_request, plain_request = _requests(log)
    assert _asked_the_sdak_way(sdak_request["prompt"], item.text)
    assert sdak_request["max_tokens"] == SDAK_MAX_TOKENS
    assert not _asked_the_sdak_way(plain_request["prompt"], item.text)
    (row,) = answer_table([answer], "sdak")["data"]
    assert row[1:4] == ["Correct", "yes", REPLY.removeprefix("Correct. ")]


def test_the_sdak_prompt_is_refused_where_it_does_not_apply_before_any_call(
    db: Database, tmp_path: Path
) -> None:
    ctx = UiContext(Settings(home=tmp_path / "home"), db)
    statement = custom_statement("Insulin lowers blood glucose.", True)
    made = prepare(db, GenerateRequest(kb="clinical-core", points=1, seed="1", format="choice"))
    choice = next(i for i in made.items() if isinstance(i, ChoiceItem))
    calls = 0

    def counting(*_args: object) -> None:
        nonlocal calls
        calls += 1

    with pytest.raises(InputError, match="true/false statements only"):
        asyncio.run(ask_models(ctx, choice, ["baseline/random"], prompt="sdak"))
    with pytest.raises(InputError, match='no "I do not know"'):
        asyncio.run(ask_models(ctx, statement, ["baseline/random"], idk=True, prompt="sdak"))
    batch = {"kb": "clinical-core", "points": 1, "progress": counting, "prompt": "sdak"}
    with pytest.raises(InputError, match="true/false statements only"):
        asyncio.run(run_batch(ctx, ["baseline/random"], fmt="choice", **batch))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="zero-shot"):
        asyncio.run(run_batch(ctx, ["baseline/random"], shots=2, **batch))  # type: ignore[arg-type]
    assert calls == 0


def test_an_sdak_batch_is_an_sdak_run_with_its_pair_metrics(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The batch's items, made ahead with the same seed, are the oracle's answer key.
    items = prepare(db, GenerateRequest(kb="clinical-core", points=2, seed="5")).items()
    oracle = write_oracle(tmp_path / "oracle.jsonl", items)
    with stub_server("--oracle", str(oracle), "--policy", "sdak", "--noise", "0.5") as base:
        ctx = _ctx(monkeypatch, db, tmp_path, base)
        run_ids, failures = asyncio.run(
            run_batch(ctx, [MODEL], kb="clinical-core", points=2, seed="5", prompt="sdak")
        )
    assert failures == []
    (run_id,) = run_ids
    config = get_run(db, run_id).config
    assert config["prompt"] == "sdak" and config["max_tokens"] == SDAK_MAX_TOKENS

    # Pairs counted from the raw replies in the server's own formats, not by quizbot's reader.
    pairs = replies_by_pair(db, run_id)
    first = ("Correct.", "Incorrect.")
    n = len(pairs)
    k = sum(p[True].startswith(first) and p[False].startswith(first) for p in pairs.values())
    assert 0 < k <= n
    report = run_report(db, run_id)
    (row,) = sdak_table([report])["data"]
    cells = dict(zip(SDAK_HEADERS, row, strict=True))
    assert cells["pairs"] == str(n)
    assert cells["instruction following"] == format_estimate(k / n, wilson(k, n))
