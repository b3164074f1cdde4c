"""`quizbot eval`, `runs list`, `report` and `compare` through the command line."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.cli.evaluate import RUN_GC_THRESHOLD

METRICS = {
    "average_accuracy", "joint_accuracy", "answer_rate", "accuracy_answered",
    "instruction_following_rate", "pair_accuracy", "sycophancy_rate",
}  # fmt: skip


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def test_eval_report_and_compare_as_json(runner: CliRunner, tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    made = runner.invoke(
        cli, ["generate", "--kb", "clinical-core", "--points", "4", "--out", str(items)]
    )
    assert made.exit_code == 0, made.output
    first = runner.invoke(
        cli, ["eval", "--model", "baseline/always-true", "--items", str(items), "--json"]
    )
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)  # stdout holds the JSON object alone
    assert {"run_id", "model", "n_items", "metrics", "by_relation", "by_transform"} <= set(report)
    assert set(report["metrics"]) >= METRICS
    assert report["n_items"] == 64 and report["model"] == "baseline/always-true"
    assert report["metrics"]["average_accuracy"] == 0.5
    assert report["metrics"]["answer_rate"] == 1.0
    assert all(0.0 <= v <= 1.0 for k, v in report["metrics"].items() if k in METRICS)
    assert set(report["by_transform"]) == {
        "none", "inv", "ins", "inv+ins", "dn", "inv+dn", "ins+dn", "inv+ins+dn",
    }  # fmt: skip

    second = runner.invoke(
        cli, ["eval", "--model", "baseline/random", "--items", str(items), "--json"]
    )
    assert second.exit_code == 0, second.output
    listed = json.loads(runner.invoke(cli, ["runs", "list", "--json"]).stdout)["runs"]
    assert [r["model"] for r in listed] == ["baseline/random", "baseline/always-true"]
    assert all(r["status"] == "completed" and r["responses"] == 64 for r in listed)

    again = json.loads(runner.invoke(cli, ["report", str(report["run_id"]), "--json"]).stdout)
    assert again["metrics"] == report["metrics"]
    compared = runner.invoke(
        cli, ["compare", str(report["run_id"]), str(listed[0]["run_id"]), "--json"]
    )
    assert compared.exit_code == 0, compared.output
    result = json.loads(compared.stdout)
    assert result["test"] == "mcnemar_exact" and result["n_shared"] == 64
    assert 0.0 <= result["p_value"] <= 1.0


def test_eval_needs_exactly_one_item_source(runner: CliRunner, tmp_path: Path) -> None:
    neither = runner.invoke(cli, ["eval", "--model", "baseline/random"])
    assert (
        neither.exit_code == 65
        and "exactly one of --items FILE, --kb NAME, --assignment NAME" in neither.stderr
    )
    bad = tmp_path / "items.jsonl"
    bad.write_text('{"kind": "statement"}\n')
    broken = runner.invoke(cli, ["eval", "--model", "baseline/random", "--items", str(bad)])
    assert broken.exit_code == 65 and f"{bad}, line 1" in broken.stderr
    assert "Traceback" not in broken.output
    missing = runner.invoke(cli, ["report", "999"])
    assert missing.exit_code == 66 and "no run with id 999" in missing.stderr


@pytest.fixture
def collector() -> Iterator[None]:
    """Put the garbage collector back as it was (an eval in this process tunes it)."""
    before = gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


@pytest.mark.usefixtures("collector")
def test_eval_tunes_the_collector_for_its_run(runner: CliRunner, tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    made = runner.invoke(
        cli, ["generate", "--kb", "clinical-core", "--points", "1", "--out", str(items)]
    )
    assert made.exit_code == 0, made.output
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    done = runner.invoke(cli, ["eval", "--model", "baseline/always-true", "--items", str(items)])
    assert done.exit_code == 0, done.output
    # The eval process ends with its run: set-up frozen, young objects collected less often;
    # the older generations keep Python's thresholds.
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (RUN_GC_THRESHOLD, 10, 10)
