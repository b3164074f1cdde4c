"""The whole published MultifacetEval MAQ test file through the command line and real HTTP: it
imports (795 rows, 1,590 items) and a model answering every key scores 1.0. Skips, saying so,
when the file is not on this machine (see tests/generate/test_published_banks.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from tests.generate.test_published_banks import WHOLE
from tests.helpers.stub import stub_server


@pytest.mark.slow
def test_the_published_maq_file_imports_and_every_key_scores_one(
    monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Path
) -> None:
    path = WHOLE / "multifaceteval/medqa/MAQ/test.json"
    if not path.is_file():
        pytest.skip(f"{path} is not on this machine (set QUIZBOT_PUBLISHED_BANKS)")
    monkeypatch.setenv("DATABASE_URL", database_url)
    runner = CliRunner()
    done = runner.invoke(cli, ["items", "import", "--format", "multifaceteval-maq", str(path),
                               "--name", "mfe-maq", "--json"])  # fmt: skip
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert summary["n_items"] == 1590 and summary["repeated_options"] == 640
    assert summary["invalid_rows_skipped"] == 0
    items = tmp_path / "maq.jsonl"
    exported = runner.invoke(cli, ["items", "export", "mfe-maq", "--out", str(items)])
    assert exported.exit_code == 0, exported.output
    with stub_server("--oracle", str(items), "--policy", "correct") as base:
        args = ["--item-set", "mfe-maq", "--concurrency", "8", "--json"]
        run = runner.invoke(cli, ["eval", "--model", "openai/stub", "--api-base", base, *args])
    assert run.exit_code == 0, run.output
    report = json.loads(run.stdout)
    assert report["n_items"] == 1590 and report["metrics"]["average_accuracy"] == 1.0
    assert report["multi_answer"]["exact_match"] == 1.0
