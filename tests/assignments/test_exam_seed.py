"""An exam's items come from a secret seed (issue 25, L1).

``quizbot generate`` with the public defaults rebuilt 13 of 13 assignment items, exams included,
with their keys. An exam's facts, false statements and variants are now drawn with a secret seed
stored with it, never shown nor exported; a practice assignment's seed stays public.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.domain import AssignmentMode
from quizbot.generate.assignments import AssignmentRequest, assignment_items, make_assignment
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.seats import Sitter
from storage import Database, open_database
from storage.assignments import create_assignment, get_assignment, secret_seed

# --------------------------------------------------------------------------------------------
# L1: an exam's secret seed


def _generated_ids(runner: CliRunner, tmp_path: Path, points: int, *extra: str) -> set[str]:
    out = tmp_path / f"gen-{points}-{'-'.join(extra) or 'default'}.jsonl"
    args = ["generate", "--kb", "clinical-core", "--points", str(points), "--out", str(out)]
    done = runner.invoke(cli, [*args, "--no-store", *extra])
    assert done.exit_code == 0, done.output
    return {json.loads(line)["id"] for line in out.read_text().splitlines()}


def test_public_defaults_do_not_rebuild_an_exam_but_rebuild_a_practice_assignment(
    monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Path
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    runner = CliRunner()
    base = ["assignment", "create", "--kb", "clinical-core", "--points", "13"]
    for name, mode in (("exam13", "exam"), ("practice13", "practice")):
        done = runner.invoke(cli, [*base[:2], name, *base[2:], "--mode", mode])
        assert done.exit_code == 0, done.output
    public = _generated_ids(runner, tmp_path, 13)
    db = open_database(database_url)
    try:
        exam, exam_items = assignment_items(db, "exam13")
        practice, practice_items = assignment_items(db, "practice13")
        hidden = secret_seed(db, exam.id)
        assert secret_seed(db, practice.id) is None
    finally:
        db.dispose()
    assert len(exam_items) == len(practice_items) == 13
    # The attack, as a control: the public defaults rebuild a practice assignment item for item
    assert {i.id for i in practice_items} <= public
    # ... but not the exam: its facts and false statements come from its secret seed
    rebuilt = {i.id for i in exam_items} & public
    assert len(rebuilt) <= 2, f"{len(rebuilt)} of 13 exam items rebuilt by the public defaults"
    # the seed is stored: with it, and only with it, generate rebuilds the exam
    assert hidden is not None and len(hidden) == 32
    assert {i.id for i in exam_items} <= _generated_ids(runner, tmp_path, 13, "--seed", hidden)
    assert exam.config["seed"] is None and exam.config["seed_secret"] is True

    # never shown, never exported
    shown = runner.invoke(cli, ["assignment", "show", "exam13"])
    assert shown.exit_code == 0 and "seed: secret" in shown.output
    outputs = [
        shown.output,
        runner.invoke(cli, ["assignment", "show", "exam13", "--json"]).output,
        runner.invoke(cli, ["assignment", "list", "--json"]).output,
    ]
    items_out, csv_out, jsonl_out = (tmp_path / n for n in ("i.jsonl", "r.csv", "r.jsonl"))
    done = runner.invoke(cli, ["assignment", "export", "exam13", "--out", str(items_out)])
    assert done.exit_code == 0, done.output
    done = runner.invoke(
        cli,
        [
            *("assignment", "results", "exam13", "--export-csv", str(csv_out)),
            *("--export-jsonl", str(jsonl_out), "--json"),
        ],
    )
    assert done.exit_code == 0, done.output
    outputs += [done.output, *(p.read_text() for p in (items_out, csv_out, jsonl_out))]
    assert not [text for text in outputs if hidden in text]
    shown_practice = runner.invoke(cli, ["assignment", "show", "practice13"])
    assert "seed: 0" in shown_practice.output  # a practice assignment's seed stays public


def test_an_exam_with_the_instructors_seed_keeps_it_secret_too(db: Database) -> None:
    make_assignment(
        db,
        AssignmentRequest(
            name="e", kb="clinical-core", points=3, seed="chosen-seed", mode=AssignmentMode.EXAM
        ),
    )
    make_assignment(
        db, AssignmentRequest(name="p", kb="clinical-core", points=3, seed="chosen-seed")
    )
    exam, practice = get_assignment(db, "e"), get_assignment(db, "p")
    assert secret_seed(db, exam.id) == "chosen-seed" and exam.config["seed"] is None
    assert exam.item_ids == practice.item_ids  # drawn with the seed given
    assert "chosen-seed" not in json.dumps(exam.config)


def test_an_exam_made_before_the_secret_seed_keeps_working(db: Database) -> None:
    make_assignment(db, AssignmentRequest(name="src", kb="clinical-core", points=3))
    ids = list(get_assignment(db, "src").item_ids)
    old = create_assignment(  # as stored before 0020: a public seed, no secret one
        db,
        name="old-exam",
        kb_name="clinical-core",
        item_ids=ids,
        mode="exam",
        config={"points": 3, "seed": "0", "format": "statements"},
    )
    assert secret_seed(db, old.id) is None
    view = start_assignment_session(db, assignment="old-exam", student="amy", sitter=Sitter(None))
    assert view.total == 3 and view.mode == "exam"
