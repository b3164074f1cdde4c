"""`quizbot runs export`: a run as an Inspect AI eval log that `inspect_ai.log.read_eval_log`
opens with quizbot's per-sample scores, and as one JSONL row per answer; on both databases,
over real HTTP to tests/helpers/model_server.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from quizbot.cli import cli
from tests.helpers.stub import stub_server
from tests.interop.conftest import need

DATA = Path(__file__).resolve().parents[1] / "data" / "item_banks"


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def _ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def _run(runner: CliRunner, tmp_path: Path, fmt: str, file: str, answer: str) -> int:
    name = fmt.rsplit("-", 1)[-1]
    _ok(runner.invoke(cli, ["items", "import", "--format", fmt, str(DATA / file), "--name", name]))
    with stub_server("--answer", answer) as base:
        done = _ok(runner.invoke(cli, ["eval", "--model", "openai/stub", "--api-base", base,
                                       "--item-set", name, "--json"]))  # fmt: skip
    return int(json.loads(done.stdout)["run_id"])


def _answers(runner: CliRunner, run_id: int) -> dict[str, Any]:
    done = _ok(runner.invoke(cli, ["answers", "--run", str(run_id), "--json"]))
    return dict(json.loads(done.stdout))


@pytest.mark.parametrize(
    ("fmt", "file", "answer"),
    [
        ("multifaceteval-tfq", "multifaceteval_tfq.json", "True"),  # half right
        ("multifaceteval-mcq", "multifaceteval_mcq.json", "The answer is C."),  # some right
    ],
)
def test_a_run_reads_back_with_read_eval_log_and_the_same_scores(
    runner: CliRunner, tmp_path: Path, fmt: str, file: str, answer: str
) -> None:
    need("inspect_ai")
    from inspect_ai.log import read_eval_log

    run_id = _run(runner, tmp_path, fmt, file, answer)
    out = tmp_path / "run.json"
    _ok(runner.invoke(cli, ["runs", "export", str(run_id), "--format", "inspect", "--out",
                            str(out)]))  # fmt: skip
    log = read_eval_log(str(out))
    report = json.loads(_ok(runner.invoke(cli, ["report", str(run_id), "--json"])).stdout)
    assert log.status == "success" and log.eval.model == "openai/stub"
    assert log.samples is not None and log.results is not None
    answers = _answers(runner, run_id)["items"]
    assert [s.id for s in log.samples] == [i["id"] for i in answers]
    scores = []
    for sample, item in zip(log.samples, answers, strict=True):
        (given,) = item["answers"]
        score = sample.scores["quizbot"] if sample.scores else None
        assert score is not None
        assert score.value == (1.0 if given["outcome"] == "correct" else 0.0)
        assert score.explanation == given["parse_reason"] and score.answer == given["parsed_answer"]
        assert sample.output.completion == given["raw_text"] == answer
        assert sample.input == given["prompt"]
        assert sample.metadata["outcome"] == given["outcome"]
        key = item["key"]
        assert sample.target == ({"true": "True", "false": "False"}.get(key) or ", ".join(key))
        scores.append(score.value)
    metrics = log.results.scores[0].metrics
    average = report["metrics"]["average_accuracy"]
    assert metrics["average_accuracy"].value == pytest.approx(average)
    assert sum(scores) / len(scores) == pytest.approx(average) and 0 < average < 1
    assert (
        metrics["average_accuracy"].params["interval_95"] == report["intervals"]["average_accuracy"]
    )


def test_a_run_as_jsonl_is_one_row_per_answer(runner: CliRunner, tmp_path: Path) -> None:
    run_id = _run(runner, tmp_path, "multifaceteval-tfq", "multifaceteval_tfq.json", "False")
    out = tmp_path / "answers.jsonl"
    _ok(runner.invoke(cli, ["runs", "export", str(run_id), "--format", "jsonl", "--out",
                            str(out)]))  # fmt: skip
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    items = _answers(runner, run_id)["items"]
    assert len(rows) == 12 == len(items)
    for row, item in zip(rows, items, strict=True):
        (given,) = item["answers"]
        assert row == {"run_id": run_id, "item_id": item["id"], "item_kind": item["kind"],
                       "item_text": item["text"], "key": item["key"], **given}  # fmt: skip
    missing = runner.invoke(cli, ["runs", "export", "999", "--format", "jsonl", "--out",
                                  str(tmp_path / "x.jsonl")])  # fmt: skip
    assert missing.exit_code == 66 and not (tmp_path / "x.jsonl").exists()
