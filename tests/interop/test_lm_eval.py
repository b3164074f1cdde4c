"""`quizbot items export --format lm-eval`: the task directory, and lm-evaluation-harness running
it over real HTTP against tests/helpers/model_server.py with the same accuracy as quizbot's own
run on the same server (a statements set and a choice set; a model that answers right and one
that answers some wrong)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from quizbot.cli import cli
from quizbot.domain import Outcome
from quizbot.evaluation.parse import parse_and_score
from quizbot.evaluation.prompts import build_prompt
from quizbot.interop import lm_eval_task
from quizbot.interop.lm_eval import task_name
from quizbot.items import item_from_json
from tests.helpers.stub import stub_server
from tests.interop.conftest import need

DATA = Path(__file__).resolve().parents[1] / "data" / "item_banks"
SETS = {  # set name: (format, sample file)
    "tfq": ("multifaceteval-tfq", "multifaceteval_tfq.json"),
    "mcq": ("multifaceteval-mcq", "multifaceteval_mcq.json"),
    "maq": ("multifaceteval-maq", "multifaceteval_maq.json"),
}


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'q.db'}")
    return CliRunner()


def _ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def _export(runner: CliRunner, tmp_path: Path, name: str, *extra: str) -> Path:
    fmt, file = SETS[name]
    _ok(runner.invoke(cli, ["items", "import", "--format", fmt, str(DATA / file), "--name", name]))
    out = tmp_path / "tasks" / name
    _ok(runner.invoke(cli, ["items", "export", name, "--format", "lm-eval", "--out", str(out),
                            *extra]))  # fmt: skip
    return out


def _docs(task_dir: Path) -> list[dict[str, Any]]:
    text = (task_dir / "data.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_the_task_directory_holds_quizbots_prompts_and_keys(
    runner: CliRunner, tmp_path: Path
) -> None:
    out = _export(runner, tmp_path, "maq", "--idk")
    assert sorted(p.name for p in out.iterdir()) == [
        "README.md", "data.jsonl", "quizbot_maq.yaml", "quizbot_maq_completion.yaml", "utils.py"
    ]  # fmt: skip
    assert (out / "utils.py").read_text() == Path(lm_eval_task.__file__).read_text()
    yaml = (out / "quizbot_maq.yaml").read_text()
    assert "task: quizbot_maq\n" in yaml and "doc_to_text: prompt_chat\n" in yaml
    assert "max_gen_toks: 16" in yaml and "metric: acc\n" in yaml
    completion = (out / "quizbot_maq_completion.yaml").read_text()
    assert 'until: ["\\n"]' in completion and "doc_to_text: prompt_completion" in completion
    docs = _docs(out)
    assert len(docs) == 6
    for doc in docs:
        item = item_from_json(json.loads(doc["item"]))
        assert doc["prompt_chat"] == build_prompt(item, idk=True, style="chat").text
        assert doc["prompt_completion"] == build_prompt(item, idk=True, style="completion").text
        assert doc["prompt_completion"].endswith("\nAnswer:")
        assert "I do not know" in doc["prompt_chat"] and doc["idk"] is True
    assert docs[0]["target"] == "A, C, E"
    # A directory that is not empty is never written into.
    again = runner.invoke(cli, ["items", "export", "maq", "--format", "lm-eval", "--out", str(out)])
    assert again.exit_code == 65 and "not an empty directory" in again.stderr
    assert task_name("MedQA US (4 options) v1.0") == "quizbot_MedQA_US_4_options_v1_0"


REPLIES = ["True", "False", "false.", "The statement is true.", "I do not know", "A", "B, D",
           "Answer: A, C, E", "(C)", "C and E", "maybe", "", "The correct answer is E.",
           "Not true.", "E. coli is the answer"]  # fmt: skip


def test_the_tasks_scorer_is_quizbots_on_any_reply(runner: CliRunner, tmp_path: Path) -> None:
    docs = _docs(_export(runner, tmp_path, "tfq")) + _docs(_export(runner, tmp_path, "maq"))
    outcomes = set()
    for doc in docs:
        item = item_from_json(json.loads(doc["item"]))
        for reply in REPLIES:
            _, outcome = parse_and_score(reply, item, idk_offered=False)
            outcomes.add(outcome)
            assert lm_eval_task.process_results(doc, [reply]) == {
                "acc": float(outcome is Outcome.CORRECT),
                "answered": float(outcome is not Outcome.ABSTAINED),
                "unparsed": float(outcome is Outcome.UNPARSED),
            }, (reply, item.id)
    assert outcomes == {Outcome.CORRECT, Outcome.INCORRECT, Outcome.ABSTAINED, Outcome.UNPARSED}


def _wrong_oracle(source: Path, target: Path) -> Path:
    """The items with every third key changed: a model answering by it gets those wrong."""
    lines = []
    for number, line in enumerate(source.read_text().splitlines()):
        record = json.loads(line)
        if number % 3 == 1:
            if record["kind"] == "statement":
                record["label"] = not record["label"]
            else:
                letters = "ABCDEFGHIJ"[: len(record["options"])]
                record["answer_keys"] = [next(x for x in letters if x not in record["answer_keys"])]
        lines.append(json.dumps(record))
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def _lm_eval(base: str, include: Path, tasks: list[str], out: Path) -> dict[str, Any]:
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false"}  # fmt: skip
    args = [
        sys.executable, "-m", "lm_eval", "--include_path", str(include),
        "--tasks", ",".join(tasks), "--model", "local-chat-completions",
        "--apply_chat_template", "--log_samples", "--output_path", str(out),
        "--model_args", f"model=test-model,base_url={base}/chat/completions,"
        "tokenizer_backend=none,num_concurrent=4",
    ]  # fmt: skip
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    (results,) = out.rglob("results_*.json")
    return dict(json.loads(results.read_text())["results"])


@pytest.mark.slow
def test_lm_eval_runs_the_exported_tasks_with_quizbots_accuracy(
    runner: CliRunner, tmp_path: Path
) -> None:
    need("lm_eval")
    include = tmp_path / "tasks"
    oracle = tmp_path / "items.jsonl"
    text = ""
    for name in ("tfq", "mcq"):
        _export(runner, tmp_path, name)
        plain = tmp_path / f"{name}.jsonl"
        _ok(runner.invoke(cli, ["items", "export", name, "--out", str(plain)]))
        text += plain.read_text()
    oracle.write_text(text, encoding="utf-8")
    wrong = _wrong_oracle(oracle, tmp_path / "wrong.jsonl")
    seen: dict[str, dict[str, float]] = {}
    for model, items in (("right", oracle), ("some-wrong", wrong)):
        with stub_server("--oracle", str(items), "--policy", "correct") as base:
            results = _lm_eval(base, include, ["quizbot_tfq", "quizbot_mcq"], tmp_path / model)
            for name in ("tfq", "mcq"):
                done = _ok(runner.invoke(cli, ["eval", "--model", "openai/stub", "--api-base",
                                               base, "--item-set", name, "--json"]))  # fmt: skip
                ours = json.loads(done.stdout)["metrics"]
                theirs = results[f"quizbot_{name}"]
                assert theirs["acc,none"] == pytest.approx(ours["average_accuracy"])
                assert theirs["answered,none"] == pytest.approx(ours["answer_rate"])
                seen.setdefault(model, {})[name] = theirs["acc,none"]
    assert seen["right"] == {"tfq": 1.0, "mcq": 1.0}
    # Every third item is answered wrong: 4 of 12 statements, 1 of 4 questions.
    assert seen["some-wrong"] == {"tfq": pytest.approx(8 / 12), "mcq": pytest.approx(3 / 4)}
