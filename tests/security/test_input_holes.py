"""Small holes in input handling, each refused with a clear user error on both backends:
names with markup, newlines or path parts; NUL bytes; JSON nested deeply enough to crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.errors import InputError
from quizbot.jsonl import MAX_DEPTH, read_objects
from quizbot.names import check_name
from storage import Database
from storage.repo import create_run, get_or_create_respondent, list_runs

BAD_NAMES = {
    "markup": "<img src=x onerror=alert(1)>",
    "newline": "cohort\nadmin",
    "control": "kb\x1b[31m",
    "nul": "kb\x00name",
    "path": "../../etc/passwd",
    "backslash": "C:\\kb",
    "dots": "..",
    "long": "k" * 101,
    "blank": "   ",
}


@pytest.mark.parametrize("name", BAD_NAMES.values(), ids=BAD_NAMES.keys())
def test_a_bad_name_is_refused_with_the_reason(name: str) -> None:
    with pytest.raises(InputError) as caught:
        check_name(name)
    assert "name" in str(caught.value)


def test_ordinary_names_pass_stripped() -> None:
    for name in ("clinical-core", "Cardio 2026 (spring)", "Kardiologie – Woche 3", "O'Brien set"):
        assert check_name(f" {name} ") == name
    assert check_name("k" * 100) == "k" * 100


def _triplets(tmp_path: Path, head: str = "aspirin") -> Path:
    path = tmp_path / "kb.csv"
    path.write_text(f"head,relation,tail\n{head},may_treat,pain\nibuprofen,may_treat,fever\n")
    return path


@pytest.mark.parametrize("kind", ["markup", "newline", "path", "long"])
def test_kb_import_refuses_a_bad_name_on_every_backend(
    kind: str, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    runner = CliRunner()
    done = runner.invoke(
        cli, ["kb", "import", "--format", "triplets", str(_triplets(tmp_path)),
              "--name", BAD_NAMES[kind]],
    )  # fmt: skip
    assert done.exit_code == 65, done.output
    assert "name" in done.stderr and "Traceback" not in done.output
    listed = runner.invoke(cli, ["kb", "list", "--json"])
    assert BAD_NAMES[kind].strip() not in listed.stdout


def test_a_nul_byte_in_an_imported_file_names_file_line_and_field(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    path = _triplets(tmp_path, head="aspi\x00rin")
    done = CliRunner().invoke(
        cli, ["kb", "import", "--format", "triplets", str(path), "--name", "with-nul"]
    )
    assert done.exit_code == 65, done.output
    assert f"{path}, line 2, field 'head': contains a NUL byte" in done.stderr


def test_the_database_refuses_nul_bytes_alike_on_both_backends(db: Database) -> None:
    from quizbot.domain import RespondentKind

    model = get_or_create_respondent(db, RespondentKind.MODEL, "test/model")
    assert model.id is not None
    for config in ({"note": "a\x00b"}, {"nested": ["ok", {"deep": "\x00"}]}):
        with pytest.raises(InputError, match="NUL byte"):
            create_run(db, respondent_id=model.id, model_requested="test/model", n_items=1,
                       config=config)  # fmt: skip
    with pytest.raises(InputError, match="NUL byte"):
        create_run(db, respondent_id=model.id, model_requested="test\x00model", n_items=1)
    assert list_runs(db) == []  # nothing half-written
    create_run(db, respondent_id=model.id, model_requested="test/model", n_items=1)
    assert len(list_runs(db)) == 1  # and the database still works


def test_deeply_nested_json_is_an_input_error_with_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    crash = "[" * 200_000 + "]" * 200_000
    path.write_text('{"id": "a"}\n{"x": ' + crash + "}\n")
    with pytest.raises(InputError) as caught:
        list(read_objects(path))
    assert f"{path}, line 2: JSON nested more than {MAX_DEPTH} levels deep" in str(caught.value)
    # Deep enough to trouble code that walks it, yet parseable: refused the same way.
    path.write_text(json.dumps({"x": json.loads("[" * 40 + "]" * 40)}) + "\n")
    with pytest.raises(InputError, match=r"line 1: JSON nested more than"):
        list(read_objects(path))
    path.write_text(json.dumps({"a": {"b": [1, {"c": [2]}]}}) + "\n")
    assert [n for n, _ in read_objects(path)] == [1]


def test_eval_with_a_deeply_nested_items_file_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'q.db'}")
    path = tmp_path / "items.jsonl"
    path.write_text('{"x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    done = CliRunner().invoke(cli, ["eval", "--model", "baseline/random", "--items", str(path)])
    assert done.exit_code == 65, done.output
    assert f"{path}, line 1: JSON nested more than" in done.stderr
    assert "RecursionError" not in done.output and "Traceback" not in done.output


def test_a_deeply_nested_model_settings_value_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from quizbot.config import load_settings
    from quizbot.errors import ConfigError

    monkeypatch.setenv("QUIZBOT_MODEL_SETTINGS", "[" * 100_000 + "]" * 100_000)
    with pytest.raises(ConfigError, match="QUIZBOT_MODEL_SETTINGS"):
        load_settings()
