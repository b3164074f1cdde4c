"""The Recall section's rendering: every text escaped, the how-words, an exam's receipt empty."""

from __future__ import annotations

import html
import re

from quizbot.practice.service import RecalledEntity, RecallFeedback
from quizbot.ui.recall_practice import HOW_WORDS, render_feedback

NASTY = '<script>alert("x")</script> {a} $b$ & c'


def feedback(**changes: object) -> RecallFeedback:
    base: dict[str, object] = {
        "session_id": 1,
        "question_id": "s1q1",
        "position": 1,
        "total": 2,
        "question": f"What are the symptoms of {NASTY}?",
        "aspect": "symptoms",
        "outcome": "incorrect",
        "your_answer": NASTY,
        "read_as": [NASTY, "fever"],
        "recalled": [RecalledEntity("pyrexia", "fever", "synonym")],
        "missed": [NASTY],
        "vague": [],
        "wrong": [NASTY],
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
        "tier": "partially correct",
        "tiers": {"metric": "f1", "low": 0.25, "high": 0.7},
        "answered": 1,
        "finished": False,
    }
    base.update(changes)
    return RecallFeedback(**base)  # type: ignore[arg-type]


def test_feedback_escapes_everything_and_says_how_it_matched() -> None:
    shown = render_feedback(feedback())
    assert "<script" not in shown and "{a}" not in shown and "$b$" not in shown
    text = html.unescape(re.sub(r"<[^>]+>", " ", shown))
    assert text.count(NASTY) == 4  # the question, "read as", missed and wrong
    assert "pyrexia" in text and "fever" in text and HOW_WORDS["synonym"] in text
    assert "F1 0.50" in text and "Partially correct" in text
    assert shown.count('id="qb-recall-') == 4
    assert 'id="' not in render_feedback(feedback(), ids=False)


def test_an_exam_receipt_shows_no_list_and_no_score() -> None:
    shown = render_feedback(
        feedback(outcome="withheld", recalled=[], missed=[], wrong=[], read_as=[], f1=None)
    )
    assert "Answer recorded" in shown and "F1" not in shown and "Missed" not in shown
