"""The parser's filler-word limit: a keyword still leads its sentence after at most eight words
of filler; one more and two opposite readings are a conflict, not an answer."""

from __future__ import annotations

from quizbot.evaluation.parse import parse_true_false


def test_eight_filler_words_still_lead() -> None:
    # "I think the answer is that it is" = 8 filler words before "False".
    parsed = parse_true_false("I think the answer is that it is False, which is true.")
    assert (parsed.answer, parsed.reason) == ("false", "keyword 'false' at start")


def test_nine_filler_words_no_longer_lead() -> None:
    parsed = parse_true_false("I think that the answer is that it is False, which is true.")
    assert parsed.answer is None
    assert parsed.reason == "conflicting keywords 'false' and 'true'"


def test_the_limit_holds_for_the_true_side_too() -> None:
    eight = parse_true_false("so so so so so so so so True but also false")
    nine = parse_true_false("so so so so so so so so so True but also false")
    assert eight.answer == "true" and nine.answer is None
