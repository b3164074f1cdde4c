"""`quizbot generate` through the command line, on both databases."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.generate import service


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def test_generate_statements_prints_a_json_summary(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "items.jsonl"
    args = ["generate", "--kb", "clinical-core", "--points", "3", "--seed", "9"]
    result = runner.invoke(cli, [*args, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["points"], summary["items"], summary["stored_new"]) == (3, 48, 48)
    lines = out.read_text().splitlines()
    assert len(lines) == 48
    first = json.loads(lines[0])
    assert first["kind"] == "statement" and first["kb"] == "clinical-core"
    assert sum(json.loads(line)["label"] for line in lines) == 24  # half of 16 per point are true


def test_generate_choice_questions_end_with_i_do_not_know(
    runner: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "mcq.jsonl"
    args = ["generate", "--kb", "clinical-core", "--points", "5", "--format", "choice"]
    result = runner.invoke(cli, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records
    for record in records:
        assert record["kind"] == "choice"
        assert record["options"][-1] == "I do not know"
        assert {"question", "options", "answer_keys"} <= set(record)
        letters = "ABCDEFGHIJ"[: len(record["options"]) - 1]
        assert set(record["answer_keys"]) <= set(letters)  # never the "I do not know" letter
        assert len(letters) in (5, 6) and 1 <= len(record["answer_keys"]) <= 4
    # Questions not made are counted by reason: acute appendicitis affects only the appendix,
    # which its stem gives away.
    points = tmp_path / "points.jsonl"
    points.write_text(
        '{"head": "acute appendicitis", "relation": "affects_site", "tail": "appendix"}\n'
    )
    summary = runner.invoke(
        cli,
        [
            *args[:3],
            "--format",
            "choice",
            "--points-file",
            str(points),
            "--out",
            str(out),
            "--json",
        ],
    )
    assert summary.exit_code == 0, summary.output
    assert json.loads(summary.output)["questions_skipped"] == {
        "every right option is named in the stem": 1
    }


def test_bad_input_exits_65_and_writes_no_output(runner: CliRunner, tmp_path: Path) -> None:
    points = tmp_path / "points.jsonl"
    points.write_text('{"head": "asthma", "relation": "has_symptom"}\n')
    out = tmp_path / "never.jsonl"
    result = runner.invoke(
        cli, ["generate", "--kb", "clinical-core", "--points-file", str(points), "--out", str(out)]
    )
    assert result.exit_code == 65
    assert f"{points}, line 1, field 'tail'" in result.stderr
    assert "Traceback" not in result.output
    assert not out.exists() and not (tmp_path / "never.jsonl.tmp").exists()


def test_unknown_kb_and_bad_rephrasing_model_are_clear(runner: CliRunner, tmp_path: Path) -> None:
    out = str(tmp_path / "o.jsonl")
    missing = runner.invoke(cli, ["generate", "--kb", "nope", "--out", out])
    assert missing.exit_code == 66
    assert (
        "no knowledge base named 'nope'" in missing.stderr and "quizbot kb list" in missing.stderr
    )
    args = ["generate", "--kb", "clinical-core", "--points", "1", "--out", out]
    model = runner.invoke(cli, [*args, "--rephrase", "gpt-4o"])
    assert model.exit_code == 65
    assert "needs a provider prefix" in model.stderr


def test_generate_runs_without_the_garbage_collector_and_restores_it(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, bool]] = []
    prepare, write = service.prepare, service.write

    def watched_prepare(*args: Any, **kwargs: Any) -> Any:
        seen.append(("prepare", gc.isenabled()))
        return prepare(*args, **kwargs)

    def watched_write(*args: Any, **kwargs: Any) -> Any:
        seen.append(("write", gc.isenabled()))
        return write(*args, **kwargs)

    monkeypatch.setattr(service, "prepare", watched_prepare)
    monkeypatch.setattr(service, "write", watched_write)
    args = ["generate", "--kb", "clinical-core", "--points", "2", "--no-store"]
    assert gc.isenabled()
    gc.unfreeze()
    done = runner.invoke(cli, [*args, "--out", str(tmp_path / "a.jsonl")])
    assert done.exit_code == 0, done.output
    assert seen == [("prepare", False), ("write", False)]
    assert gc.isenabled()  # on again for whatever runs next in this process
    # What the command built is frozen, so the collection at interpreter exit skips it.
    assert gc.get_freeze_count() > 0
    gc.unfreeze()
    failed = runner.invoke(cli, [*args, "--relations", "nope", "--out", str(tmp_path / "b.jsonl")])
    assert failed.exit_code == 65 and gc.isenabled()  # and after a failure too
    gc.disable()
    try:  # a caller's choice is kept
        again = runner.invoke(cli, [*args, "--out", str(tmp_path / "c.jsonl")])
        assert again.exit_code == 0 and not gc.isenabled()
    finally:
        gc.enable()
