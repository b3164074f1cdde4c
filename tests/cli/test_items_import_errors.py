"""`quizbot items import`: every failure is a user error naming the file, line and field, and
stores nothing (both databases); `--skip-invalid` and its report; `--format quizbot`."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from quizbot.cli import cli

DATA = Path(__file__).resolve().parents[1] / "data" / "item_banks"
GOOD = {"question": "Which drug?", "options": {"A": "x", "B": "y"}, "answer_idx": "A"}


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Path) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.chdir(tmp_path)
    return CliRunner()


def _sets(runner: CliRunner) -> list[dict[str, Any]]:
    done = runner.invoke(cli, ["items", "list", "--json"])
    assert done.exit_code == 0, done.output
    return list(json.loads(done.stdout)["item_sets"])


def _import(runner: CliRunner, fmt: str, path: Path, name: str, *extra: str) -> Result:
    return runner.invoke(cli, ["items", "import", "--format", fmt, str(path), "--name", name,
                               *extra])  # fmt: skip


def _lines(path: Path, *records: str) -> Path:
    path.write_text("\n".join(records) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("fmt", "content", "where"),
    [
        # JSON nested 100,000 deep, as JSONL and inside MultifacetEval's list of rows.
        ("medqa", json.dumps(GOOD) + '\n{"question": ' + "[" * 100_000 + "]" * 100_000 + "}",
         "line 2: JSON nested more than 32 levels deep"),
        ("multifaceteval-mcq", "[\n" + "[" * 100_000 + "]" * 100_000 + "\n]",
         "line 2: JSON nested more than 32 levels deep"),
        ("multifaceteval-mcq", "[\n" + "[" * 40 + "]" * 40 + "\n]",
         "line 2: JSON nested more than 32 levels deep"),
        # A lone surrogate: valid JSON, not Unicode text.
        ("medqa", json.dumps(GOOD) + '\n{"question": "Which \\ud800 drug?", "options": '
         '{"A": "x", "B": "y"}, "answer_idx": "A"}',
         "line 2, field 'question': holds a lone surrogate (\\ud800)"),
        ("medqa", '{"question": "Q?", "options": {"A": "x", "B": "y\\udfff"}, "answer_idx": "A"}',
         "line 1, field 'options.B': holds a lone surrogate (\\udfff)"),
        # NUL, in an option and in a value that only goes to the item's meta.
        ("medqa", '{"question": "Q?", "options": {"A": "x\\u0000", "B": "y"}, "answer_idx": "A"}',
         "line 1, field 'options.A': contains a NUL byte"),
        ("medqa", json.dumps({**GOOD, "meta_info": "step\u00001"}),
         "line 1, field 'meta_info': contains a NUL byte"),
        ("multifaceteval-mcq", '[[1, "Question: Q?\\u0000\\nOptions: A: x\\tB: y", "A"]]',
         "line 1, field '[1]': contains a NUL byte"),
        ("medqa", json.dumps({**GOOD, "question": "Which \u202edrug?"}),
         "line 1, field 'question': contains the control character U+202E"),
    ],
)  # fmt: skip
def test_bad_text_is_a_user_error_that_stores_nothing(
    runner: CliRunner, tmp_path: Path, fmt: str, content: str, where: str
) -> None:
    path = tmp_path / "bank.json"
    path.write_text(content, encoding="utf-8")
    done = _import(runner, fmt, path, "bad")
    assert done.exit_code == 65, done.output
    assert f"error: {path}, {where}" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.output
    assert "SELECT" not in done.stderr and "INSERT" not in done.stderr
    assert _sets(runner) == []


def test_an_answer_letter_named_twice_is_refused_and_stores_nothing(
    runner: CliRunner, tmp_path: Path
) -> None:
    row = {"question": "Q?", "type": "semantic", "options": ["a", "b", "c"]}
    path = _lines(
        tmp_path / "ebmqa.jsonl",
        json.dumps({**row, "answer_keys": ["A"]}),
        json.dumps({**row, "answer_keys": ["B", " b"]}),  # the same letter, written twice
    )
    done = _import(runner, "ebmqa", path, "twice")
    assert done.exit_code == 65, done.output
    assert f"{path}, line 2, field 'answer_keys': names a letter twice" in done.stderr
    assert _sets(runner) == []


def test_bytes_that_are_not_utf8_are_refused_with_their_line(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(json.dumps(GOOD).encode() + b'\n{"question": "caf\xe9"}\n')
    done = _import(runner, "medqa", path, "latin")
    assert done.exit_code == 65 and f"{path}, line 2: is not UTF-8 text" in done.stderr
    assert _sets(runner) == []


def test_a_licence_with_a_surrogate_is_refused(runner: CliRunner) -> None:
    done = _import(runner, "medqa", DATA / "medqa.jsonl", "s", "--licence", "MIT \udcff")
    assert done.exit_code == 65 and "field 'licence'" in done.stderr
    assert _sets(runner) == []


def _maq_with_a_contradiction(tmp_path: Path) -> Path:
    rows = json.loads((DATA / "published" / "multifaceteval_maq_test.json").read_text())
    bad = [99, "Question: Which are beta blockers?\n"
           "Options: A: Atenolol\nB:  Atenolol \nC: Amlodipine",
           "Question: Which are not beta blockers?\nOptions: A: Atenolol\nB: Amlodipine",
           ["A"], ["B"]]  # fmt: skip
    path = tmp_path / "maq.json"
    path.write_text(json.dumps([rows[0], bad, rows[1]], indent=4), encoding="utf-8")
    return path


def test_a_contradictory_repeat_refuses_the_file_or_only_its_row(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = _maq_with_a_contradiction(tmp_path)
    whole = _import(runner, "multifaceteval-maq", path, "maq")
    assert whole.exit_code == 65
    assert (f"{path}, line 16, field '[1] question': options A and B say the same ('Atenolol') "
            "but A is a right answer and B is not") in whole.stderr  # fmt: skip
    assert _sets(runner) == []

    report = tmp_path / "skipped.csv"
    done = _import(runner, "multifaceteval-maq", path, "maq", "--skip-invalid",
                   "--report", str(report), "--json")  # fmt: skip
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert summary["n_items"] == 4 and summary["invalid_rows_skipped"] == 1
    assert summary["repeated_options"] == 4 and summary["report"] == str(report)
    rows = list(csv.DictReader(report.open(encoding="utf-8")))
    assert [(r["file"], r["line"], r["field"]) for r in rows] == [(str(path), "16", "[1] question")]
    assert rows[0]["reason"].startswith("options A and B say the same")
    assert [(s["name"], s["n_items"]) for s in _sets(runner)] == [("maq", 4)]


def test_skip_invalid_writes_its_default_report_and_report_needs_it(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = DATA / "published" / "medqa_mainland_test.jsonl"
    alone = _import(runner, "medqa", path, "cn", "--report", "x.csv")
    assert alone.exit_code == 65 and "--skip-invalid" in alone.stderr
    done = _import(runner, "medqa", path, "cn", "--skip-invalid")
    assert done.exit_code == 0, done.output
    assert "1 invalid row(s) left out, listed in cn.skipped.csv" in done.output
    assert (tmp_path / "cn.skipped.csv").read_text(encoding="utf-8").count("\n") == 2
    # Nothing valid at all: still an error, and still nothing stored.
    only_bad = _lines(tmp_path / "bad.jsonl", json.dumps({**GOOD, "answer_idx": "Q"}))
    none = _import(runner, "medqa", only_bad, "none", "--skip-invalid")
    assert none.exit_code == 65 and "no items" in none.stderr
    assert [s["name"] for s in _sets(runner)] == ["cn"]


def test_quizbot_item_jsonl_becomes_an_item_set_and_exports_back(
    runner: CliRunner, tmp_path: Path
) -> None:
    records: list[dict[str, Any]] = []
    for fmt in ("statements", "choice"):
        out = tmp_path / f"{fmt}.jsonl"
        made = runner.invoke(cli, ["generate", "--kb", "clinical-core", "--points", "2",
                                   "--format", fmt, "--seed", "3", "--out", str(out)])  # fmt: skip
        assert made.exit_code == 0, made.output
        records += [json.loads(line) for line in out.read_text().splitlines()]
    generated = _lines(tmp_path / "generated.jsonl", *(json.dumps(r) for r in records))
    done = _import(runner, "quizbot", generated, "pinned", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["n_items"] == len(records)
    back = tmp_path / "back.jsonl"
    exported = runner.invoke(cli, ["items", "export", "pinned", "--out", str(back)])
    assert exported.exit_code == 0, exported.output
    again = [json.loads(line) for line in back.read_text().splitlines()]
    assert [r["meta"]["source_id"] for r in again] == [r["id"] for r in records]
    assert {r["kb"] for r in again} == {"itemset:pinned"}
    keep = ("kind", "text", "label", "options", "answer_keys", "relation", "head", "transform")
    assert [{k: r.get(k) for k in keep} for r in again] == [
        {k: r.get(k) for k in keep} for r in records
    ]


def test_quizbot_items_edited_or_of_another_kind_are_refused(
    runner: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "items.jsonl"
    made = runner.invoke(cli, ["generate", "--kb", "clinical-core", "--points", "1",
                               "--out", str(out)])  # fmt: skip
    assert made.exit_code == 0, made.output
    first, second, *_ = (json.loads(line) for line in out.read_text().splitlines())
    edited = {**second, "label": not second["label"]}
    recall = {"kind": "recall", "question": "List the symptoms of gout."}
    no_text = {k: v for k, v in first.items() if k != "text"}
    long_head = {k: v for k, v in first.items() if k != "id"} | {"head": "h" * 501}
    path = _lines(tmp_path / "bad.jsonl", json.dumps(first), json.dumps(edited),
                  json.dumps(recall), json.dumps(no_text), json.dumps(long_head))  # fmt: skip
    done = _import(runner, "quizbot", path, "q")
    assert done.exit_code == 65
    assert f"{path}, line 2, field 'id': does not match the item's content" in done.stderr
    assert f"{path}, line 3, field 'kind': open recall items cannot be an item set" in done.stderr
    assert f"{path}, line 4, field 'text': is missing" in done.stderr
    assert f"{path}, line 5, field 'head': is longer than 500 characters" in done.stderr
    assert _sets(runner) == []
