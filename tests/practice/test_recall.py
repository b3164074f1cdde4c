"""Open recall practice on both backends: a student's free-text list scored by the models' scorer.

Expected figures never come from the practice service. Each question's gold list is read from
clinical-core's JSON file (the disease's tails for the relation), the student's answer is built
from it, and the precision / recall / F1 are counted by hand from what was put in the answer
(gold entities named, made-up names added); the tier and the lists are then checked against
:func:`quizbot.evaluation.recall.score_recall` called here on the item, as a model's answer is.
"""

from __future__ import annotations

import asyncio
import json
import statistics
from collections import defaultdict
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from quizbot.analysis.assignments import assignment_results
from quizbot.analysis.comparison import compare
from quizbot.analysis.recall import mean_interval
from quizbot.domain import AssignmentMode, RespondentKind
from quizbot.errors import DuplicateError, InputError, NotFoundError
from quizbot.evaluation import EvalSpec, ModelOverrides, evaluate
from quizbot.evaluation.recall import DEFAULT_TIERS, score_recall
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.generate.service import load_any_items
from quizbot.items import RecallItem
from quizbot.practice import review_queue
from quizbot.practice.service import (
    answer,
    answer_recall,
    grade_recall_entry,
    next_question,
    next_recall_question,
    progress,
    recall_aspects,
    recall_summary,
    resumable_session,
    start_assignment_session,
    start_recall_assignment,
    start_recall_session,
    start_session,
    summary,
)
from storage import Database
from storage.assignments import get_assignment
from storage.models import Response
from storage.review_cards import review_watermark
from storage.sessions import find_respondent, load_session
from tests.helpers.stub import stub_server
from tests.practice.test_service import KB_FILE

WRONG = ("purple toenails", "telepathy")  # names no clinical-core list holds
RELATIONS = {
    "has_symptom": "symptoms",
    "affects_site": "sites",
    "treated_with_drug": "drugs",
    "treated_with_procedure": "procedures",
    "has_complication": "complications",
    "investigated_with": "investigations",
    "typical_age_group": "age_groups",
    "treated_with_drug_class": "drug_classes",
}


def session_rows(db: Database, session_id: int) -> list[Response]:
    """The stored answers of a practice session, oldest first, straight from the table."""
    from sqlmodel import col, select

    stmt = (
        select(Response)
        .where(col(Response.quiz_session_id) == session_id)
        .order_by(col(Response.id))
    )
    return db.read(lambda s: list(s.execute(stmt).scalars()))


def gold_from_file(relation: str, disease: str) -> list[str]:
    """The gold list straight from clinical-core's JSON (not from the item)."""
    data: dict[str, Any] = json.loads(KB_FILE.read_text("utf-8"))
    for entry in data["diseases"]:
        if entry["name"] == disease:
            return list(entry.get(RELATIONS[relation], []))
    raise AssertionError(f"{disease} is not in {KB_FILE}")


def item_of(db: Database, session_id: int, position: int) -> RecallItem:
    entry = load_session(db, session_id).session.config["items"][position - 1]
    found = load_any_items(db, [entry["id"]])[0]
    assert isinstance(found, RecallItem)
    return found


def by_hand(named: int, unverified: int, n_gold: int) -> tuple[float, float, float]:
    """Precision, recall and F1 of an answer naming ``named`` distinct gold entities and
    ``unverified`` made-up ones (nothing is known of them: they count on neither side)."""
    del unverified
    precision = 1.0 if named else 0.0
    recall = named / n_gold
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def tier_of(f1: float) -> str:
    return "basically correct" if f1 >= 0.7 else "completely wrong" if f1 < 0.25 else (
        "partially correct"
    )  # fmt: skip


def test_a_recall_session_is_scored_by_the_models_scorer_and_stored(db: Database) -> None:
    view = start_recall_session(db, student="Rae", kb="clinical-core", length=4, seed="r1")
    assert view.format == "recall" and view.total == 4 and view.topic_label == "Recall: All aspects"
    answers_given: list[tuple[str, tuple[float, float, float] | None]] = []
    for position in range(1, 5):
        question = next_recall_question(db, view.id)
        assert question is not None and question.position == position
        item = item_of(db, view.id, position)
        gold = gold_from_file(item.relation, item.head)
        assert list(item.answers) == gold
        # The question carries no gold entity and no id of the item.
        shown = json.dumps(question.as_json())
        assert item.id not in shown and not any(f'"{g}"' in shown for g in gold)
        assert question.disease == item.head and question.text == item.question
        half = gold[: (len(gold) + 1) // 2]
        if position == 1:  # everything, as a numbered list, plus one wrong name
            text = "\n".join(f"{n}. {g}" for n, g in enumerate([*gold, WRONG[0]], start=1))
            expected: tuple[float, float, float] | None = by_hand(len(gold), 1, len(gold))
        elif position == 2:  # half, with commas and "and"
            text = ", ".join(half[:-1]) + (" and " if len(half) > 1 else "") + half[-1]
            expected = by_hand(len(half), 0, len(gold))
        elif position == 3:  # bullets: one right, two wrong
            text = f"- {gold[0]}\n- {WRONG[0]}\n- {WRONG[1]}"
            expected = by_hand(1, 2, len(gold))
        else:
            text = "I don't know"
            expected = None
        shown_at = datetime.now(UTC) - timedelta(seconds=3)
        feedback = answer_recall(db, view.id, question.id, text, shown_at=shown_at)
        reference = score_recall(item, text, tiers=DEFAULT_TIERS)
        assert feedback.your_answer == text and feedback.read_as == list(reference.answers)
        if expected is None:
            assert feedback.outcome == "abstained" and feedback.f1 == 0.0
            assert feedback.missed == gold and not feedback.recalled and not feedback.wrong
        else:
            precision, recall, f1 = expected
            assert feedback.precision == pytest.approx(precision)
            assert feedback.recall == pytest.approx(recall)
            assert feedback.f1 == pytest.approx(f1)
            assert feedback.tier == tier_of(f1) == reference.tier
            assert feedback.outcome == ("correct" if f1 >= 0.7 else "incorrect")
            recalled = [r.gold for r in feedback.recalled]
            named = gold if position == 1 else half if position == 2 else gold[:1]
            assert recalled == named and feedback.missed == [g for g in gold if g not in named]
            assert all(r.how == "name" and r.answer == r.gold for r in feedback.recalled)
            made_up = list(WRONG[: {1: 1, 2: 0, 3: 2}[position]])
            assert feedback.unverified == made_up and feedback.wrong == []
            assert [(n.entry, n.kind, n.self_grade) for n in feedback.notes] == [
                (w, "unverified", None) for w in made_up
            ]
        assert feedback.position == position and feedback.answered == position
        assert feedback.finished is (position == 4)
        answers_given.append((text, expected))
    assert next_recall_question(db, view.id) is None

    # Stored like any practice answer: raw text, outcome, the scorer's summary and reason, time.
    stored = load_session(db, view.id)
    assert stored.session.status == "finished"
    rows = session_rows(db, view.id)
    assert [r.raw_text for r in rows] == [t for t, _ in answers_given]
    for row, (text, _) in zip(rows, answers_given, strict=True):
        loaded = load_any_items(db, [row.item_id])[0]
        assert isinstance(loaded, RecallItem)
        reference = score_recall(loaded, text)
        assert row.outcome == reference.outcome.value
        assert row.parsed_answer == reference.summary and row.parse_reason == reference.reason
        assert row.latency_ms is not None and 2_500 <= row.latency_ms < 60_000
        assert row.run_id is None and row.answer_pass is None

    # The session's figures: mean F1 per aspect, recomputed from the hand-counted F1s.
    result = recall_summary(db, view.id)
    f1s = [e[2] if e else 0.0 for _, e in answers_given]
    assert result.scores.n_answered == 4
    assert result.scores.f1.mean == pytest.approx(statistics.mean(f1s))
    assert [a.position for a in result.answers] == [1, 2, 3, 4]
    by_aspect: dict[str, list[float]] = defaultdict(list)
    for position, f1 in enumerate(f1s, start=1):
        by_aspect[item_of(db, view.id, position).aspect].append(f1)
    assert {a.aspect: a.f1.mean for a in result.scores.aspects} == pytest.approx(
        {k: statistics.mean(v) for k, v in by_aspect.items()}
    )
    with pytest.raises(InputError, match="recall"):
        summary(db, view.id)  # the recognition summary does not take a recall session


def test_synonyms_and_narrower_names_recall_and_say_how(db: Database) -> None:
    view = start_recall_session(db, student="Syn", kb="clinical-core", length=40, seed="s")
    items = [item_of(db, view.id, p) for p in range(1, view.total + 1)]
    with_synonym = next(i for i in items if any(i.synonyms.get(g) for g in i.answers))
    gold = next(g for g in with_synonym.answers if with_synonym.synonyms.get(g))
    other_name = with_synonym.synonyms[gold][0]
    position = items.index(with_synonym) + 1
    feedback = answer_recall(db, view.id, f"s{view.id}q{position}", other_name)
    assert [(r.gold, r.answer, r.how) for r in feedback.recalled] == [(gold, other_name, "synonym")]
    assert feedback.precision == 1.0 and feedback.recall == pytest.approx(
        1 / len(with_synonym.answers)
    )
    narrow = next(
        (i for i in items if i is not with_synonym and any(i.narrower.get(g) for g in i.answers)),
        None,
    )
    if narrow is not None:
        wide = next(g for g in narrow.answers if narrow.narrower.get(g))
        part = narrow.narrower[wide][0]
        if part not in narrow.answers:
            at = items.index(narrow) + 1
            feedback = answer_recall(db, view.id, f"s{view.id}q{at}", part)
            how = [(r.gold, r.answer, r.how) for r in feedback.recalled]
            assert (wide, part, "narrower") in how


def test_unreadable_answers_store_nothing_and_the_first_answer_stands(db: Database) -> None:
    view = start_recall_session(
        db, student="Kit", kb="clinical-core", aspect="symptoms", length=2, seed="k"
    )
    assert view.topic == "relation:has_symptom"
    question = next_recall_question(db, view.id)
    assert question is not None and question.aspect == "symptoms"
    for bad in ("", "   ", "...", "x" * 2001):
        with pytest.raises(InputError):
            answer_recall(db, view.id, question.id, bad)
    assert load_session(db, view.id).answers == []
    first = answer_recall(db, view.id, question.id, "fever")
    with pytest.raises(DuplicateError):
        answer_recall(db, view.id, question.id, "cough")
    rows = session_rows(db, view.id)
    assert [r.raw_text for r in rows] == ["fever"] and first.answered == 1
    with pytest.raises(InputError, match="no recall aspect"):
        start_recall_session(db, student="Kit", kb="clinical-core", aspect="colours")
    with pytest.raises(InputError):
        start_recall_session(db, student="Kit", kb="clinical-core", length=0)
    topics = {t.name: t.n_facts for t in recall_aspects(db, "clinical-core")}
    assert set(topics) == set(RELATIONS) and all(n > 0 for n in topics.values())


def test_progress_reports_recall_apart_and_spaced_review_still_works(db: Database) -> None:
    view = start_recall_session(db, student="Pat", kb="clinical-core", length=3, seed="p")
    # The chat does not offer a recall session for resuming (it has a section of its own).
    assert resumable_session(db, "Pat") is None
    f1s: dict[str, list[float]] = defaultdict(list)
    for position in range(1, 4):
        question = next_recall_question(db, view.id)
        assert question is not None
        item = item_of(db, view.id, position)
        named = list(item.answers[:position])
        answer_recall(db, view.id, question.id, "; ".join(named))
        f1s[item.aspect].append(by_hand(len(named), 0, len(item.answers))[2])
    # A recognition session afterwards: its accuracy leaves the recall answers out, and the
    # spaced-review hook reads the student's history (recall answers included) without failing.
    chat = start_session(db, student="Pat", kb="clinical-core", length=1, seed="p")
    asked = next_question(db, chat.id)
    assert asked is not None
    answer(db, chat.id, asked.id, "true")
    found = progress(db, "Pat")
    assert found.total_answered == 1 and found.accuracy.n == 1
    assert found.recall is not None and found.recall.n_answered == 3
    assert {a.aspect: a.f1.mean for a in found.recall.aspects} == pytest.approx(
        {k: statistics.mean(v) for k, v in f1s.items()}
    )
    every = [f for v in f1s.values() for f in v]
    interval = mean_interval(every)["interval"]
    assert [found.recall.f1.low, found.recall.f1.high] == pytest.approx(interval)
    assert [s.format for s in found.sessions] == ["recall", "statement"]
    respondent = find_respondent(db, RespondentKind.HUMAN, "pat")
    assert respondent is not None and respondent.id is not None
    review_queue.sync(db, respondent.id)
    newest = session_rows(db, chat.id)[-1].id
    assert review_watermark(db, respondent.id) == newest  # every answer read, recall ones too


def _oracle_file(db: Database, name: str, path: Path) -> list[RecallItem]:
    found = get_assignment(db, name)
    items = [i for i in load_any_items(db, list(found.item_ids)) if isinstance(i, RecallItem)]
    path.write_text("".join(json.dumps(i.to_json()) + "\n" for i in items), encoding="utf-8")
    return items


def test_a_recall_assignment_puts_students_next_to_a_model_per_aspect(
    db: Database, tmp_path: Path
) -> None:
    made = make_assignment(
        db,
        AssignmentRequest(
            name="recall-wk", kb="clinical-core", points=6, seed="a", format="recall"
        ),
    )
    assert made.config["format"] == "recall" and len(made.item_ids) == 6
    with pytest.raises(InputError, match="recall"):
        start_assignment_session(db, assignment="recall-wk", student="ann")
    expected: dict[str, dict[str, list[float]]] = {"ann": defaultdict(list), "bob": {}}
    bob: dict[str, list[float]] = defaultdict(list)
    expected["bob"] = bob
    for student in ("ann", "bob"):
        view = start_recall_assignment(db, assignment="recall-wk", student=student)
        assert view.assignment == "recall-wk" and view.total == 6
        assert start_recall_assignment(db, assignment="recall-wk", student=student).id == view.id
        while (question := next_recall_question(db, view.id)) is not None:
            item = item_of(db, view.id, question.position)
            if student == "ann":  # everything right
                text, f1 = ", ".join(item.answers), 1.0
            else:  # the first entity and one made-up name
                text, f1 = f"{item.answers[0]}, {WRONG[0]}", by_hand(1, 1, len(item.answers))[2]
            answer_recall(db, view.id, question.id, text)
            expected[student][item.aspect].append(f1)
    items = _oracle_file(db, "recall-wk", tmp_path / "items.jsonl")
    with stub_server("--oracle", str(tmp_path / "items.jsonl"), "--policy", "bar1") as base:
        spec = EvalSpec(
            model="openai/recall-test",
            max_tokens=256,
            overrides=ModelOverrides(api_base=base),
            style="chat",
            assignment_id=made.id,
        )
        run = asyncio.run(evaluate(db, spec, items))
        # The same answers graded by the run with very lenient tiers: the results still grade
        # every respondent by one set, so both runs come out alike.
        lenient = replace(spec, model="openai/recall-lenient", recall_tiers="f1:0.01:0.02")
        other = asyncio.run(evaluate(db, lenient, items))
    assert run.status == "completed" and run.errors == 0
    assert other.status == "completed" and other.errors == 0

    results = assignment_results(db, "recall-wk")
    rows = {r["name"]: r for r in results["respondents"]}
    graded = {name: rows[name]["recall"]["overall"] for name in rows if "recall-" in name}
    lenient_overall, strict_overall = graded["openai/recall-lenient"], graded["openai/recall-test"]
    assert lenient_overall.keys() == strict_overall.keys()
    for key, value in strict_overall.items():  # the same answers: the same figures (float sums
        mine = lenient_overall[key]  # may add up in another order)
        if isinstance(value, dict) and "mean" in value:
            assert mine["n"] == value["n"] and mine["mean"] == pytest.approx(value["mean"]), key
            assert mine["interval"] == pytest.approx(value["interval"]), key
        else:
            assert mine == value, key
    assert (
        rows["openai/recall-lenient"]["metrics"]["accuracy"]
        == rows["openai/recall-test"]["metrics"]["accuracy"]
    )
    assert any(f"run {other.run_id}" in note for note in results["notes"])
    results["respondents"] = [r for r in results["respondents"] if r["name"] != lenient.model]
    assert results["format"] == "recall"
    rows = {r["name"]: r for r in results["respondents"]}
    assert set(rows) == {"ann", "bob", "openai/recall-test"}
    for student, aspects in expected.items():
        recall = rows[student]["recall"]
        assert rows[student]["kind"] == "student" and rows[student]["n_items"] == 6
        for aspect, values in aspects.items():
            figure = recall["by_aspect"][aspect]["f1"]
            assert figure["mean"] == pytest.approx(statistics.mean(values))
            assert figure["n"] == len(values)
    # The oracle's bar1: the first half of the gold (rounded up) and one entity nothing knows.
    model = rows["openai/recall-test"]
    assert model["run_id"] == run.run_id
    for aspect, part in model["recall"]["by_aspect"].items():
        mine = [i for i in items if i.aspect == aspect]
        values = []
        for i in mine:
            half = (len(i.answers) + 1) // 2
            values.append(by_hand(half, 1, len(i.answers))[2])
        assert part["f1"]["mean"] == pytest.approx(statistics.mean(values))
    assert model["recall_tests"]["test"] == "welch_t"
    pooled = results["students_pooled"]["recall"]["overall"]["f1"]
    everyone = [f for aspects in expected.values() for v in aspects.values() for f in v]
    assert pooled["mean"] == pytest.approx(statistics.mean(everyone)) and pooled["n"] == 12
    assert rows["ann"]["metrics"]["accuracy"]["k"] == 6  # all basically correct

    # Bob marks his made-up entries himself, wrong on odd questions and right on even ones:
    # stored, shown, and no compared figure moves (a mark counted as a verdict would move F1).
    before = assignment_results(db, "recall-wk")
    bob_view = start_recall_assignment(db, assignment="recall-wk", student="bob")
    marks = {p: "wrong" if p % 2 else "right" for p in range(1, 7)}
    for position, mark in marks.items():
        marked = grade_recall_entry(db, bob_view.id, f"s{bob_view.id}q{position}", WRONG[0], mark)
        assert [(n.entry, n.self_grade) for n in marked.notes] == [(WRONG[0], mark)]
        assert marked.f1 == pytest.approx(
            by_hand(1, 1, len(item_of(db, bob_view.id, position).answers))[2]
        )
    with pytest.raises(InputError, match="no unverified entry"):
        grade_recall_entry(db, bob_view.id, f"s{bob_view.id}q1", "telepathy", "right")
    with pytest.raises(InputError, match="right or wrong"):
        grade_recall_entry(db, bob_view.id, f"s{bob_view.id}q1", WRONG[0], "maybe")
    shown = [a for a in recall_summary(db, bob_view.id).answers]
    assert [n.self_grade for a in shown for n in a.notes] == [marks[a.position] for a in shown]
    after = assignment_results(db, "recall-wk")
    assert after == before
    # Humans vs models (recognition items) still works with recall answers in the database.
    found = compare(db, kb="clinical-core")
    assert not found.students and all(g.kind != "students" for g in found.groups)


def test_a_recall_exam_withholds_everything_until_the_last_answer(db: Database) -> None:
    make_assignment(
        db,
        AssignmentRequest(
            name="recall-exam",
            kb="clinical-core",
            points=2,
            seed="e",
            format="recall",
            mode=AssignmentMode.EXAM,
        ),
    )
    view = start_recall_assignment(db, assignment="recall-exam", student="eve")
    first = next_recall_question(db, view.id)
    assert first is not None
    receipt = answer_recall(db, view.id, first.id, "fever, cough, purple toenails")
    assert receipt.outcome == "withheld" and receipt.f1 is None and not receipt.missed
    assert receipt.notes == [] and receipt.unverified == []
    with pytest.raises(InputError, match="withheld"):
        grade_recall_entry(db, view.id, first.id, "purple toenails", "right")
    pending = recall_summary(db, view.id)
    assert pending.answers == [] and pending.scores.n_answered == 0
    respondent = find_respondent(db, RespondentKind.HUMAN, "eve")
    assert respondent is not None
    assert progress(db, "eve").recall is None  # not before the exam is complete
    second = next_recall_question(db, view.id)
    assert second is not None
    last = answer_recall(db, view.id, second.id, "I don't know")
    assert last.outcome == "abstained" and last.finished
    assert len(recall_summary(db, view.id).answers) == 2
    with pytest.raises(InputError, match="recall"):
        make_assignment(
            db,
            AssignmentRequest(
                name="recall-two",
                kb="clinical-core",
                format="recall",
                two_pass=True,
                mode=AssignmentMode.EXAM,
            ),
        )


def test_an_account_only_starts_its_own_cohorts_recall_assignments(db: Database) -> None:
    """As in the chat: another cohort's recall assignment is unknown to an account of a cohort;
    its own cohort's and one of no cohort start; without a known cohort (local mode) any does."""
    for name, cohort in (("recall-y3", "Y3"), ("recall-open", None)):
        make_assignment(
            db,
            AssignmentRequest(
                name=name, kb="clinical-core", points=2, seed="c", format="recall", cohort=cohort
            ),
        )
    with pytest.raises(NotFoundError, match="no assignment"):
        start_recall_assignment(db, assignment="recall-y3", student="kai", cohort="Y4")
    assert start_recall_assignment(db, assignment="recall-y3", student="lia", cohort="Y3").total
    assert start_recall_assignment(db, assignment="recall-open", student="kai", cohort="Y4").total
    assert start_recall_assignment(db, assignment="recall-y3", student="mo").total
