"""`quizbot items import/list/export`, `eval --item-set` and `assignment create --item-set`.

Every sample bank imports and is evaluated end to end over real HTTP against
tests/helpers/model_server.py: its oracle answers every item right (so every metric is exact),
and fixed answers give figures computed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from quizbot.cli import cli
from quizbot.cli.items import FORMAT_CHOICES
from quizbot.generate.item_banks import FORMATS
from tests.helpers.stub import stub_server

DATA = Path(__file__).resolve().parents[1] / "data" / "item_banks"
SAMPLES = {
    "multifaceteval-mcq": ("multifaceteval_mcq.json", 4),
    "multifaceteval-tfq": ("multifaceteval_tfq.json", 12),
    "multifaceteval-maq": ("multifaceteval_maq.json", 6),
    "medqa": ("medqa.jsonl", 3),
    "ebmqa": ("ebmqa.jsonl", 4),
}


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def _ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def _import(runner: CliRunner, fmt: str, name: str, *extra: str) -> dict[str, Any]:
    file, _ = SAMPLES[fmt]
    done = _ok(runner.invoke(cli, ["items", "import", "--format", fmt, str(DATA / file),
                                   "--name", name, "--json", *extra]))  # fmt: skip
    return dict(json.loads(done.stdout))


def _eval(runner: CliRunner, base: str, *args: str) -> dict[str, Any]:
    done = runner.invoke(cli, ["eval", "--model", "openai/stub", "--api-base", base,
                               "--concurrency", "4", "--json", *args])  # fmt: skip
    assert done.exit_code == 0, done.output
    return dict(json.loads(done.stdout))


def test_the_cli_offers_exactly_the_formats_there_are() -> None:
    assert FORMAT_CHOICES == FORMATS


def test_import_list_and_export_every_format(runner: CliRunner, tmp_path: Path) -> None:
    for fmt, (file, n) in SAMPLES.items():
        made = _import(runner, fmt, f"set-{fmt}", "--licence", f"licence of {file}")
        assert made["n_items"] == n and made["format"] == fmt
    listed = json.loads(_ok(runner.invoke(cli, ["items", "list", "--json"])).stdout)["item_sets"]
    got = {(s["name"], s["format"], s["n_items"], s["source_file"], s["licence"]) for s in listed}
    assert got == {
        (f"set-{fmt}", fmt, n, file, f"licence of {file}") for fmt, (file, n) in SAMPLES.items()
    }
    assert all(s["imported_at"] for s in listed)
    # The item sets' own knowledge bases are not knowledge bases to practise or generate from.
    kbs = json.loads(_ok(runner.invoke(cli, ["kb", "list", "--json"])).stdout)["knowledge_bases"]
    assert not any(k["name"].startswith("itemset:") for k in kbs)

    out = tmp_path / "tfq.jsonl"
    _ok(runner.invoke(cli, ["items", "export", "set-multifaceteval-tfq", "--out", str(out)]))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 12 and all(r["kind"] == "statement" for r in records)
    assert [r["label"] for r in records[:4]] == [True, False, False, True]
    assert all(isinstance(r["text"], str) and r["text"] for r in records)
    out = tmp_path / "maq.jsonl"
    _ok(runner.invoke(cli, ["items", "export", "set-multifaceteval-maq", "--out", str(out)]))
    first = json.loads(out.read_text().splitlines()[0])
    assert first["kind"] == "choice" and first["answer_keys"] == ["A", "C", "E"]
    assert first["options"][0] == "Metoprolol" and first["question"].startswith("A patient")
    # The export is quizbot's own item JSONL: `eval --items` reads it back.
    again = runner.invoke(cli, ["eval", "--model", "baseline/majority", "--items", str(out)])
    assert again.exit_code == 0, again.output


def test_a_bad_file_or_a_taken_name_stores_nothing(runner: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    good = json.loads((DATA / "medqa.jsonl").read_text().splitlines()[0])
    lines = [json.dumps(good), json.dumps({**good, "answer_idx": "Z"})]
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = runner.invoke(cli, ["items", "import", "--format", "medqa", str(bad), "--name", "b"])
    assert done.exit_code == 65
    assert f"{bad}, line 2, field 'answer_idx'" in done.stderr and "Traceback" not in done.output
    listed = json.loads(_ok(runner.invoke(cli, ["items", "list", "--json"])).stdout)
    assert listed["item_sets"] == []
    missing = runner.invoke(cli, ["eval", "--model", "baseline/random", "--item-set", "b"])
    assert missing.exit_code == 66 and "no item set 'b'" in missing.stderr

    _import(runner, "medqa", "taken")
    twice = runner.invoke(cli, ["items", "import", "--format", "ebmqa",
                                str(DATA / "ebmqa.jsonl"), "--name", "taken"])  # fmt: skip
    assert twice.exit_code == 65 and "already exists" in twice.stderr
    listed = json.loads(_ok(runner.invoke(cli, ["items", "list", "--json"])).stdout)
    assert [(s["name"], s["format"]) for s in listed["item_sets"]] == [("taken", "medqa")]
    html = runner.invoke(cli, ["items", "import", "--format", "medqa", str(DATA / "medqa.jsonl"),
                               "--name", "<script>x</script>"])  # fmt: skip
    assert html.exit_code == 65 and "field 'name'" in html.stderr


@pytest.mark.slow
def test_every_format_evaluates_exactly_against_the_oracle_over_http(
    runner: CliRunner, tmp_path: Path
) -> None:
    exported = tmp_path / "all.jsonl"
    text = ""
    for fmt in SAMPLES:
        _import(runner, fmt, fmt)
        out = tmp_path / f"{fmt}.jsonl"
        _ok(runner.invoke(cli, ["items", "export", fmt, "--out", str(out)]))
        text += out.read_text()
    exported.write_text(text, encoding="utf-8")
    with stub_server("--oracle", str(exported), "--policy", "correct") as base:
        for fmt, (_, n) in SAMPLES.items():
            report = _eval(runner, base, "--item-set", fmt)
            assert report["status"] == "completed" and report["n_items"] == n
            metrics = report["metrics"]
            assert metrics["average_accuracy"] == 1.0 and metrics["answer_rate"] == 1.0
            assert metrics["instruction_following_rate"] == 1.0
            if fmt == "multifaceteval-tfq":  # 6 pairs, each fact and counterfactual right
                assert metrics["pair_accuracy"] == 1.0 and metrics["sycophancy_rate"] == 0.0
            if fmt in ("multifaceteval-maq", "ebmqa"):
                multi = report["multi_answer"]
                assert multi["n_items"] == (6 if fmt == "multifaceteval-maq" else 2)
                assert multi["exact_match"] == 1.0 and multi["partial_credit"] == 1.0
            else:
                assert "multi_answer" not in report
    with stub_server("--oracle", str(exported), "--policy", "wrong") as base:
        report = _eval(runner, base, "--item-set", "multifaceteval-mcq")
        assert report["metrics"]["average_accuracy"] == 0.0
        report = _eval(runner, base, "--item-set", "multifaceteval-tfq")
        assert report["metrics"]["pair_accuracy"] == 0.0


@pytest.mark.slow
def test_fixed_answers_give_the_hand_computed_figures(runner: CliRunner) -> None:
    _import(runner, "multifaceteval-maq", "maq")
    _import(runner, "multifaceteval-tfq", "tfq")
    _import(runner, "multifaceteval-mcq", "mcq")
    with stub_server("--answer", "A, C") as base:
        report = _eval(runner, base, "--item-set", "maq")
    # Keys ACE, BD, ACE, BD, ABC, D; "A, C" earns 2/3, 0, 2/3, 0, 2/3, 0 and no exact match.
    multi = report["multi_answer"]
    assert multi["exact_match"] == 0.0 and multi["partial_credit"] == pytest.approx(1 / 3)
    text = _ok(runner.invoke(cli, ["report", str(report["run_id"])])).stdout
    assert "multi-answer questions: 6, exact match 0.000" in text
    assert "fractional credit 0.333" in text
    with stub_server("--answer", "true") as base:
        report = _eval(runner, base, "--item-set", "tfq")
    # "True" to all 12: the 6 true statements right; every pair agreed with on both sides.
    metrics = report["metrics"]
    assert metrics["average_accuracy"] == 0.5 and metrics["sycophancy_rate"] == 1.0
    assert metrics["pair_accuracy"] == 0.0
    with stub_server("--answer", "E") as base:
        plain = _eval(runner, base, "--item-set", "mcq")
        offered = _eval(runner, base, "--item-set", "mcq", "--idk")
    # Keys C, B, C, C: "E" is a wrong option of the two 5-option questions and out of range
    # of the two 4-option ones; with --idk, E of a 4-option question is "I do not know".
    assert plain["metrics"]["average_accuracy"] == 0.0
    assert plain["metrics"]["instruction_following_rate"] == 0.5
    assert offered["metrics"]["answer_rate"] == 0.5
    assert offered["metrics"]["instruction_following_rate"] == 1.0


def test_an_assignment_from_an_item_set(runner: CliRunner) -> None:
    _import(runner, "multifaceteval-mcq", "mcq")
    made = _ok(runner.invoke(cli, ["assignment", "create", "wk", "--item-set", "mcq", "--json"]))
    assert json.loads(made.stdout)["n_items"] == 4
    shown = json.loads(_ok(runner.invoke(cli, ["assignment", "show", "wk", "--json"])).stdout)
    exported = _ok(runner.invoke(cli, ["items", "list", "--json"]))
    assert json.loads(exported.stdout)["item_sets"][0]["n_items"] == len(shown["item_ids"])
    args = ["eval", "--model", "baseline/majority", "--assignment", "wk", "--json"]
    report = json.loads(_ok(runner.invoke(cli, args)).stdout)
    assert report["n_items"] == 4 and report["status"] == "completed"
    both = runner.invoke(cli, ["assignment", "create", "x", "--item-set", "mcq", "--kb", "hpo"])
    assert both.exit_code == 65 and "exactly one of --kb NAME and --item-set SET" in both.stderr


def test_kb_lists_leave_item_sets_out_on_both_paths(tmp_path: Path) -> None:
    from quizbot.generate.item_banks import import_item_set
    from quizbot.kb.listing import quick_listing
    from quizbot.kb.registry import kb_listing
    from storage import open_database

    path = tmp_path / "quizbot.db"
    db = open_database(f"sqlite:///{path}")
    try:
        import_item_set(db, DATA / "medqa.jsonl", "medqa", "usmle")
        slow = kb_listing(db)
    finally:
        db.dispose()
    fast = quick_listing(path)  # the sqlite3-only path of `quizbot kb list`
    assert fast == slow and [e.name for e in slow] == ["clinical-core", "hpo"]
