"""The answer parser and scorer: every expectation below is written by hand from the rules.

Rows are ``(text, answer, abstained, reason)``; ``answer`` is ``"true"``/``"false"``, sorted
letters (``"A,C"``) or ``None``.
"""

from __future__ import annotations

import dataclasses
import random
import re

import pytest

from quizbot.domain import Outcome
from quizbot.evaluation.parse import (
    Parsed,
    parse_and_score,
    parse_choice,
    parse_human,
    parse_true_false,
    score,
)
from quizbot.items import ChoiceItem, StatementItem, StatementSide
from quizbot.transforms import Polarity, Transform

Row = tuple[str, str | None, bool, str]

# ---------------------------------------------------------------------------------------------
# Items


def _statement(
    label: bool, polarity: Polarity = Polarity.POSITIVE, transform: Transform = Transform.NONE
) -> StatementItem:
    side = StatementSide(
        kb="test-kb",
        kb_version="1",
        relation="may_treat",
        head="aspirin",
        tail="pain",
        polarity=polarity,
        prototype_set="test:0",
    )
    return StatementItem(side, transform, label, "Aspirin may treat pain.", "[X] may treat [Y].")


DRUGS = ("amoxicillin", "ibuprofen", "vitamin C", "hepatitis C", "I do not know")  # E = IDK
BANDS = (
    "Very rare (1-4%)",
    "Occasional (5-29%)",
    "Frequent (30-79%)",
    "Very frequent (80-99%)",
    "Obligate (100%)",
    "I do not know",
)  # F = IDK


def _choice(keys: tuple[str, ...], options: tuple[str, ...] = DRUGS) -> ChoiceItem:
    return ChoiceItem(
        kb="test-kb",
        kb_version="1",
        relation="may_treat",
        head="otitis media",
        question="Which of the following drugs can be used to treat otitis media?",
        options=options,
        answer_keys=keys,
        subtype="semantic",
        knowledge_point_ids=("kp1:x",),
    )


TRUE_ITEM = _statement(True)
FALSE_ITEM = _statement(False, Polarity.NEGATIVE)
ONE_KEY = _choice(("A",))
TWO_KEYS = _choice(("A", "C"))


def _check(parsed: Parsed, answer: str | None, abstained: bool, reason: str) -> None:
    assert (parsed.answer, parsed.abstained, parsed.reason) == (answer, abstained, reason)


# ---------------------------------------------------------------------------------------------
# True / false

T, F, N = "true", "false", None

TRUE_FALSE: list[Row] = [
    # every keyword, alone
    ("True", T, False, "keyword 'true' at start"),
    ("true.", T, False, "keyword 'true' at start"),
    ("TRUE!!!", T, False, "keyword 'true' at start"),
    ("Entailed", T, False, "keyword 'entailed' at start"),
    ("Correct.", T, False, "keyword 'correct' at start"),
    ("Yes", T, False, "keyword 'yes' at start"),
    ("False", F, False, "keyword 'false' at start"),
    ("Contradicted.", F, False, "keyword 'contradicted' at start"),
    ("Wrong", F, False, "keyword 'wrong' at start"),
    ("No.", F, False, "keyword 'no' at start"),
    ("Incorrect", F, False, "keyword 'incorrect' at start"),
    ("untrue", F, False, "keyword 'untrue' at start"),
    # negated forms, checked before the keyword inside them
    ("not correct", F, False, "negated form 'not correct'"),
    ("Not true.", F, False, "negated form 'not true'"),
    ("It isn't true.", F, False, "negated form 'isn't true'"),
    ("It isn’t true.", F, False, "negated form 'isn't true'"),
    ("That is not correct.", F, False, "negated form 'is not correct'"),
    ("The statement is not true.", F, False, "negated form 'is not true'"),
    ("It isnt true", F, False, "negated form 'isnt true'"),
    ("This is not entirely correct.", F, False, "negated form 'is not entirely correct'"),
    ("It cannot be true.", F, False, "negated form 'cannot be true'"),
    ("Not entailed.", F, False, "negated form 'not entailed'"),
    ("It is not correct; it is false.", F, False, "negated form 'is not correct'"),
    # a negated false keyword is a true reading, never a false one
    ("not false", T, False, "negated form 'not false'"),
    ("This is not wrong.", T, False, "negated form 'is not wrong'"),
    ("There is nothing wrong with this statement.", T, False, "negated form 'is nothing wrong'"),
    # answer phrasings
    ("Answer: True", T, False, "keyword 'true' at start"),
    ("The answer is false.", F, False, "keyword 'false' at start"),
    ("The statement is true", T, False, "keyword 'true' at start"),
    ("True. Because it is not false.", T, False, "keyword 'true' at start"),
    ("The correct answer is false.", F, False, "keyword 'false' at start"),
    ("Correct answer: False", F, False, "keyword 'false' at start"),
    ("I think it's true", T, False, "keyword 'true' at start"),
    ("1. True", T, False, "keyword 'true' at start"),
    ("Answer:\nFalse", F, False, "keyword 'false' at start in sentence 2"),
    ("So the statement is definitely true.", T, False, "keyword 'true' at start"),
    # markdown, quotes, odd characters
    ("**True**", T, False, "keyword 'true' at start"),
    ("**Answer:** _False_", F, False, "keyword 'false' at start"),
    ('"False"', F, False, "keyword 'false' at start"),
    ("'True'", T, False, "keyword 'true' at start"),
    ("`true`", T, False, "keyword 'true' at start"),
    ("> True", T, False, "keyword 'true' at start"),
    ("Ｔｒｕｅ", T, False, "keyword 'true' at start"),
    ("Tr\u200bue", T, False, "keyword 'true' at start"),
    # word boundaries
    ("Nothing.", N, False, "no keyword"),
    ("Notably true.", T, False, "keyword 'true'"),
    ("Yesterday's data were unclear.", N, False, "no keyword"),
    ("Nothing suggests otherwise; true.", T, False, "keyword 'true'"),
    ("Notably, nothing changed yesterday.", N, False, "no keyword"),
    ("non-true", N, False, "no keyword"),
    ("Correctly stated.", N, False, "no keyword"),
    ("Falsely", N, False, "no keyword"),
    ("Untrue.", F, False, "keyword 'untrue' at start"),
    # base-model continuations: the answer is at the start, demonstrations are not read
    (
        "True.\n\nStatement: Aspirin treats gout.\nAnswer: False",
        T,
        False,
        "keyword 'true' at start",
    ),
    (
        " False\n\nStatement: Metformin treats type 2 diabetes.\nAnswer: True\n\nStatement:",
        F,
        False,
        "keyword 'false' at start",
    ),
    ("\n\nTrue\nFalse\nTrue", T, False, "keyword 'true' at start"),
    (
        "Let me think.\nThe statement is false.\n\nQuestion: Is aspirin an NSAID?\nAnswer: Yes",
        F,
        False,
        "keyword 'false' at start in sentence 2",
    ),
    ("I\n\nStatement: Aspirin treats pain.\nAnswer: True", N, False, "no keyword"),
    ("Yes, it is.\nExample 2: Warfarin treats gout. No", T, False, "keyword 'yes' at start"),
    ("False. True statements are rare.", F, False, "keyword 'false' at start"),
    # empty and keyword-free
    ("", N, False, "empty"),
    ("   \n\t ", N, False, "empty"),
    ("**  **", N, False, "empty"),
    ("Hmm.", N, False, "no keyword"),
    ("...", N, False, "no keyword"),
    ("Nope", N, False, "no keyword"),
    # conflicting keywords without a clear leader
    ("True or false?", N, False, "conflicting keywords 'true' and 'false'"),
    ("True/False", N, False, "conflicting keywords 'true' and 'false'"),
    ("true, false", N, False, "conflicting keywords 'true' and 'false'"),
    ("Either true or false.", N, False, "conflicting keywords 'true' and 'false'"),
    ("False or true", N, False, "conflicting keywords 'false' and 'true'"),
    (
        "Drug X is wrong for disease Y, so the statement is true.",
        N,
        False,
        "conflicting keywords 'wrong' and 'true'",
    ),
    ("True, not false.", T, False, "keyword 'true' at start"),
    # IDK phrases (all of them), honoured before the keywords they contain
    ("I do not know", N, True, "IDK phrase 'i do not know'"),
    ("I don't know.", N, True, "IDK phrase 'i don't know'"),
    ("I dont know", N, True, "IDK phrase 'i dont know'"),
    ("I don’t know", N, True, "IDK phrase 'i don't know'"),
    ("I really don't know", N, True, "IDK phrase 'i really don't know'"),
    ("Not sure.", N, True, "IDK phrase 'not sure'"),
    ("I'm unsure.", N, True, "IDK phrase 'unsure'"),
    ("Cannot determine.", N, True, "IDK phrase 'cannot determine'"),
    ("I can't determine that.", N, True, "IDK phrase 'can't determine'"),
    ("It cannot be determined.", N, True, "IDK phrase 'cannot be determined'"),
    ("Unknown", N, True, "IDK phrase 'unknown'"),
    ("No idea", N, True, "IDK phrase 'no idea'"),
    ("I cannot say.", N, True, "IDK phrase 'i cannot say'"),
    ("Uncertain", N, True, "IDK phrase 'uncertain'"),
    ("Insufficient information.", N, True, "IDK phrase 'insufficient information'"),
    ("idk", N, True, "IDK phrase 'idk'"),
    ("I'm not sure it is true.", N, True, "IDK phrase 'not sure'"),
    ("True, though I am not sure.", T, False, "keyword 'true' at start"),
]


@pytest.mark.parametrize(("text", "answer", "abstained", "reason"), TRUE_FALSE)
def test_true_false(text: str, answer: str | None, abstained: bool, reason: str) -> None:
    _check(parse_true_false(text), answer, abstained, reason)


def test_true_false_table_is_large_enough() -> None:
    assert len(TRUE_FALSE) >= 60


@pytest.mark.parametrize(
    ("text", "answer", "abstained", "reason"),
    [
        ("I don't know", N, True, "IDK phrase 'i don't know' although not offered"),
        ("Not sure.", N, True, "IDK phrase 'not sure' although not offered"),
        ("idk", N, True, "IDK phrase 'idk' although not offered"),
        ("True", T, False, "keyword 'true' at start"),
        ("not correct", F, False, "negated form 'not correct'"),
    ],
)
def test_idk_when_not_offered_still_abstains(
    text: str, answer: str | None, abstained: bool, reason: str
) -> None:
    _check(parse_true_false(text, allow_idk=False), answer, abstained, reason)


# ---------------------------------------------------------------------------------------------
# Multiple choice: DRUGS = A amoxicillin, B ibuprofen, C vitamin C, D hepatitis C, E IDK

CHOICE: list[Row] = [
    ("A", "A", False, "option letter 'A'"),
    ("(A)", "A", False, "option letter 'A'"),
    ("A.", "A", False, "option letter 'A'"),
    ("a", "A", False, "option letter 'A'"),
    ("Option B", "B", False, "option letter 'B'"),
    ("B) amoxicillin", "B", False, "option letter 'B'"),
    ("The correct answer is C", "C", False, "option letter 'C'"),
    ("The answer is A because it is a penicillin.", "A", False, "option letter 'A'"),
    ("A and C", "A,C", False, "option letters 'A,C'"),
    ("A, C", "A,C", False, "option letters 'A,C'"),
    ("C, A", "A,C", False, "option letters 'A,C'"),
    ("Options A, B and D.", "A,B,D", False, "option letters 'A,B,D'"),
    ("Both A and D", "A,D", False, "option letters 'A,D'"),
    ("**B**", "B", False, "option letter 'B'"),
    ("Answer: [D]", "D", False, "option letter 'D'"),
    ("I think the answer is B.", "B", False, "option letter 'B'"),
    ("I'd go with D", "D", False, "option letter 'D'"),
    ("It's B.", "B", False, "option letter 'B'"),
    ("I, for one, would choose D.", "D", False, "option letter 'D'"),
    ("\\boxed{C}", "C", False, "option letter 'C'"),
    ("Ⓑ", "B", False, "option letter 'B'"),
    (
        "B\n\nQuestion: Which drug treats gout?\nA. colchicine\nAnswer: A",
        "B",
        False,
        "option letter 'B'",
    ),
    # out of range, alternatives, IDK
    ("F", N, False, "letter 'F' out of range"),
    ("Answer: K", N, False, "letter 'K' out of range"),
    ("A, F", N, False, "letter 'F' out of range"),
    ("A or C", N, False, "alternative letters 'a or c', not one answer"),
    ("E", N, True, "IDK option letter 'E'"),
    ("A, E", N, False, "IDK letter 'E' combined with other letters"),
    ("I do not know", N, True, "IDK option text 'i do not know'"),
    ("I'm not sure.", N, True, "IDK phrase 'not sure'"),
    # option text when no letter is given
    ("amoxicillin", "A", False, "option text matched 'amoxicillin'"),
    ("Ibuprofen.", "B", False, "option text matched 'ibuprofen'"),
    ("The answer is hepatitis C", "D", False, "option text matched 'hepatitis c'"),
    ("Hepatitis C is the answer.", "D", False, "option text found 'hepatitis c'"),
    ("Amoxicillin and ibuprofen", "A,B", False, "option text matched 'amoxicillin', 'ibuprofen'"),
    (
        "A patient with otitis should get amoxicillin.",
        "A",
        False,
        "option text found 'amoxicillin'",
    ),
    ("ibuprofen, not amoxicillin", N, False, "several option texts 'amoxicillin', 'ibuprofen'"),
    ("None of the above", N, False, "no option letter or text"),
    ("", N, False, "empty"),
    ("  \n ", N, False, "empty"),
]


@pytest.mark.parametrize(("text", "answer", "abstained", "reason"), CHOICE)
def test_choice(text: str, answer: str | None, abstained: bool, reason: str) -> None:
    _check(parse_choice(text, DRUGS), answer, abstained, reason)


def test_choice_table_is_large_enough() -> None:
    assert len(CHOICE) >= 20


@pytest.mark.parametrize(
    ("text", "answer", "abstained", "reason"),
    [
        ("Very frequent", "D", False, "option text matched 'very frequent (80-99%)'"),
        ("It is very frequent.", "D", False, "option text found 'very frequent (80-99%)'"),
        ("Obligate (100%)", "E", False, "option text matched 'obligate (100%)'"),
        ("E", "E", False, "option letter 'E'"),
        ("F", N, True, "IDK option letter 'F'"),
        ("G", N, False, "letter 'G' out of range"),
    ],
)
def test_choice_with_frequency_bands(
    text: str, answer: str | None, abstained: bool, reason: str
) -> None:
    _check(parse_choice(text, BANDS), answer, abstained, reason)


# ---------------------------------------------------------------------------------------------
# What people type

HUMAN_STATEMENT: list[Row] = [
    ("t", T, False, "typed 't'"),
    ("T", T, False, "typed 't'"),
    ("true", T, False, "typed 'true'"),
    ("Yes", T, False, "typed 'yes'"),
    ("y", T, False, "typed 'y'"),
    ("  yes. ", T, False, "typed 'yes'"),
    ("f", F, False, "typed 'f'"),
    ("False", F, False, "typed 'false'"),
    ("no", F, False, "typed 'no'"),
    ("N", F, False, "typed 'n'"),
    ("?", N, True, "IDK mark '?'"),
    ("idk", N, True, "IDK phrase 'idk'"),
    ("i don't know", N, True, "IDK phrase 'i don't know'"),
    ("not true", F, False, "negated form 'not true'"),
    ("maybe", N, False, "no keyword"),
    ("", N, False, "empty"),
]

HUMAN_CHOICE: list[Row] = [
    ("a", "A", False, "option letter 'A'"),
    ("B", "B", False, "option letter 'B'"),
    ("(b)", "B", False, "option letter 'B'"),
    ("a, c", "A,C", False, "option letters 'A,C'"),
    ("a c", "A,C", False, "option letters 'A,C'"),
    ("a and c", "A,C", False, "option letters 'A,C'"),
    ("ca", "A,C", False, "option letters 'A,C' (typed together)"),
    ("e", N, True, "IDK option letter 'E'"),
    ("f", N, False, "letter 'F' out of range"),
    ("?", N, True, "IDK mark '?'"),
    ("??", N, True, "IDK mark '?'"),
    ("idk", N, True, "IDK phrase 'idk'"),
    ("I don't know", N, True, "IDK phrase 'i don't know'"),
    ("amoxicillin", "A", False, "option text matched 'amoxicillin'"),
    ("", N, False, "empty"),
]


@pytest.mark.parametrize(("text", "answer", "abstained", "reason"), HUMAN_STATEMENT)
def test_human_statement(text: str, answer: str | None, abstained: bool, reason: str) -> None:
    _check(parse_human(text, TRUE_ITEM), answer, abstained, reason)


@pytest.mark.parametrize(("text", "answer", "abstained", "reason"), HUMAN_CHOICE)
def test_human_choice(text: str, answer: str | None, abstained: bool, reason: str) -> None:
    _check(parse_human(text, ONE_KEY), answer, abstained, reason)


def test_human_tables_are_large_enough() -> None:
    assert len(HUMAN_STATEMENT) + len(HUMAN_CHOICE) >= 15


# ---------------------------------------------------------------------------------------------
# Scoring

ABSTAIN = Parsed(None, True, "IDK phrase 'idk'")
NOTHING = Parsed(None, False, "no keyword")


def _said(answer: str) -> Parsed:
    return Parsed(answer, False, "test")


@pytest.mark.parametrize(
    ("item", "parsed", "outcome"),
    [
        (TRUE_ITEM, _said("true"), Outcome.CORRECT),
        (TRUE_ITEM, _said("false"), Outcome.INCORRECT),
        (TRUE_ITEM, ABSTAIN, Outcome.ABSTAINED),
        (TRUE_ITEM, NOTHING, Outcome.UNPARSED),
        (TRUE_ITEM, _said("A"), Outcome.UNPARSED),
        # negative labels: a generated negative, and a double-negated fact
        (FALSE_ITEM, _said("false"), Outcome.CORRECT),
        (FALSE_ITEM, _said("true"), Outcome.INCORRECT),
        (FALSE_ITEM, ABSTAIN, Outcome.ABSTAINED),
        (FALSE_ITEM, NOTHING, Outcome.UNPARSED),
        (FALSE_ITEM, _said("yes"), Outcome.UNPARSED),
        (_statement(False, Polarity.POSITIVE, Transform.DN), _said("false"), Outcome.CORRECT),
        (_statement(False, Polarity.POSITIVE, Transform.DN), _said("true"), Outcome.INCORRECT),
        (_statement(True, Polarity.NEGATIVE, Transform.INV_DN), _said("true"), Outcome.CORRECT),
        (_statement(True, Polarity.NEGATIVE, Transform.INV_DN), _said("false"), Outcome.INCORRECT),
    ],
)
def test_score_statement(item: StatementItem, parsed: Parsed, outcome: Outcome) -> None:
    assert score(item, parsed) is outcome


@pytest.mark.parametrize(
    ("item", "parsed", "outcome"),
    [
        (ONE_KEY, _said("A"), Outcome.CORRECT),
        (ONE_KEY, _said("B"), Outcome.INCORRECT),
        (ONE_KEY, _said("A,B"), Outcome.INCORRECT),  # a superset is not the key
        (ONE_KEY, _said("E"), Outcome.ABSTAINED),  # the "I do not know" letter
        (ONE_KEY, ABSTAIN, Outcome.ABSTAINED),
        (ONE_KEY, NOTHING, Outcome.UNPARSED),
        (ONE_KEY, _said("F"), Outcome.UNPARSED),  # past the options
        (ONE_KEY, _said("true"), Outcome.UNPARSED),
        (TWO_KEYS, _said("A,C"), Outcome.CORRECT),
        (TWO_KEYS, _said("C,A"), Outcome.CORRECT),
        (TWO_KEYS, _said("A"), Outcome.INCORRECT),  # partial = incorrect
        (TWO_KEYS, _said("A,C,D"), Outcome.INCORRECT),
        (TWO_KEYS, _said("E"), Outcome.ABSTAINED),
        (TWO_KEYS, ABSTAIN, Outcome.ABSTAINED),
        (TWO_KEYS, NOTHING, Outcome.UNPARSED),
        (TWO_KEYS, _said(""), Outcome.UNPARSED),
    ],
)
def test_score_choice(item: ChoiceItem, parsed: Parsed, outcome: Outcome) -> None:
    assert score(item, parsed) is outcome


@pytest.mark.parametrize(
    ("text", "item", "idk_offered", "answer", "reason", "outcome"),
    [
        ("True", TRUE_ITEM, True, T, "keyword 'true' at start", Outcome.CORRECT),
        ("Answer: True", FALSE_ITEM, True, T, "keyword 'true' at start", Outcome.INCORRECT),
        ("not true", FALSE_ITEM, False, F, "negated form 'not true'", Outcome.CORRECT),
        ("I don't know", TRUE_ITEM, True, N, "IDK phrase 'i don't know'", Outcome.ABSTAINED),
        (
            "I don't know",
            TRUE_ITEM,
            False,
            N,
            "IDK phrase 'i don't know' although not offered",
            Outcome.ABSTAINED,
        ),
        (
            "True or false",
            TRUE_ITEM,
            True,
            N,
            "conflicting keywords 'true' and 'false'",
            Outcome.UNPARSED,
        ),
        ("A and C", TWO_KEYS, True, "A,C", "option letters 'A,C'", Outcome.CORRECT),
        ("A", TWO_KEYS, True, "A", "option letter 'A'", Outcome.INCORRECT),
        ("E", ONE_KEY, True, N, "IDK option letter 'E'", Outcome.ABSTAINED),
        ("E", ONE_KEY, False, N, "IDK option letter 'E' although not offered", Outcome.ABSTAINED),
        (
            "not sure",
            ONE_KEY,
            False,
            N,
            "IDK phrase 'not sure' although not offered",
            Outcome.ABSTAINED,
        ),
        ("F", ONE_KEY, True, N, "letter 'F' out of range", Outcome.UNPARSED),
    ],
)
def test_parse_and_score(
    text: str,
    item: StatementItem | ChoiceItem,
    idk_offered: bool,
    answer: str | None,
    reason: str,
    outcome: Outcome,
) -> None:
    parsed, got = parse_and_score(text, item, idk_offered=idk_offered)
    assert (parsed.answer, parsed.reason, got) == (answer, reason, outcome)


def test_parsed_is_frozen() -> None:
    parsed = Parsed("true", False, "keyword 'true' at start")
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.answer = "false"  # type: ignore[misc]


# ---------------------------------------------------------------------------------------------
# Never raises (hypothesis is not installed: a seeded random loop)

_FRAGMENTS = [
    "true", "False", "not", "correct", "no", "yes", "idk", "I don't know", "A", "(B)", "C.",
    "and", "or", ",", ".", "\n", "Statement:", "**", "'", "’", "-", "?", "amoxicillin", " ",
    "e.g.", "\\boxed{", "}", "Ｔ", "\u200b", "\ud800", "\x00",
]  # fmt: skip
_LETTERS_ANSWER = re.compile(r"[A-J](?:,[A-J])*")


def _random_text(rng: random.Random) -> str:
    parts: list[str] = []
    for _ in range(rng.randint(0, 12)):
        roll = rng.random()
        if roll < 0.4:
            parts.append(rng.choice(_FRAGMENTS))
        elif roll < 0.7:
            parts.append(chr(rng.randint(0, 0x10FFFF)))
        else:
            parts.append("".join(chr(rng.randint(32, 126)) for _ in range(rng.randint(1, 8))))
    return "".join(parts)


def _well_formed(parsed: Parsed) -> bool:
    return (
        isinstance(parsed, Parsed)
        and bool(parsed.reason)
        and len(parsed.reason) <= 200
        and not parsed.reason.startswith("parser error")
        and not (parsed.abstained and parsed.answer is not None)
    )


def test_arbitrary_text_never_raises() -> None:
    rng = random.Random(20240611)
    for _ in range(3000):
        text = _random_text(rng)
        for parsed in (
            parse_true_false(text),
            parse_true_false(text, allow_idk=False),
            parse_human(text, TRUE_ITEM),
        ):
            assert _well_formed(parsed), (text, parsed)
            assert parsed.answer in (None, "true", "false"), (text, parsed)
        for parsed in (parse_choice(text, DRUGS), parse_human(text, ONE_KEY)):
            assert _well_formed(parsed), (text, parsed)
            assert parsed.answer is None or _LETTERS_ANSWER.fullmatch(parsed.answer)
            # The outcome follows from the parse alone: abstained, unparsed, or a graded answer.
            expected = (
                {Outcome.ABSTAINED}
                if parsed.abstained
                else {Outcome.UNPARSED}
                if parsed.answer is None
                else {Outcome.CORRECT, Outcome.INCORRECT, Outcome.ABSTAINED, Outcome.UNPARSED}
            )
            assert score(ONE_KEY, parsed) in expected, (text, parsed)
            if parsed.answer == ",".join(ONE_KEY.answer_keys):
                assert score(ONE_KEY, parsed) is Outcome.CORRECT, (text, parsed)


def test_huge_answer_is_read_from_its_start() -> None:
    text = "False. " + "The drug is safe and effective. " * 5000
    _check(parse_true_false(text), F, False, "keyword 'false' at start")
