"""``quizbot kb list`` and ``quizbot kb import`` on both backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from quizbot.cli import cli

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
MEDLAMA = DATA / "medlama"
PRETEX = DATA / "pretexeval" / "prompts_pretex.csv"

FACTS = (
    "head,relation,tail,head_type,tail_type,group\n"
    "gout,has_symptom,joint pain,disease,symptom,musculoskeletal\n"
    "gout,has_symptom,fever,disease,symptom,musculoskeletal\n"
    "gout,treated_with_drug,colchicine,disease,drug,musculoskeletal\n"
    "asthma,has_symptom,wheeze,disease,symptom,respiratory\n"
    "asthma,has_symptom,wheeze,disease,symptom,respiratory\n"  # a duplicate: 4 distinct facts
)


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def _invoke(runner: CliRunner, *args: str) -> Result:
    return runner.invoke(cli, list(args))


def _listing(runner: CliRunner) -> dict[str, dict[str, Any]]:
    result = _invoke(runner, "kb", "list", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"knowledge_bases"}
    return {entry["name"]: entry for entry in data["knowledge_bases"]}


def _kb_rows(runner: CliRunner) -> tuple[int, int]:
    result = _invoke(runner, "db", "info", "--json")
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)["counts"]
    return counts["knowledge_base"], counts["knowledge_point"]


def _facts_file(tmp_path: Path, name: str = "facts.csv", content: str = FACTS) -> Path:
    file = tmp_path / name
    file.write_text(content, encoding="utf-8")
    return file


def test_kb_list_on_an_empty_database_shows_the_builtins(runner: CliRunner) -> None:
    result = _invoke(runner, "kb", "list")
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    assert set(lines) == {"clinical-core", "hpo"}
    assert "built in" in lines["clinical-core"]
    assert "built in" in lines["hpo"]


def test_kb_list_json_is_one_object(runner: CliRunner) -> None:
    result = _invoke(runner, "kb", "list", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # the whole of stdout is one JSON document
    assert list(data) == ["knowledge_bases"]
    entries = {e["name"]: e for e in data["knowledge_bases"]}
    assert set(entries) == {"clinical-core", "hpo"}
    for entry in entries.values():
        assert entry["installed"] is False
        assert entry["points"] == 0
    assert _kb_rows(runner) == (0, 0)  # listing installs nothing


def test_import_triplets_then_list_and_reimport(runner: CliRunner, tmp_path: Path) -> None:
    file = _facts_file(tmp_path)
    result = _invoke(runner, "kb", "import", "--format", "triplets", str(file), "--name", "mykb")
    assert result.exit_code == 0, result.output
    assert "'mykb'" in result.stdout
    assert "4 knowledge points" in result.stdout

    entries = _listing(runner)
    assert entries["mykb"]["installed"] is True
    assert entries["mykb"]["points"] == 4
    assert entries["mykb"]["relations"] == {"has_symptom": 3, "treated_with_drug": 1}
    assert entries["clinical-core"]["installed"] is False
    counts = _kb_rows(runner)
    assert counts == (1, 4)

    again = _invoke(runner, "kb", "import", "--format", "triplets", str(file), "--name", "mykb")
    assert again.exit_code == 0, again.output
    assert "nothing to do" in again.stdout
    assert _kb_rows(runner) == counts


def test_import_json_output(runner: CliRunner, tmp_path: Path) -> None:
    file = _facts_file(tmp_path)
    result = _invoke(
        runner, "kb", "import", "--format", "triplets", str(file), "--name", "mykb", "--json"
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["name"] == "mykb"
    assert data["points"] == 4
    assert data["added"] == 4
    assert data["relations"] == 2
    assert data["created"] is True


def test_a_different_file_under_a_taken_name_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    first = _facts_file(tmp_path)
    ok = _invoke(runner, "kb", "import", "--format", "triplets", str(first), "--name", "mykb")
    assert ok.exit_code == 0, ok.output
    other = _facts_file(
        tmp_path, "other.csv", "head,relation,tail\nmigraine,has_symptom,headache\n"
    )
    counts = _kb_rows(runner)
    result = _invoke(runner, "kb", "import", "--format", "triplets", str(other), "--name", "mykb")
    assert result.exit_code == 65
    assert "mykb" in result.stderr
    assert "another --name" in result.stderr
    assert "Traceback" not in result.output
    assert _kb_rows(runner) == counts
    assert _listing(runner)["mykb"]["points"] == 4


def test_a_builtin_name_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    file = _facts_file(tmp_path)
    result = _invoke(
        runner, "kb", "import", "--format", "triplets", str(file), "--name", "clinical-core"
    )
    assert result.exit_code == 65
    assert "built-in" in result.stderr
    assert "--name" in result.stderr
    assert _kb_rows(runner) == (0, 0)


def test_a_malformed_file_exits_65_naming_where_and_imports_nothing(
    runner: CliRunner, tmp_path: Path
) -> None:
    good = _facts_file(tmp_path)
    ok = _invoke(runner, "kb", "import", "--format", "triplets", str(good), "--name", "good")
    assert ok.exit_code == 0, ok.output
    before = _kb_rows(runner)
    assert before == (1, 4)
    bad = _facts_file(
        tmp_path,
        "bad.csv",
        "head,relation,tail\nmigraine,has_symptom,headache\nmigraine,has_symptom,\n"
        "stroke,has_symptom,aphasia\n",
    )
    result = _invoke(runner, "kb", "import", "--format", "triplets", str(bad), "--name", "bad")
    assert result.exit_code == 65
    assert result.stderr.startswith(f"error: {bad}, line 3, field 'tail':")
    assert "Traceback" not in result.output
    assert result.stdout == ""
    assert _kb_rows(runner) == before
    assert "bad" not in _listing(runner)


def test_an_over_long_tail_is_an_input_error(runner: CliRunner, tmp_path: Path) -> None:
    bad = _facts_file(
        tmp_path, "long.csv", f"head,relation,tail\nmigraine,has_symptom,{'x' * 501}\n"
    )
    result = _invoke(runner, "kb", "import", "--format", "triplets", str(bad), "--name", "long")
    assert result.exit_code == 65, result.output
    assert f"{bad}, line 2, field 'tail'" in result.stderr


def test_import_prototypes_of_the_paper_file(runner: CliRunner) -> None:
    if not PRETEX.is_file():
        pytest.skip(f"PretexEval prototype file not found at {PRETEX}")
    args = ("kb", "import", "--format", "prototypes", str(PRETEX), "--name", "pretex")
    first = _invoke(runner, *args)
    assert first.exit_code == 0, first.output
    assert "imported prototype set 'pretex'" in first.stdout
    assert "17 relations" in first.stdout
    second = _invoke(runner, *args)
    assert second.exit_code == 0, second.output
    assert "already imported" in second.stdout
    assert "imported prototype set" not in second.stdout


def test_import_prototypes_with_an_unknown_header_exits_65(
    runner: CliRunner, tmp_path: Path
) -> None:
    file = _facts_file(tmp_path, "odd.csv", "id,text\n1,[X] is [Y]\n")
    result = _invoke(runner, "kb", "import", "--format", "prototypes", str(file), "--name", "odd")
    assert result.exit_code == 65
    assert f"{file}, line 1" in result.stderr


@pytest.mark.slow
def test_import_the_real_medlama_folder(runner: CliRunner) -> None:
    if not (MEDLAMA / "2021AA").is_dir():
        pytest.skip(f"MedLAMA data not found at {MEDLAMA} (see /work/shared/data/README.md)")
    result = _invoke(runner, "kb", "import", "--format", "medlama", str(MEDLAMA), "--name", "ml")
    assert result.exit_code == 0, result.output
    assert "(19,000 knowledge points) in 19 relations" in result.stdout
    entry = _listing(runner)["ml"]
    assert entry["installed"] is True
    assert len(entry["relations"]) == 19
    assert entry["points"] > 19_000  # every gold tail is stored; 19,000 of them are primary
    again = _invoke(runner, "kb", "import", "--format", "medlama", str(MEDLAMA), "--name", "ml")
    assert again.exit_code == 0, again.output
    assert "nothing to do" in again.stdout
