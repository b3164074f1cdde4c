"""The practice service on both backends, checked against the clinical-core facts read directly.

Expected answers never come from the service: a statement's truth is looked up in
quizbot/kb/data/clinical_core.json (is the tail listed for the head under the relation?) and
flipped when the sentence is a double-negation variant; a choice question's right letters are the
options the file lists for the head.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections import Counter, defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

import quizbot.kb
from quizbot.domain import RespondentKind
from quizbot.errors import DuplicateError, InputError, NotFoundError
from quizbot.evaluation.runner import RunConfig, execute, prepare_run
from quizbot.generate.service import load_items
from quizbot.practice.service import (
    Question,
    answer,
    end_session,
    next_question,
    progress,
    session_view,
    start_session,
    summary,
    topics,
)
from quizbot.providers import get_provider
from storage import Database
from storage.repo import ItemRow, get_items
from storage.sessions import find_respondent, load_session

KB_FILE = Path(quizbot.kb.__file__).parent / "data" / "clinical_core.json"
LISTS = {
    "symptoms": "has_symptom",
    "sites": "affects_site",
    "drugs": "treated_with_drug",
    "drug_classes": "treated_with_drug_class",
    "procedures": "treated_with_procedure",
    "complications": "has_complication",
    "investigations": "investigated_with",
    "age_groups": "typical_age_group",
}
TRANSFORM_WORDS = {  # written out by hand
    "none": "original statement",
    "inv": "inversion",
    "ins": "instantiation",
    "inv+ins": "inversion + instantiation",
    "dn": "double negation",
    "inv+dn": "inversion + double negation",
    "ins+dn": "instantiation + double negation",
    "inv+ins+dn": "inversion + instantiation + double negation",
}
RELATION_TOPICS = {
    "has_symptom": "Symptoms and signs",
    "affects_site": "Sites affected",
    "treated_with_drug": "Drug treatment",
    "treated_with_procedure": "Procedures",
    "has_complication": "Complications",
    "investigated_with": "Investigations",
    "typical_age_group": "Age at presentation",
    "treated_with_drug_class": "Drug classes",
    "prevents": "Prevention",
}
FORBIDDEN_KEYS = {"label", "answer", "answer_keys", "polarity", "transform", "lineage", "key"}


@lru_cache(maxsize=1)
def _kb() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(KB_FILE.read_text("utf-8"))
    return data


@lru_cache(maxsize=1)
def kb_tails() -> dict[tuple[str, str], list[str]]:
    """(head, relation) -> tails, straight from the JSON file."""
    tails: dict[tuple[str, str], list[str]] = defaultdict(list)
    for disease in _kb()["diseases"]:
        for key, relation in LISTS.items():
            tails[(disease["name"], relation)].extend(disease.get(key, []))
    for agent in _kb()["prevention"]:
        tails[(agent["agent"], "prevents")].extend(agent["prevents"])
    return dict(tails)


def disease_system(head: str) -> str | None:
    return next((d["system"] for d in _kb()["diseases"] if d["name"] == head), None)


def truth(row: ItemRow) -> bool:
    """Whether a statement item is true, from the KB file and the transform name."""
    listed = row.tail in kb_tails().get((row.head, row.relation), [])
    negated = "dn" in (row.transform or "").split("+")
    return listed != negated


def right_letters(row: ItemRow) -> str:
    """The letters of a choice item's options that the KB lists for its head."""
    listed = kb_tails()[(row.head, row.relation)]
    options = row.options or []
    return ",".join("ABCDEFGHIJ"[i] for i, o in enumerate(options) if o in listed)


def session_rows(db: Database, session_id: int) -> list[ItemRow]:
    """The session's items in order, read from storage (the test's view of the answer key)."""
    ids = [e["id"] for e in load_session(db, session_id).session.config["items"]]
    return get_items(db, ids)


def keys_of(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson 95% interval written out (z = 1.959964)."""
    z = 1.959964
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (0.0 if k == 0 else centre - half, 1.0 if k == n else centre + half)


def fact_of(row: ItemRow) -> tuple[str, str, str]:
    """The KB fact a statement comes from: (head, relation, true tail)."""
    return (row.head, row.relation, row.lineage.get("positive_tail") or row.tail)


def reply(row: ItemRow, right: bool) -> str:
    if row.kind == "choice":
        letters = right_letters(row)
        if right:
            return letters
        content = "ABCDEFGHIJ"[: len(row.options or []) - 1]  # "I do not know" is last
        return next(x for x in content if x not in letters)
    return "true" if truth(row) == right else "false"


# --------------------------------------------------------------------------------------------


def test_a_five_question_session_end_to_end(db: Database) -> None:
    view = start_session(db, student="  Ada   Lovelace ", length=5, seed="s1", cohort="Y3")
    assert (view.total, view.answered, view.status, view.format) == (5, 0, "active", "statement")
    assert view.student == "Ada Lovelace"
    rows = session_rows(db, view.id)
    assert len({r.id for r in rows}) == 5
    # typed answers: right, wrong, "I don't know", right (short form), wrong (yes/no)
    plan = [
        ("true" if truth(rows[0]) else "false", "correct"),
        ("false" if truth(rows[1]) else "true", "incorrect"),
        ("I don't know", "abstained"),
        ("t" if truth(rows[3]) else "f", "correct"),
        ("no" if truth(rows[4]) else "yes", "incorrect"),
    ]
    for position, (row, (typed, outcome)) in enumerate(zip(rows, plan, strict=True), start=1):
        question = next_question(db, view.id)
        assert_public(question, row)
        assert question is not None
        assert (question.position, question.total, question.kind) == (position, 5, "statement")
        assert question.text == row.text
        assert question.options is None
        feedback = answer(db, view.id, question.id, typed)
        assert feedback.outcome == outcome
        assert feedback.position == position
        assert feedback.finished == (position == 5)
        assert feedback.correct_answer == ("True" if truth(row) else "False")
        expected_yours = {"correct": feedback.correct_answer, "abstained": "I don't know"}.get(
            outcome, "False" if truth(row) else "True"
        )
        assert feedback.your_answer == expected_yours
        ex = feedback.explanation
        assert ex.transform == TRANSFORM_WORDS[row.transform or ""]
        assert ex.head == row.head
        listed = kb_tails()[(row.head, row.relation)]
        assert ex.true_tails == listed
        assert ex.tail in listed
        assert row.head.casefold() in ex.fact.casefold() and ex.tail in ex.fact
        negative = row.tail not in listed
        assert ex.negative == negative
        if negative:
            assert ex.substituted_tail == row.tail
            assert row.tail in ex.text and ex.tail in ex.text
        else:
            assert ex.substituted_tail is None and ex.tail == row.tail
        assert ex.text.startswith(f"The statement is {'true' if truth(row) else 'false'}: ")
        assert ex.text.endswith(ex.why) and ex.fact in ex.why and ex.options == []
        assert json.loads(json.dumps(feedback.as_json()))["outcome"] == outcome

    assert next_question(db, view.id) is None
    stored = load_session(db, view.id)
    assert stored.session.status == "finished"
    assert stored.respondent.name == "ada lovelace"
    assert stored.respondent.cohort == "Y3"
    assert [(a.item_id, a.raw_text, a.outcome) for a in stored.answers] == [
        (r.id, typed, outcome) for r, (typed, outcome) in zip(rows, plan, strict=True)
    ]
    assert [a.parsed_answer for a in stored.answers] == [
        "true" if truth(rows[0]) else "false",
        "false" if truth(rows[1]) else "true",
        "idk",
        "true" if truth(rows[3]) else "false",
        "false" if truth(rows[4]) else "true",
    ]

    # Summary, computed by hand: 2 right, 2 wrong, 1 "I don't know".
    result = summary(db, view.id)
    assert (result.n_items, result.n_answered) == (5, 5)
    assert (result.accuracy.k, result.accuracy.n) == (2, 5)
    assert (result.answer_rate.k, result.answer_rate.n) == (4, 5)
    assert (result.accuracy_answered.k, result.accuracy_answered.n) == (2, 4)
    low, high = wilson(2, 5)
    assert result.accuracy.low == pytest.approx(low, abs=1e-6)
    assert result.accuracy.high == pytest.approx(high, abs=1e-6)
    # Joint accuracy per fact: group by (head, relation, true tail) from the item rows.
    facts: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for row, (_, outcome) in zip(rows, plan, strict=True):
        true_tail = row.lineage.get("positive_tail") or row.tail
        facts[(row.head, row.relation, true_tail)].append(outcome == "correct")
    assert (result.joint_accuracy.k, result.joint_accuracy.n) == (
        sum(all(v) for v in facts.values()),
        len(facts),
    )
    assert len(facts) == 5  # one variant per fact: feedback follows every answer
    by_relation: dict[str, list[bool]] = defaultdict(list)
    for row, (_, outcome) in zip(rows, plan, strict=True):
        by_relation[row.relation].append(outcome == "correct")
    got = {s.key: (s.accuracy.k, s.accuracy.n) for s in result.topics if s.kind == "relation"}
    assert got == {f"relation:{r}": (sum(v), len(v)) for r, v in by_relation.items()}
    topic_marks: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for row, (_, outcome) in zip(rows, plan, strict=True):
        topic_marks[(f"relation:{row.relation}", RELATION_TOPICS[row.relation])].append(
            outcome == "correct"
        )
        system = disease_system(row.head)  # None for a preventive agent
        if system:
            label = _kb()["systems"][system]
            topic_marks[(f"system:{system}", label)].append(outcome == "correct")
    expected_weak = sorted(
        (sum(v) / len(v), -len(v), label.casefold(), key)
        for (key, label), v in topic_marks.items()
        if len(v) >= 2 and sum(v) < len(v)
    )[:3]
    assert [s.key for s in result.weakest_topics] == [key for *_, key in expected_weak]
    assert [a.outcome for a in result.answers] == [o for _, o in plan]
    assert json.loads(json.dumps(result.as_json()))["accuracy"]["k"] == 2


def assert_public(question: Question | None, row: ItemRow) -> None:
    """The question as the browser gets it: its fields, and nothing of the answer key."""
    assert isinstance(question, Question)
    data = question.as_json()
    assert set(data) == {
        "session_id", "id", "position", "total", "kind", "text", "options", "topic",
        "instructions", "quick_replies", "shown_at", "idk",
    }  # fmt: skip
    assert keys_of(data).isdisjoint(FORBIDDEN_KEYS)
    dumped = json.dumps(data)
    assert row.id.split(":")[1] not in dumped  # the content hash covers the label
    assert "positive" not in dumped and "negative" not in dumped
    assert str(row.lineage.get("fact_id", "kp1:none")) not in dumped
    if row.kind == "choice":
        letters = list("ABCDEFGHIJ"[: len(row.options or [])])  # 5 or 6 options and IDK
        assert len(letters) in (6, 7)
        assert [o["letter"] for o in data["options"]] == letters
        assert [o["text"] for o in data["options"]] == row.options
        assert data["options"][-1]["text"] == "I do not know"
        assert data["quick_replies"] == letters
    else:
        assert data["options"] is None
        assert data["text"] == row.text
        assert data["quick_replies"] == ["True", "False", "I don't know"]


def test_bad_input_stores_nothing_and_a_second_answer_is_refused(db: Database) -> None:
    with pytest.raises(InputError, match="no knowledge base named 'nope'"):
        start_session(db, student="a", kb="nope")
    with pytest.raises(InputError):
        topics(db, "nope")
    with pytest.raises(InputError, match="not a topic") as info:
        start_session(db, student="a", topic="cardiology-ish")
    assert info.value.hint and "system:cardiovascular" in info.value.hint
    for bad in (0, 101, -3):
        with pytest.raises(InputError, match="1 to 100"):
            start_session(db, student="a", length=bad)
    for name in ("", "   ", "x" * 101, "bad\x00name"):
        with pytest.raises(InputError):
            start_session(db, student=name)
    with pytest.raises(InputError, match="format"):
        start_session(db, student="a", format="essay")  # type: ignore[arg-type]
    assert find_respondent(db, RespondentKind.HUMAN, "a") is None  # nothing created

    view = start_session(db, student="kim", length=2, seed="b")
    question = next_question(db, view.id)
    assert question is not None
    for typed in ("maybe", "", "   ", "B", "true or false", "x" * 3000):
        with pytest.raises(InputError) as info:
            answer(db, view.id, question.id, typed)
        assert info.value.hint
    assert load_session(db, view.id).answers == []
    rows = session_rows(db, view.id)
    first = answer(db, view.id, question.id, "yes")
    with pytest.raises(DuplicateError, match="already answered"):
        answer(db, view.id, question.id, "no")
    with pytest.raises(DuplicateError):
        answer(db, view.id, rows[0].id, "no")  # the item id is accepted, and refused the same
    stored = load_session(db, view.id).answers
    assert [(a.raw_text, a.outcome) for a in stored] == [("yes", first.outcome)]

    other = start_session(db, student="kim", length=2, seed="c")
    with pytest.raises(NotFoundError, match="not part of practice session"):
        answer(db, other.id, question.id, "yes")  # a question of another session
    with pytest.raises(NotFoundError):
        answer(db, other.id, rows[1].id, "yes")
    with pytest.raises(NotFoundError):
        answer(db, other.id + 1000, question.id, "yes")
    with pytest.raises(NotFoundError):
        next_question(db, other.id + 1000)
    assert load_session(db, other.id).answers == []

    # A choice question: letters out of range or a true/false answer cannot be read.
    choice = start_session(db, student="kim", length=1, seed="c", format="choice")
    asked = next_question(db, choice.id)
    assert asked is not None and asked.kind == "choice"
    for typed in ("J", "true", "A or B"):
        with pytest.raises(InputError):
            answer(db, choice.id, asked.id, typed)
    assert load_session(db, choice.id).answers == []

    # Ending a session early: no more answers.
    ended = end_session(db, view.id)
    assert ended.status == "abandoned"
    assert next_question(db, view.id) is None
    with pytest.raises(InputError, match="abandoned"):
        answer(db, view.id, f"s{view.id}q2", "yes")
    assert session_view(db, view.id).answered == 1


def test_models_on_the_same_items(db: Database) -> None:
    view = start_session(db, student="lee", length=10, seed="m")
    rows = session_rows(db, view.id)
    for row in rows:  # the student is right every time
        question = next_question(db, view.id)
        assert question is not None
        answer(db, view.id, question.id, reply(row, right=True))

    items = load_items(db, [r.id for r in rows])
    run_id = prepare_run(db, items[:8], RunConfig(model="baseline/always-true"))
    asyncio.run(execute(db, run_id, get_provider("baseline/always-true")))

    result = summary(db, view.id, models=["baseline/always-true", "openai/never-run"])
    assert [m.model for m in result.models] == ["baseline/always-true", "openai/never-run"]
    baseline, never = result.models
    n_true = sum(truth(r) for r in rows[:8])  # "True" is right exactly on the true statements
    assert baseline.n_shared == 8
    assert (baseline.model_accuracy.k, baseline.model_accuracy.n) == (n_true, 8)
    assert (baseline.student_accuracy.k, baseline.student_accuracy.n) == (8, 8)
    assert baseline.comparison is None  # fewer than 10 shared items
    assert never.n_shared == 0 and never.model_accuracy.value is None

    # Once all ten are shared, McNemar: b10 = items the student got right and the model wrong.
    run_2 = prepare_run(db, items, RunConfig(model="baseline/always-true"))
    asyncio.run(execute(db, run_2, get_provider("baseline/always-true")))
    everyone = summary(db, view.id)
    assert [m.model for m in everyone.models] == ["baseline/always-true"]
    full = everyone.models[0]
    n_true_all = sum(truth(r) for r in rows)
    assert (full.n_shared, full.model_accuracy.k) == (10, n_true_all)
    assert full.comparison is not None
    assert full.comparison["test"] == "mcnemar_exact"
    assert (full.comparison["b01"], full.comparison["b10"]) == (0, 10 - n_true_all)
    assert full.comparison["difference"] == pytest.approx((n_true_all - 10) / 10)


def test_review_re_asks_missed_facts_in_another_variant(db: Database) -> None:
    with pytest.raises(InputError, match="no mistakes to review"):
        start_session(db, student="rae", review=True, seed="r0")
    first = start_session(db, student="rae", length=4, seed="r1")
    rows = session_rows(db, first.id)
    outcomes = [False, True, True, True]
    for row, right in zip(rows, outcomes, strict=True):
        question = next_question(db, first.id)
        assert question is not None
        answer(db, first.id, question.id, reply(row, right))

    missed_ids = {r.id for r, ok in zip(rows, outcomes, strict=True) if not ok}
    # A fact with one wrong answer needs review even if another variant was right.
    missed_facts = {fact_of(r) for r, ok in zip(rows, outcomes, strict=True) if not ok}
    assert len({fact_of(r) for r in rows}) == 4  # four facts, one variant each
    review = start_session(db, student="rae", review=True, length=10, seed="r2")
    assert review.review
    again = session_rows(db, review.id)
    assert again
    assert {fact_of(r) for r in again} == missed_facts
    assert not {r.id for r in again} & missed_ids  # a different variant than the one missed
    assert all(c == 1 for c in Counter(fact_of(r) for r in again).values())
    for row in again:  # all right this time
        question = next_question(db, review.id)
        assert question is not None
        answer(db, review.id, question.id, reply(row, right=True))
    with pytest.raises(InputError, match="no mistakes to review"):
        start_session(db, student="rae", review=True, seed="r3")

    # Multiple choice: a missed question comes back with other options (another item).
    quiz = start_session(db, student="sam", length=2, seed="c1", format="choice")
    choice_rows = session_rows(db, quiz.id)
    for row in choice_rows:
        question = next_question(db, quiz.id)
        assert question is not None
        answer(db, quiz.id, question.id, reply(row, right=False))
    redo = start_session(db, student="sam", review=True, format="choice", seed="c2")
    redo_rows = session_rows(db, redo.id)
    assert {(r.head, r.relation) for r in redo_rows} == {(r.head, r.relation) for r in choice_rows}
    assert not {r.id for r in redo_rows} & {r.id for r in choice_rows}


def test_topics_and_progress_per_topic(db: Database) -> None:
    listed = topics(db)
    relations = {t.name: t.n_facts for t in listed if t.kind == "relation"}
    expected = Counter(relation for (_, relation), tails in kb_tails().items() for _ in tails)
    assert relations == dict(expected)
    system_labels = {t.name: t.label for t in listed if t.kind == "system"}
    assert system_labels == dict(_kb()["systems"])
    per_system: Counter[str] = Counter()
    for disease in _kb()["diseases"]:  # a system holds its diseases' facts, not vaccines'
        per_system[disease["system"]] += sum(len(disease.get(key, [])) for key in LISTS)
    assert {t.name: t.n_facts for t in listed if t.kind == "system"} == dict(per_system)
    assert listed[0].key == "relation:has_symptom"
    assert json.loads(json.dumps([t.as_json() for t in listed]))

    # A topic limits the facts: every item about a respiratory disease.
    view = start_session(db, student="a", topic="system:respiratory", length=6, seed="t")
    for row in session_rows(db, view.id):
        assert disease_system(row.head) == "respiratory"
    question = next_question(db, view.id)
    assert question is not None and question.topic.startswith("Respiratory · ")

    with pytest.raises(NotFoundError, match="no practice sessions"):
        progress(db, "nobody")
    drugs = start_session(db, student="Max", topic="relation:treated_with_drug", length=3, seed="p")
    for right, row in zip([True, False, True], session_rows(db, drugs.id), strict=True):
        question = next_question(db, drugs.id)
        assert question is not None
        answer(db, drugs.id, question.id, reply(row, right))
    sites = start_session(db, student="max", topic="Sites affected", length=2, seed="p")
    site_rows = session_rows(db, sites.id)
    question = next_question(db, sites.id)
    assert question is not None
    answer(db, sites.id, question.id, reply(site_rows[0], right=False))

    by_day = progress(db, "MAX")
    assert by_day.student == "Max"
    assert by_day.total_answered == 4
    assert (by_day.accuracy.k, by_day.accuracy.n) == (2, 4)
    topics_seen = {t.key: t for t in by_day.topics}
    drug_topic = topics_seen["relation:treated_with_drug"]
    assert (drug_topic.overall.k, drug_topic.overall.n) == (2, 3)
    assert drug_topic.label == "Drug treatment"
    low, high = wilson(2, 3)
    assert drug_topic.overall.low == pytest.approx(low, abs=1e-6)
    assert drug_topic.overall.high == pytest.approx(high, abs=1e-6)
    assert sum(p.accuracy.n for p in drug_topic.points) == 3
    assert (topics_seen["relation:affects_site"].overall.k,
            topics_seen["relation:affects_site"].overall.n) == (0, 1)  # fmt: skip
    # Organ systems come from the diseases asked about, looked up in the KB file.
    systems: dict[str, list[bool]] = defaultdict(list)
    all_rows = session_rows(db, drugs.id) + site_rows[:1]
    for row, right in zip(all_rows, [True, False, True, False], strict=True):
        system = disease_system(row.head)
        if system:
            systems[f"system:{system}"].append(right)
    got = {k: (t.overall.k, t.overall.n) for k, t in topics_seen.items() if t.kind == "system"}
    assert got == {k: (sum(v), len(v)) for k, v in systems.items()}

    by_session = progress(db, "max", by="session")
    assert [p.period for p in by_session.timeline] == [str(drugs.id), str(sites.id)]
    assert [(p.accuracy.k, p.accuracy.n) for p in by_session.timeline] == [(2, 3), (0, 1)]
    assert [(s.id, s.total, s.answered, s.status) for s in by_session.sessions] == [
        (drugs.id, 3, 3, "finished"),
        (sites.id, 2, 1, "active"),
    ]
    assert json.loads(json.dumps(by_session.as_json()))["total_answered"] == 4
    assert progress(db, "max", kb="hpo").total_answered == 0


def test_formats_seeds_and_fresh_facts(db: Database) -> None:
    choice = start_session(db, student="zoe", format="choice", length=3, seed="f")
    rows = session_rows(db, choice.id)
    assert [r.kind for r in rows] == ["choice"] * 3
    question = next_question(db, choice.id)
    assert_public(question, rows[0])
    assert question is not None
    feedback = answer(db, choice.id, question.id, right_letters(rows[0]).lower())
    assert feedback.outcome == "correct"
    letters = right_letters(rows[0]).split(",")
    assert feedback.correct_answer == "; ".join(
        f"{x}. {(rows[0].options or [])['ABCDEFGHIJ'.index(x)]}" for x in letters
    )
    assert feedback.explanation.transform is None
    assert feedback.explanation.true_tails == kb_tails()[(rows[0].head, rows[0].relation)]
    second = session_rows(db, choice.id)[1]
    idk_letter = "ABCDEFGHIJ"[len(second.options or []) - 1]  # the "I do not know" option
    idk = answer(db, choice.id, f"s{choice.id}q2", idk_letter)
    assert idk.outcome == "abstained"

    mixed = start_session(db, student="zoe", format="mixed", length=6, seed="f")
    mixed_rows = session_rows(db, mixed.id)
    assert Counter(r.kind for r in mixed_rows) == {"statement": 3, "choice": 3}
    pairs = {(r.head, r.relation) for r in mixed_rows if r.kind == "choice"}
    assert not any((r.head, r.relation) in pairs for r in mixed_rows if r.kind == "statement")

    # Same seed, same session (for a student with no history); another seed, other facts.
    view_a = start_session(db, student="p1", length=6, seed="same")
    a = session_rows(db, view_a.id)
    b = session_rows(db, start_session(db, student="p2", length=6, seed="same").id)
    c = session_rows(db, start_session(db, student="p3", length=6, seed="other").id)
    assert [r.id for r in a] == [r.id for r in b]
    assert [r.id for r in a] != [r.id for r in c]

    # Facts answered right are not asked again while others remain.
    for row in a:
        question = next_question(db, view_a.id)
        assert question is not None
        answer(db, view_a.id, question.id, reply(row, right=True))
    again = session_rows(db, start_session(db, student="p1", length=6, seed="same").id)
    assert not {fact_of(r) for r in a} & {fact_of(r) for r in again}


@pytest.mark.parametrize(
    ("fmt", "length"), [("statement", 12), ("statement", 40), ("mixed", 16), ("choice", 6)]
)
def test_a_fact_is_never_asked_again_after_its_answer_was_shown(
    db: Database, fmt: str, length: int
) -> None:
    """Every answer is followed by feedback that reveals the fact, so a later question about the
    same fact (another wording, the counterfactual, or a choice question on it) would test
    reading, not knowing, and inflate the student against models. The feedback also lists every
    tail the KB has for the head and relation (and says a substituted tail is not among them),
    so no second question on that (head, relation) either, whichever tail it names."""
    view = start_session(db, student="noor", length=length, format=fmt, seed=f"{fmt}{length}")  # type: ignore[arg-type]
    rows = session_rows(db, view.id)
    assert len(rows) == length
    asked = [(r.head, r.relation, r.lineage.get("positive_tail") or r.tail) for r in rows]
    assert len(set(asked)) == len(asked)
    per_point = Counter((r.head, r.relation) for r in rows)
    assert set(per_point.values()) == {1}, per_point.most_common(3)
    claims = [(r.head, r.relation, r.tail) for r in rows]  # a false claim shown is revealed too
    assert len(set(claims)) == len(claims)
    for row in rows:  # and answering them all never brings a fact back
        question = next_question(db, view.id)
        assert question is not None
        answer(db, view.id, question.id, reply(row, right=False))
    assert next_question(db, view.id) is None
