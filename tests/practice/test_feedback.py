"""Nothing a student sees before answering gives the key away, not even an error message."""

from __future__ import annotations

import pytest

from quizbot.errors import InputError
from quizbot.generate.service import load_items
from quizbot.items import ChoiceItem, StatementItem
from quizbot.practice.planning import _entries
from quizbot.practice.service import answer, next_question, start_session
from storage import Database
from storage.sessions import load_session


def _unreadable(db: Database, session_id: int, question_id: str, typed: str) -> str:
    with pytest.raises(InputError) as info:
        answer(db, session_id, question_id, typed)
    return str(info.value)


def test_an_unreadable_statement_answer_says_the_same_whatever_the_key(db: Database) -> None:
    view = start_session(db, student="lee", length=10, seed="keys")
    session = load_session(db, view.id)
    messages: dict[bool, str] = {}
    question = next_question(db, view.id)
    assert question is not None
    ids = [entry["id"] for entry in _entries(session.session.config)]
    items = {i.id: i for i in load_items(db, ids)}
    # Ask the same unreadable text of every question: the message may quote the text and say
    # how to answer, but must not depend on whether the statement is true.
    for position in range(1, len(items) + 1):
        qid = f"s{view.id}q{position}"
        item = items[ids[position - 1]]
        assert isinstance(item, StatementItem)
        messages.setdefault(item.label, _unreadable(db, view.id, qid, "banana"))
    assert set(messages) == {True, False}, "the session should hold true and false statements"
    assert messages[True] == messages[False]


def test_an_unreadable_choice_answer_names_no_right_letter(db: Database) -> None:
    view = start_session(db, student="kai", length=3, format="choice", seed="keys")
    session = load_session(db, view.id)
    first = _entries(session.session.config)[0]["id"]
    (item,) = load_items(db, [first])
    assert isinstance(item, ChoiceItem)
    shown = _unreadable(db, view.id, f"s{view.id}q1", "banana")
    all_letters = ", ".join("ABCDEFGHIJ"[: len(item.options)])
    assert all_letters in shown  # how to answer: every letter, not the right ones
    for key in item.answer_keys:
        assert f"answer {key}".lower() not in shown.lower() and f"is {key}" not in shown
    for option in item.options[:-1]:
        assert option not in shown  # no option text, right or wrong


def test_frequency_feedback_says_how_many_patients_the_band_rests_on(db: Database) -> None:
    from dataclasses import replace
    from types import SimpleNamespace

    from quizbot.generate.choice import FREQUENCY_BANDS, I_DO_NOT_KNOW
    from quizbot.practice.feedback import _explain

    item = ChoiceItem(
        kb="hpo",
        kb_version="1",
        relation="has_phenotype",
        head="Disease A",
        question="How often does Disease A present with seizure?",
        options=(*FREQUENCY_BANDS, I_DO_NOT_KNOW),
        answer_keys=("C",),
        subtype="frequency",
        knowledge_point_ids=(),
        meta={"tail": "seizure", "band": FREQUENCY_BANDS[2], "patients": "7/9 patients"},
    )
    loaded = SimpleNamespace(session=SimpleNamespace(config={}, kb_name="hpo"))
    explained = _explain(db, loaded, item)  # type: ignore[arg-type]
    assert "Seizure in Disease A: Frequent (30-79%) (reported in 7/9 patients)." in explained.text
    bare = replace(item, meta={"tail": "seizure", "band": FREQUENCY_BANDS[2]})
    assert "reported in" not in _explain(db, loaded, bare).text  # type: ignore[arg-type]
