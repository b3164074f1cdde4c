"""How recall_terms folds a name (quizbot/evaluation/recall_terms.py): rules added for the fourth
independent reader's set (set D), each with examples of our own."""

from __future__ import annotations

import pytest

from quizbot.evaluation.recall import parse_list
from quizbot.evaluation.recall_terms import words


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("lymph node metastasis", "lymph node metastases"),
        ("differential diagnosis", "differential diagnoses"),
        ("deep vein thrombosis", "deep vein thromboses"),
        ("oesophageal varix", "oesophageal varices"),
        ("appendix", "appendices"),
        ("petechia", "petechiae"),
        ("pulmonary embolus", "pulmonary emboli"),
        ("renal calculus", "renal calculi"),
        ("colonic diverticulum", "colonic diverticula"),
        ("bacterium", "bacteria"),
        ("adrenal cortex", "adrenal cortices"),
    ],
)
def test_greek_and_latin_plurals_fold_to_one_form(one: str, other: str) -> None:
    assert words(one) == words(other)


def test_a_latin_fold_does_not_join_ordinary_words() -> None:
    assert words("diseases") == words("disease")
    assert words("cervical") == words("cervix")  # an organ adjective whose organ is an -ix word
    assert words("complex") != words("complice")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("loss of visual acuity", "loss of vision acuity"),
        ("visual disturbance", "vision disturbance"),
        ("loss of sight", "loss of vision"),
        ("renal failure", "kidney failure"),
        ("hepatic encephalopathy", "liver encephalopathy"),
        ("cutaneous lesions", "skin lesions"),
    ],
)
def test_a_noun_and_its_adjective_are_one_word(one: str, other: str) -> None:
    assert words(one) == words(other)


def test_a_slash_before_a_short_numbered_token_does_not_split() -> None:
    assert parse_list("NS5A inhibitors, NS3/4A protease inhibitors") == (
        ["NS5A inhibitors", "NS3/4A protease inhibitors"],
        False,
    )
    assert parse_list("IL-12/23 inhibitor") == (["IL-12/23 inhibitor"], False)
    # A slash between words, or before a word, still separates.
    assert parse_list("nausea/vomiting, HSV/VZV") == (["nausea", "vomiting", "HSV", "VZV"], False)
    assert parse_list("CT/MRI") == (["CT", "MRI"], False)
