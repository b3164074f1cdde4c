"""The SDAK reader (parse_sdak) on many reply shapes, and the SDAK prompt."""

from __future__ import annotations

import pytest

from quizbot.evaluation.parse import parse_sdak, parse_true_false
from quizbot.evaluation.prompts import build_prompt
from quizbot.items import ChoiceItem, StatementItem, StatementSide
from quizbot.transforms import Polarity, Transform

FOLLOWS = [
    # (reply, verdict, reason)
    ("Correct. Gout causes joint pain.", "true", "Gout causes joint pain."),
    ("Incorrect. Gout does not cause hair loss.", "false", "Gout does not cause hair loss."),
    ("correct", "true", ""),
    ("INCORRECT!", "false", ""),
    ("Incorrect", "false", ""),
    ("**Correct** - uric acid crystals.", "true", "uric acid crystals."),
    ("**Incorrect**: reason: no link.", "false", "no link."),
    ("  \n\nCorrect.\nReason: it is in every textbook.", "true", "it is in every textbook."),
    ("Answer: Incorrect\nReason: x is not y", "false", "x is not y"),
    ("Verdict: correct - yes", "true", "yes"),
    ("Final answer: Correct, because it is.", "true", "because it is."),
    ('"Correct" because it is common.', "true", "because it is common."),
    ("> Incorrect. Quoted.", "false", "Quoted."),
    ("Ｃｏｒｒｅｃｔ. Full-width letters.", "true", "Full-width letters."),
    ("Correct.\u200b Zero width.", "true", "Zero width."),
    ("Correct. Many\n\n   lines   of\treason.", "true", "Many lines of reason."),
    ("Incorrect - explanation: it is rare.", "false", "it is rare."),
    ("Correct. It is not incorrect.", "true", "It is not incorrect."),
]

NOT_FOLLOWING = [
    "The claim is correct.",
    "This is incorrect.",
    "True. Gout causes pain.",
    "False",
    "Yes, correct.",
    "Correct or incorrect? Correct.",
    "Correct/incorrect: it depends.",
    "correctly stated, yes",
    "Incorrectly phrased but true.",
    "I do not know.",
    "",
    "   ",
    "Not correct.",
]


@pytest.mark.parametrize(("reply", "verdict", "reason"), FOLLOWS)
def test_a_reply_opening_with_a_verdict_follows_and_keeps_its_reason(
    reply: str, verdict: str, reason: str
) -> None:
    reading = parse_sdak(reply)
    assert (reading.verdict, reading.follows, reading.reason) == (verdict, True, reason)


@pytest.mark.parametrize("reply", NOT_FOLLOWING)
def test_a_reply_without_a_leading_verdict_does_not_follow(reply: str) -> None:
    reading = parse_sdak(reply)
    assert reading.verdict is None and not reading.follows
    assert reading.reason == " ".join(reply.split())  # the whole reply is kept for review


def test_a_failed_call_and_a_huge_reply_are_read_without_error() -> None:
    assert parse_sdak(None).follows is False
    long = "Correct. " + "word " * 10_000
    reading = parse_sdak(long)
    assert reading.verdict == "true" and len(reading.reason) == 2000
    assert reading.reason.endswith("...")


def test_our_own_reader_still_scores_sdak_replies() -> None:
    """The run's outcome comes from the general reader, leniently: 'The claim is correct' is
    true there although it does not follow the SDAK instruction."""
    assert parse_true_false("Correct. Because ...").answer == "true"
    assert parse_true_false("Incorrect. Because ...").answer == "false"
    assert parse_true_false("The claim is correct.").answer == "true"


SIDE = StatementSide("kb", "1", "has_symptom", "gout", "joint pain", Polarity.POSITIVE, "ps")
ITEM = StatementItem(SIDE, Transform.NONE, True, "Gout has the symptom joint pain.", "p")


def test_the_sdak_prompt_asks_for_the_verdict_first_then_a_reason() -> None:
    prompt = build_prompt(ITEM, sdak=True, style="chat")
    assert ITEM.text in prompt.text
    assert "Correct or Incorrect" in prompt.text and "reason" in prompt.text
    assert "True or False" not in prompt.text
    assert prompt.messages == ({"role": "user", "content": prompt.text},)


def test_the_sdak_prompt_refuses_choice_items_and_demonstrations() -> None:
    choice = ChoiceItem("kb", "1", "treats", "h", "Q?", ("a", "b"), ("A",), "semantic", ("kp",))
    with pytest.raises(ValueError, match="statements only"):
        build_prompt(choice, sdak=True)
    other = StatementItem(SIDE._replace(head="gout 2"), Transform.NONE, True, "Other.", "p")
    with pytest.raises(ValueError, match="zero-shot"):
        build_prompt(ITEM, demonstrations=[other], sdak=True)
