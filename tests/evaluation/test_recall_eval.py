"""Open recall evaluated end to end: real HTTP through litellm to the test model server (oracle),
stored answers, the report's per-aspect scores and tiers, Welch's t-test between runs."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scipy import stats

from quizbot.analysis.answers import run_answers
from quizbot.analysis.recall import RecallRecord, welch_by_aspect
from quizbot.analysis.reporting import compare_report, run_report
from quizbot.config import load_settings
from quizbot.domain import Outcome
from quizbot.errors import ConfigError
from quizbot.evaluation import EvalSpec, ModelOverrides, evaluate, start
from quizbot.evaluation.recall import score_recall
from quizbot.evaluation.service import ask_once
from quizbot.generate.service import GenerateRequest, load_any_items, prepare, write
from quizbot.items import RecallItem
from storage import Database
from storage.repo import list_responses, list_runs
from tests.helpers.stub import stub_server

QUIZBOT = str(Path(sys.executable).with_name("quizbot"))


def _items(db: Database, out: Path, n: int = 8) -> list[RecallItem]:
    request = GenerateRequest(kb="clinical-core", format="recall", points=n, seed="r")
    write(db, prepare(db, request), out)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["kind"] for r in records} == {"recall"} and len(records) == n
    items = load_any_items(db, [r["id"] for r in records])
    assert all(isinstance(i, RecallItem) for i in items)
    return [i for i in items if isinstance(i, RecallItem)]


def _expected_bar1(gold: tuple[str, ...]) -> tuple[float, float, float]:
    """The oracle's bar1 answer: the first half (rounded up) of the gold plus one entity nothing
    knows ("unrelated finding"): unverified, so it counts on neither side of precision."""
    half = (len(gold) + 1) // 2
    precision, recall = 1.0, half / len(gold)
    return precision, recall, 2 * precision * recall / (precision + recall)


def _tier(f1: float) -> str:
    return "basically correct" if f1 >= 0.7 else "completely wrong" if f1 < 0.25 else (
        "partially correct"
    )  # fmt: skip


def _run(db: Database, items: list[RecallItem], base: str, shots: int = 0) -> int:
    spec = EvalSpec(
        model="openai/recall-test", shots=shots, max_tokens=256,
        overrides=ModelOverrides(api_base=base), style="chat",
    )  # fmt: skip
    summary = asyncio.run(evaluate(db, spec, items))
    assert summary.status == "completed" and summary.errors == 0
    return summary.run_id


def test_the_oracle_gives_exact_precision_recall_f1_and_tiers_over_http(
    db: Database, tmp_path: Path
) -> None:
    out = tmp_path / "recall.jsonl"
    items = _items(db, out)
    with stub_server("--oracle", str(out), "--policy", "correct") as base:
        right = _run(db, items, base, shots=2)
    with stub_server("--oracle", str(out), "--policy", "bar1") as base:
        half = _run(db, items, base)

    stored = list_responses(db, run_id=right)
    assert len(stored) == len(items)
    assert all(r.outcome == Outcome.CORRECT for r in stored)
    assert all(
        r.raw_text and r.parsed_answer and r.parsed_answer.startswith("recalled") for r in stored
    )

    full = run_report(db, right)["recall"]
    assert full["overall"]["n"] == len(items)
    assert "cosine" not in full["overall"]  # no embedding model, no cosine
    for metric in ("precision", "recall", "f1", "rouge1", "bleu1"):
        assert full["overall"][metric]["mean"] == pytest.approx(1.0)
    assert full["overall"]["tiers"]["basically correct"]["share"] == 1.0

    report = run_report(db, half)
    assert report["answered"] == len(items)
    recall = report["recall"]
    expected = {i.id: _expected_bar1(i.answers) for i in items}
    f1s = [expected[i.id][2] for i in items]
    assert recall["overall"]["f1"]["mean"] == pytest.approx(sum(f1s) / len(f1s))
    precisions = [expected[i.id][0] for i in items]
    assert recall["overall"]["precision"]["mean"] == pytest.approx(sum(precisions) / len(items))
    tiers = [_tier(f) for f in f1s]
    for name, part in recall["overall"]["tiers"].items():
        assert part["k"] == tiers.count(name), name
    for aspect, part in recall["by_aspect"].items():
        mine = [expected[i.id][2] for i in items if i.aspect == aspect]
        assert part["n"] == len(mine)
        assert part["f1"]["mean"] == pytest.approx(sum(mine) / len(mine))
    outcomes = {r.item_id: r.outcome for r in list_responses(db, run_id=half)}
    for item in items:
        want = Outcome.CORRECT if _tier(expected[item.id][2]) == "basically correct" else (
            Outcome.INCORRECT
        )  # fmt: skip
        assert outcomes[item.id] == want

    compared = compare_report(db, right, half)["recall"]
    assert compared["test"] == "welch_t"
    shown = run_answers(db, half).as_json()["items"]
    assert {i["key"] for i in shown} == {", ".join(i.answers) for i in items}
    for aspect, row in compared["by_aspect"].items():
        mine = [expected[i.id][2] for i in items if i.aspect == aspect]
        assert row["mean_b"] == pytest.approx(sum(mine) / len(mine))
        assert row["mean_a"] == pytest.approx(1.0)


def test_welch_per_aspect_matches_scipy_on_hand_built_data() -> None:
    gold = ("a1", "a2", "a3", "a4")
    item = RecallItem(kb="t", kb_version="1", relation="r", aspect="x", head="h",
                      question="q", answers=gold)  # fmt: skip
    answers_a = ["a1, a2, a3, a4", "a1, a2, a3", "a1, a2", "a1, a2, a3, a4, zz"]
    answers_b = ["a1", "zz", "a1, a2", "a1, yy"]
    # KB "t" knows nothing of "zz" and "yy": unverified, they count on neither side.

    def records(answers: list[str], aspect: str) -> list[RecallRecord]:
        return [RecallRecord(f"{aspect}{n}", aspect, score_recall(item, t)) for n, t in
                enumerate(answers)]  # fmt: skip

    a = records(answers_a, "symptoms") + records(answers_b, "drugs")
    b = records(answers_b, "symptoms") + records(answers_a[:3], "drugs")
    result = welch_by_aspect(a, b)
    # F1 by hand: A symptoms 1, 6/7, 2/3, 1; B symptoms 2/5, 0, 2/3, 2/5.
    f1_a = [1.0, 6 / 7, 2 / 3, 1.0]
    f1_b = [2 / 5, 0.0, 2 / 3, 2 / 5]
    want = stats.ttest_ind(f1_a, f1_b, equal_var=False)
    row = result["by_aspect"]["symptoms"]
    assert row["t"] == pytest.approx(float(want.statistic))
    assert row["p_value"] == pytest.approx(float(want.pvalue))
    want_drugs = stats.ttest_ind(f1_b, f1_a[:3], equal_var=False)
    assert result["by_aspect"]["drugs"]["p_value"] == pytest.approx(float(want_drugs.pvalue))
    # Benjamini-Hochberg over the two aspects: the larger p stays, the smaller is min(2p, larger).
    raw = {"symptoms": float(want.pvalue), "drugs": float(want_drugs.pvalue)}
    low, high = sorted(raw.values())
    for aspect, p in raw.items():
        adjusted = high if p == high else min(2 * low, high)
        assert result["by_aspect"][aspect]["p_adjusted"] == pytest.approx(adjusted)


def _quizbot(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([QUIZBOT, *args], env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_cli_generates_evaluates_reports_and_compares_recall(
    database_url: str, tmp_path: Path
) -> None:
    env = {**os.environ, "DATABASE_URL": database_url, "QUIZBOT_HOME": str(tmp_path / "home")}
    out = tmp_path / "recall.jsonl"
    made = _quizbot(env, "generate", "--kb", "clinical-core", "--format", "recall",
                    "--points", "6", "--out", str(out), "--json")  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["items"] == 6
    reports: list[dict[str, Any]] = []
    for policy in ("correct", "bar1"):
        with stub_server("--oracle", str(out), "--policy", policy) as base:
            done = _quizbot(env, "eval", "--items", str(out), "--model", "openai/stub",
                            "--api-base", base, "--json")  # fmt: skip
        assert done.returncode == 0, done.stderr
        reports.append(json.loads(done.stdout))
    assert reports[0]["recall"]["overall"]["f1"]["mean"] == pytest.approx(1.0)
    assert reports[1]["recall"]["overall"]["f1"]["mean"] < 1.0
    text = _quizbot(env, "report", str(reports[1]["run_id"]))
    assert text.returncode == 0, text.stderr
    assert "Open recall: mean scores" in text.stdout and "basically correct" in text.stdout
    compared = _quizbot(env, "compare", str(reports[0]["run_id"]), str(reports[1]["run_id"]))
    assert compared.returncode == 0, compared.stderr
    assert "Welch's t-test" in compared.stdout and "Traceback" not in compared.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "recall", "kb": "clinical-core", "relation": "has_symptom", '
                   '"head": "x", "question": "q?", "answers": []}\n')  # fmt: skip
    refused = _quizbot(env, "eval", "--items", str(bad), "--model", "baseline/random")
    assert refused.returncode != 0 and "bad.jsonl" in refused.stderr and "line 1" in refused.stderr
    assert "Traceback" not in refused.stderr


def _server_cosine(a: str, b: str) -> float:
    """The test server's embeddings (hashed bags of words) and their cosine, by hand."""
    from tests.helpers.model_server import _embedding

    x, y = _embedding(a), _embedding(b)
    return sum(p * q for p, q in zip(x, y, strict=True))


def test_an_embedding_model_adds_the_cosine_through_litellm(db: Database, tmp_path: Path) -> None:
    out = tmp_path / "recall.jsonl"
    items = _items(db, out, n=4)
    with stub_server("--oracle", str(out), "--policy", "bar1") as base:
        settings = load_settings(model_settings={"openai/emb": {"api_base": base}})
        spec = EvalSpec(model="openai/recall-test", max_tokens=256, embedding_model="openai/emb",
                        overrides=ModelOverrides(api_base=base), style="chat")  # fmt: skip
        summary = asyncio.run(evaluate(db, spec, items, settings=settings))
    assert summary.status == "completed"
    stored = {r.item_id: r for r in list_responses(db, run_id=summary.run_id)}
    expected = []
    for item in items:
        half = list(item.answers[: (len(item.answers) + 1) // 2])
        answer = " ".join([*half, "unrelated finding"])
        expected.append(_server_cosine(answer, " ".join(item.answers)))
        assert (stored[item.id].parsed_answer or "").endswith(f", cos {expected[-1]:.4f}")
    recall = run_report(db, summary.run_id)["recall"]
    assert recall["overall"]["cosine"]["mean"] == pytest.approx(
        sum(round(c, 4) for c in expected) / len(expected)
    )


def test_bad_tiers_or_an_embedding_key_unset_leave_no_run(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = _items(db, tmp_path / "recall.jsonl", n=2)
    with pytest.raises(ConfigError, match="low <= high"):
        asyncio.run(start(db, EvalSpec("baseline/random", recall_tiers="f1:0.9:0.1"), items))
    monkeypatch.delenv("NO_SUCH_EMBEDDING_KEY", raising=False)
    settings = load_settings(
        model_settings={"openai/emb": {"api_key_env": "NO_SUCH_EMBEDDING_KEY"}}
    )
    with pytest.raises(ConfigError, match="NO_SUCH_EMBEDDING_KEY"):
        asyncio.run(
            start(db, EvalSpec("baseline/random", embedding_model="openai/emb"), items,
                  settings=settings)
        )  # fmt: skip
    assert list_runs(db) == []
    # A baseline answers recall items too (wrongly): the run completes and reports.
    done = asyncio.run(evaluate(db, EvalSpec("baseline/random"), items))
    assert done.status == "completed"
    assert run_report(db, done.run_id)["recall"]["overall"]["n"] == 2


def test_a_single_recall_question_is_scored_like_a_run(db: Database, tmp_path: Path) -> None:
    out = tmp_path / "recall.jsonl"
    item = _items(db, out, n=1)[0]
    with stub_server("--oracle", str(out), "--policy", "bar1") as base:
        settings = load_settings(
            model_settings={"openai/one": {"api_base": base}}, recall_tiers="f1:0.1:0.2"
        )
        answer = asyncio.run(ask_once("openai/one", item, settings=settings))
    n = len(item.answers)
    h = (n + 1) // 2
    assert answer.error is None and answer.parsed == f"recalled {h}/{n}, wrong 0, unverified 1"
    assert answer.outcome is Outcome.CORRECT  # F1 >= 0.2: basically correct under these tiers
