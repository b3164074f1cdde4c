"""A student on an assignment made from an imported item set (no knowledge points behind it)."""

from __future__ import annotations

from pathlib import Path

from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.generate.item_banks import import_item_set
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.service import answer, next_question
from storage import Database

DATA = Path(__file__).resolve().parents[1] / "data" / "item_banks"


def test_a_student_answers_an_imported_question_and_gets_its_key(db: Database) -> None:
    import_item_set(db, DATA / "medqa.jsonl", "medqa", "usmle")
    made = make_assignment(db, AssignmentRequest(name="wk", kb="", item_set="usmle"))
    assert made.kb_name == "itemset:usmle" and len(made.item_ids) == 3
    view = start_assignment_session(db, assignment="wk", student="Ann")
    question = next_question(db, view.id)
    assert question is not None and question.options is not None
    assert [o.letter for o in question.options][:2] == ["A", "B"]
    feedback = answer(db, view.id, question.id, "A")
    assert feedback.outcome in {"correct", "incorrect"} and feedback.correct_answer
