"""Nothing a student sees before answering gives the key away, not even an error message."""

from __future__ import annotations

import pytest

from quizbot.errors import InputError
from quizbot.generate.service import load_items
from quizbot.items import ChoiceItem, StatementItem
from quizbot.practice.facts import _entries
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


def test_every_choice_option_is_explained_from_the_knowledge_base(db: Database) -> None:
    """Right options are marked right, wrong ones "not listed" and, where the KB lists the
    option for another head under the same relation, that head is named. Checked against the
    clinical-core file, not the service."""
    from tests.practice.test_service import kb_tails, right_letters, session_rows

    view = start_session(db, student="opt", format="choice", length=4, seed="o")
    rows = session_rows(db, view.id)
    named_elsewhere = 0
    for row in rows:
        question = next_question(db, view.id)
        assert question is not None
        notes = answer(db, view.id, question.id, "A").explanation.options
        options = row.options or []
        assert [n.text for n in notes] == options[:-1]  # every option but "I do not know"
        assert {n.letter for n in notes if n.correct} == set(right_letters(row).split(","))
        for note in notes:
            if note.correct:
                assert row.head.casefold() in note.note.casefold() and note.text in note.note
                continue
            assert note.note.startswith(f"Not listed for {row.head}.")
            others = [h for (h, r), t in kb_tails().items() if r == row.relation and note.text in t]
            if others:
                named_elsewhere += 1
                assert any(h.casefold() in note.note.casefold() for h in others), note
            else:
                assert note.note == f"Not listed for {row.head}."
    assert named_elsewhere > 0  # the seed gives distractors that are true of something else


def test_a_false_statement_says_what_is_true_once(db: Database) -> None:
    """The substituted tail is named once, the true fact follows, the transform's name is not in
    the text (it is jargon; it stays in its own field for a details view)."""
    view = start_session(db, student="neg", format="statement", length=30, seed="n")
    seen_false_claim = False
    for _ in range(30):
        question = next_question(db, view.id)
        assert question is not None
        e = answer(db, view.id, question.id, "idk").explanation
        assert e.transform is not None and e.transform not in e.text
        if e.negative:
            assert e.substituted_tail is not None
            assert e.why.count(e.substituted_tail) == 1
            assert "What is true: " + e.fact in e.why
            seen_false_claim = True
        else:
            assert e.why.endswith(e.fact) and "What is true" not in e.why
    assert seen_false_claim
