"""The local model: Gemma 3 270M served by llama.cpp, evaluated end to end with no API key.

Needs the extra quizbot[local]; skipped without it, unless QUIZBOT_REQUIRE_LOCAL_MODEL=1 (CI),
where its absence is a failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.errors import ConfigError, InputError
from quizbot.evaluation.prompts import RECALL_INSTRUCTION
from quizbot.providers import get_provider
from quizbot.providers.local import endpoint

REQUIRED = os.environ.get("QUIZBOT_REQUIRE_LOCAL_MODEL", "") in {"1", "true", "yes"}
HAVE_LLAMA = importlib.util.find_spec("llama_cpp") is not None
F1 = re.compile(r"\bF1 (\d+\.\d+)")


def test_local_models_need_the_running_server(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not running") as info:
        endpoint(tmp_path)
    assert info.value.hint and "quizbot local-model start" in info.value.hint
    with pytest.raises(InputError, match="local model server"):
        get_provider("local/gemma-3-270m")


@pytest.mark.slow
def test_gemma_answers_an_eval_end_to_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """One backend is enough here: the storage paths are proven on both elsewhere."""
    if not HAVE_LLAMA:
        if REQUIRED:
            pytest.fail("llama-cpp-python is not installed (QUIZBOT_REQUIRE_LOCAL_MODEL is set)")
        pytest.skip("the local extra (llama-cpp-python) is not installed")
    monkeypatch.setenv("QUIZBOT_HOME", str(tmp_path / "home"))  # SQLite file in the home
    runner = CliRunner()
    started = runner.invoke(cli, ["local-model", "start", "--json"])
    assert started.exit_code == 0, started.output
    try:
        server = json.loads(started.stdout)
        assert server["model"] == "local/gemma-3-270m"
        assert (tmp_path / "home" / "models" / "gemma-3-270m-q4_k_m.gguf").stat().st_size > 1e8
        status = json.loads(runner.invoke(cli, ["local-model", "status", "--json"]).stdout)
        assert status == {"running": True, "base_url": server["base_url"], "pid": server["pid"]}

        args = ["eval", "--model", "local/gemma-3-270m", "--kb", "clinical-core", "--points", "2",
                "--shots", "3", "--concurrency", "2", "--json"]  # fmt: skip
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert report["n_items"] == 32 and report["status"] == "completed"
        assert report["n_errors"] == 0
        assert report["model_reported"] == "gemma-3-270m"  # what llama.cpp said it served
        # A 270M base model is weak, but with few-shot completion it answers in the format.
        assert report["metrics"]["instruction_following_rate"] >= 0.5
    finally:
        stopped = runner.invoke(cli, ["local-model", "stop"])
    assert stopped.exit_code == 0 and "stopped" in stopped.stdout
    after = json.loads(runner.invoke(cli, ["local-model", "status", "--json"]).stdout)
    assert after == {"running": False}


@pytest.mark.slow
def test_gemma_runs_a_recall_eval_end_to_end(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Open recall on the real local model: clinical-core questions, 2-shot completion.

    A 270M base model scores low; what is checked is the path (every item asked and answered in
    the list format, nothing failed) and that the report's figures are those of its answers: each
    answer's F1 and tier were stored when it arrived, the report recomputes them from the raw text.
    """
    if not HAVE_LLAMA:
        if REQUIRED:
            pytest.fail("llama-cpp-python is not installed (QUIZBOT_REQUIRE_LOCAL_MODEL is set)")
        pytest.skip("the local extra (llama-cpp-python) is not installed")
    monkeypatch.setenv("QUIZBOT_HOME", str(tmp_path / "home"))
    runner = CliRunner()
    started = runner.invoke(cli, ["local-model", "start", "--json"])
    assert started.exit_code == 0, started.output
    try:
        # Sites and age groups (the question names the groups): aspects a 270M model gets partly
        # right, so the scores below are not all 0 and the report's means are really checked.
        args = ["eval", "--model", "local/gemma-3-270m", "--kb", "clinical-core",
                "--format", "recall", "--relations", "typical_age_group,affects_site",
                "--points", "5", "--shots", "2", "--seed", "3", "--concurrency", "2",
                "--json"]  # fmt: skip
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        answers = json.loads(runner.invoke(cli, ["answers", "--run", str(report["run_id"]),
                                                 "--json"]).stdout)  # fmt: skip
    finally:
        stopped = runner.invoke(cli, ["local-model", "stop"])
    assert stopped.exit_code == 0
    assert report["status"] == "completed" and report["n_items"] == 5
    assert report["n_errors"] == 0 and report["model_reported"] == "gemma-3-270m"
    replies = [a for item in answers["items"] for a in item["answers"]]
    assert len(replies) == 5 and all(a["kind"] == "model" for a in replies)
    # Each prompt is a completion with two demonstrations from other diseases, then the question.
    for item, reply in zip(answers["items"], replies, strict=True):
        assert reply["prompt"].count("\nAnswer:") == 3
        assert reply["prompt"].endswith(f"{item['text']}\n{RECALL_INSTRUCTION}\nAnswer:")
    # The model answers with lists (not an abstention, not unparsed) most of the time.
    listed = [r for r in replies if r["outcome"] in {"correct", "incorrect"}]
    assert len(listed) >= 3, [r["raw_text"] for r in replies]

    # The report is its answers: per-answer F1 and tier as stored when each answer arrived
    # (an abstention or an answer with no list is completely wrong, F1 0), recomputed by the report.
    def stored(reply: dict[str, str]) -> tuple[float, str]:
        if reply["outcome"] not in {"correct", "incorrect"}:
            return 0.0, "completely wrong"
        found = F1.search(reply["parse_reason"])
        assert found, reply["parse_reason"]
        return float(found.group(1)), reply["parse_reason"].split(":")[0]

    scores = [stored(r) for r in replies]
    assert any(f > 0 for f, _ in scores), [r["raw_text"] for r in replies]
    recall = report["recall"]["overall"]
    assert recall["n"] == len(replies)
    assert recall["f1"]["mean"] == pytest.approx(sum(f for f, _ in scores) / 5, abs=0.006)
    tiers = {name: t["k"] for name, t in recall["tiers"].items()}
    assert tiers == {
        name: sum(tier == name for _, tier in scores)
        for name in ("completely wrong", "partially correct", "basically correct")
    }
    assert sum(a["n"] for a in report["recall"]["by_aspect"].values()) == len(replies)
