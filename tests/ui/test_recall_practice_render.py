"""The Recall section's rendering: every text escaped, the how-words, the four classes of entries
apart (an unverified entry is never "Wrong"), the student's marks, an exam's receipt empty."""

from __future__ import annotations

import html
import re

from quizbot.practice.service import RecalledEntity, RecallEntryNote, RecallFeedback
from quizbot.ui.recall_practice import HOW_WORDS, MARK_WORDS, mark_choices, render_feedback

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
    assert shown.count('id="qb-recall-') == 6  # verdict, recalled, missed, true, unverified, wrong
    assert 'id="' not in render_feedback(feedback(), ids=False)


def test_an_exam_receipt_shows_no_list_and_no_score() -> None:
    shown = render_feedback(
        feedback(outcome="withheld", recalled=[], missed=[], wrong=[], read_as=[], f1=None)
    )
    assert "Answer recorded" in shown and "F1" not in shown and "Missed" not in shown


def _sections(shown: str) -> dict[str, str]:
    """Each part's text, by its element id."""
    parts = re.findall(r'<div class="qb-recall-part" id="([^"]+)">(.*?)</div>', shown)
    return {k: html.unescape(re.sub(r"<[^>]+>", " ", v)) for k, v in parts}


def test_true_unverified_and_wrong_entries_are_shown_apart() -> None:
    notes = [
        RecallEntryNote("dialysis", "extra_truth", "listed for it under another aspect"),
        RecallEntryNote("hypertonic saline", "unverified", "", "right"),
        RecallEntryNote("carbocisteine", "unverified"),
        RecallEntryNote("glaucoma", "known_wrong", "another organ system's entity"),
    ]
    shown = render_feedback(
        feedback(
            wrong=["glaucoma"],
            true_unlisted=["dialysis"],
            unverified=["hypertonic saline", "carbocisteine"],
            notes=notes,
        )
    )
    parts = _sections(shown)
    assert "dialysis" in parts["qb-recall-extras"] and "another aspect" in parts["qb-recall-extras"]
    unverified = parts["qb-recall-unverifieds"]
    assert "Not in our list" in unverified and "check it" in unverified
    assert "hypertonic saline" in unverified and MARK_WORDS["right"] in unverified
    assert "carbocisteine" in unverified
    wrong = parts["qb-recall-wrongs"]
    assert "glaucoma" in wrong and "another organ system" in wrong
    assert "hypertonic saline" not in wrong and "carbocisteine" not in wrong
    assert "never change your scores" in shown


def test_marking_offers_the_unverified_entries_of_the_answers_shown() -> None:
    one = feedback(unverified=["x", "y"])
    assert mark_choices([one]) == [("x", "s1q1\x1fx"), ("y", "s1q1\x1fy")]
    two = feedback(position=2, question_id="s1q2", unverified=["z"])
    assert [label for label, _ in mark_choices([one, two])] == ["Q1: x", "Q1: y", "Q2: z"]
    assert mark_choices([feedback(outcome="withheld", unverified=["x"])]) == []
