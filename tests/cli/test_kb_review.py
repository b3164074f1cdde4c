"""``quizbot kb review`` (export, mark, import), ``kb flags``, ``kb decide``, ``kb overrides``."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from quizbot.cli import cli
from quizbot.kb.registry import get_kb
from quizbot.practice.service import answer, flag, next_question, start_session
from storage import open_database
from storage.review import list_overrides, retired_item_ids


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def _invoke(runner: CliRunner, *args: str) -> Result:
    return runner.invoke(cli, list(args))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_export_mark_import_round_trip(
    runner: CliRunner, database_url: str, tmp_path: Path
) -> None:
    out = tmp_path / "review.csv"
    exported = _json(
        _invoke(
            runner, "kb", "review", "clinical-core", "--out", str(out), "--points", "6", "--json"
        )
    )
    rows = _rows(out)
    assert list(rows[0]) == [
        "kb", "kind", "head", "relation", "tail", "true_tail", "question", "verdict", "note",
    ]  # fmt: skip
    negatives = [r for r in rows if r["kind"] == "negative"]
    distractors = [r for r in rows if r["kind"] == "distractor"]
    assert (exported["negatives"], exported["distractors"]) == (len(negatives), len(distractors))
    assert len(negatives) == 6 and distractors
    assert all(r["true_tail"] and not r["question"] for r in negatives)
    assert all(r["question"] and not r["true_tail"] for r in distractors)
    assert all(r["verdict"] == "" for r in rows)

    negatives[0]["verdict"] = "true"
    negatives[1]["verdict"] = "wrong-fact"
    negatives[1]["note"] = "textbook error"
    distractors[0]["verdict"] = " TRUE "
    negatives[2]["verdict"] = "false"
    marked = tmp_path / "marked.csv"
    _write(marked, rows)
    args = ("kb", "review", "clinical-core", "--import", str(marked), "--by", "Dr K", "--json")
    first = _json(_invoke(runner, *args))
    assert first == {
        "kb": "clinical-core",
        "file": str(marked),
        "rows": len(rows),
        "true": 2,
        "wrong_fact": 1,
        "reviewed_false": 1,
        "unchanged": len(rows) - 4,
        "stored": 4,
    }
    again = _json(_invoke(runner, *args))
    assert again["stored"] == 0  # idempotent

    db = open_database(database_url)
    try:
        stored = {(o.head, o.relation, o.tail, o.kind) for o in list_overrides(db, "clinical-core")}
        wrong = negatives[1]
        true = "true_not_negative"
        fine = negatives[2]
        assert stored == {
            (negatives[0]["head"], negatives[0]["relation"], negatives[0]["tail"], true),
            (distractors[0]["head"], distractors[0]["relation"], distractors[0]["tail"], true),
            (wrong["head"], wrong["relation"], wrong["true_tail"], "false_remove"),
            (fine["head"], fine["relation"], fine["tail"], "reviewed_false"),
        }
        kb, _ = get_kb(db, "clinical-core")
        facts = {(t.head, t.relation, t.tail) for t in kb.triplets}
        assert (wrong["head"], wrong["relation"], wrong["true_tail"]) not in facts
        assert (negatives[0]["head"], negatives[0]["relation"], negatives[0]["tail"]) in (
            kb.extra_truths
        )
        # a clinician's "false" makes the candidate a reviewed one, offered first
        assert (fine["head"], fine["relation"], fine["tail"]) in kb.reviewed_false
    finally:
        db.dispose()
    listed = _json(_invoke(runner, "kb", "overrides", "clinical-core", "--json"))
    assert len(listed["overrides"]) == 4
    assert {o["source"] for o in listed["overrides"]} == {"review-csv"}
    assert {o["created_by"] for o in listed["overrides"]} == {"Dr K"}
    assert "textbook error" in {o["note"] for o in listed["overrides"]}


def test_a_bad_row_is_named_by_file_line_and_field_and_nothing_is_stored(
    runner: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "review.csv"
    assert (
        _invoke(
            runner, "kb", "review", "clinical-core", "--out", str(out), "--points", "3"
        ).exit_code
        == 0
    )
    rows = _rows(out)
    rows[0]["verdict"] = "true"  # a good row: must not be stored either
    rows[1]["verdict"] = "maybe"
    rows[2]["kb"] = "hpo"
    marked = tmp_path / "marked.csv"
    _write(marked, rows)
    result = _invoke(runner, "kb", "review", "clinical-core", "--import", str(marked))
    assert result.exit_code == 65, result.output
    assert f"{marked}, line 3, field 'verdict': unknown verdict 'maybe'" in result.stderr
    assert f"{marked}, line 4, field 'kb'" in result.stderr
    assert "nothing was stored" in result.stderr and "Traceback" not in result.output
    assert _json(_invoke(runner, "kb", "overrides", "clinical-core", "--json"))["overrides"] == []

    rows[1]["verdict"], rows[2]["kb"] = "", "clinical-core"
    rows[0]["verdict"], rows[0]["true_tail"] = "wrong-fact", ""
    _write(marked, rows)
    result = _invoke(runner, "kb", "review", "clinical-core", "--import", str(marked))
    assert result.exit_code == 65 and "line 2, field 'true_tail'" in result.stderr

    missing = _invoke(runner, "kb", "review", "clinical-core", "--import", str(tmp_path / "no.csv"))
    assert missing.exit_code == 65 and "no.csv" in missing.stderr
    both = _invoke(runner, "kb", "review", "clinical-core")
    assert both.exit_code == 65 and "exactly one of --out" in both.stderr


def test_flags_are_listed_and_decided_from_the_command_line(
    runner: CliRunner, database_url: str
) -> None:
    db = open_database(database_url)
    try:
        view = start_session(db, student="cy", length=2, seed="cli")
        question = next_question(db, view.id)
        assert question is not None
        feedback = answer(db, view.id, question.id, "false")
        stored = flag(db, view.id, feedback.question_id, "ambiguous", "two readings")
    finally:
        db.dispose()
    listed = _json(_invoke(runner, "kb", "flags", "--json"))
    (entry,) = listed["items"]
    assert entry["item_id"] == stored.item_id and entry["flags"][0]["comment"] == "two readings"
    text = _invoke(runner, "kb", "flags")
    assert "two readings" in text.stdout and "key:" in text.stdout

    bad = _invoke(runner, "kb", "decide", str(stored.id), "--action", "maybe")
    assert bad.exit_code == 2
    missing = _invoke(runner, "kb", "decide", "999", "--action", "retire")
    assert missing.exit_code == 66 and "no flag with id 999" in missing.stderr
    decided = _json(
        _invoke(
            runner, "kb", "decide", str(stored.id), "--action", "retire", "--by", "rev", "--json"
        )
    )
    assert decided == {
        "flag": stored.id,
        "action": "retire",
        "closed_flags": [stored.id],
        "new_overrides": 0,
        "retired": True,
    }
    assert _json(_invoke(runner, "kb", "flags", "--json"))["items"] == []
    db = open_database(database_url)
    try:
        assert retired_item_ids(db) == {stored.item_id}
    finally:
        db.dispose()
    again = _invoke(runner, "kb", "decide", str(stored.id), "--action", "dismiss")
    assert again.exit_code == 65 and "already resolved" in again.stderr
