"""The review queue and the four decisions about a flagged item (both backends)."""

from __future__ import annotations

import pytest

from quizbot.domain import OverrideKind
from quizbot.errors import InputError
from quizbot.generate.choice import choice_questions
from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.service import store_items
from quizbot.generate.statements import plan_points, statements
from quizbot.items import ChoiceItem, StatementItem
from quizbot.kb.registry import get_kb
from quizbot.kb.review import decide, review_queue
from quizbot.transforms import Polarity
from storage import Database
from storage.review import create_flag, list_flags, list_overrides, retired_item_ids


def _items(db: Database) -> tuple[StatementItem, StatementItem, ChoiceItem]:
    kb, kb_id = get_kb(db, "clinical-core")
    fact = next(t for t in kb.triplets if t.relation == "has_symptom")
    made = list(statements(kb, plan_points(kb, [fact], "0"), default_prototypes()))
    positive = next(i for i in made if i.polarity == Polarity.POSITIVE)
    negative = next(i for i in made if i.polarity == Polarity.NEGATIVE)
    choice = choice_questions(kb, [fact], seed="0")[0]
    store_items(db, kb, kb_id, [positive, negative, choice])
    return positive, negative, choice


def test_the_queue_shows_each_flagged_item_once_with_its_key_fact_and_comments(
    db: Database,
) -> None:
    positive, negative, _ = _items(db)
    create_flag(db, item_id=negative.id, reason="wrong_key", comment="this is true!")
    create_flag(db, item_id=negative.id, reason="ambiguous")
    create_flag(db, item_id=positive.id, reason="other")
    first, second = review_queue(db)
    assert first.item_id == negative.id and second.item_id == positive.id
    assert (first.n_flags, first.comments) == (2, ["this is true!"])
    assert (first.text, first.answer_key, first.negative) == (negative.text, "False", True)
    assert (first.head, first.relation, first.tail, first.true_tail) == (
        negative.head,
        negative.relation,
        negative.tail,
        negative.positive_tail,
    )
    assert (second.answer_key, second.true_tail) == ("True", None)


def test_true_on_a_false_statement_stores_a_true_override_retires_and_resolves(
    db: Database,
) -> None:
    _, negative, _ = _items(db)
    flags = [create_flag(db, item_id=negative.id, reason="wrong_key") for _ in range(2)]
    decided = decide(db, flags[0].id, "true", by="dr k")
    assert [f.state for f in decided.flags] == ["resolved", "resolved"]
    (override,) = list_overrides(db, "clinical-core")
    assert (override.head, override.relation, override.tail, override.kind) == (
        negative.head,
        negative.relation,
        negative.tail,
        OverrideKind.TRUE_NOT_NEGATIVE,
    )
    assert (override.source, override.created_by) == (f"flag:{flags[0].id}", "dr k")
    assert retired_item_ids(db) == {negative.id}
    assert review_queue(db) == []
    kb, _ = get_kb(db, "clinical-core")
    assert (negative.head, negative.relation, negative.tail) in kb.extra_truths
    with pytest.raises(InputError, match="already resolved"):
        decide(db, flags[1].id, "dismiss", by="x")


def test_false_on_a_false_statement_removes_the_true_fact_it_replaced(db: Database) -> None:
    _, negative, _ = _items(db)
    flag = create_flag(db, item_id=negative.id, reason="wrong_key")
    decide(db, flag.id, "false", by="dr k")
    (override,) = list_overrides(db)
    assert (override.tail, override.kind) == (negative.positive_tail, "false_remove")
    kb, _ = get_kb(db, "clinical-core")
    assert (negative.head, negative.relation, negative.positive_tail) not in {
        (t.head, t.relation, t.tail) for t in kb.triplets
    }


def test_true_on_a_true_statement_is_refused_and_nothing_changes(db: Database) -> None:
    positive, _, _ = _items(db)
    flag = create_flag(db, item_id=positive.id, reason="other")
    with pytest.raises(InputError, match="already asked as true"):
        decide(db, flag.id, "true", by="x")
    with pytest.raises(InputError, match="unknown action"):
        decide(db, flag.id, "maybe", by="x")
    assert list_overrides(db) == [] and retired_item_ids(db) == set()
    assert [f.state for f in list_flags(db)] == ["open"]


def test_a_choice_question_needs_the_option_named(db: Database) -> None:
    _, _, choice = _items(db)
    distractors = list(choice.meta["distractors"])
    flag = create_flag(db, item_id=choice.id, reason="wrong_key")
    with pytest.raises(InputError, match="say which"):
        decide(db, flag.id, "true", by="x")
    with pytest.raises(InputError, match="not one of"):
        decide(db, flag.id, "true", by="x", tail="no such option")
    decide(db, flag.id, "true", by="x", tail=distractors[1])
    (override,) = list_overrides(db)
    assert (override.tail, override.kind) == (distractors[1], "true_not_negative")


def test_retire_and_dismiss(db: Database) -> None:
    positive, negative, _ = _items(db)
    retire = create_flag(db, item_id=positive.id, reason="ambiguous")
    dismiss = create_flag(db, item_id=negative.id, reason="other")
    decide(db, retire.id, "retire", by="x")
    decide(db, dismiss.id, "dismiss", by="x")
    assert retired_item_ids(db) == {positive.id}
    assert list_overrides(db) == []
    assert [(f.state, f.decision) for f in list_flags(db)] == [
        ("resolved", "retire"),
        ("dismissed", "dismiss"),
    ]
