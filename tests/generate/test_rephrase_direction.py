"""Who is the outcome of a risk and the target of an effect, for the rephrasing validator
(issue 24, :mod:`quizbot.generate.rephrase.direction`).

Each rule is tested on both sides: the faithful rewording it lets through and the role swap it
must reject. Sentences are our own.
"""

from __future__ import annotations

import pytest

from quizbot.generate.rephrase.direction import (
    direction_change,
    direction_kept,
    effect_target,
    risk_outcome,
)
from tests.helpers.rephrase import verdict_of

_verdict = verdict_of


def _spans(masked: str, *keys: str) -> dict[str, list[tuple[int, int]]]:
    """The spans of the runs of the mask character, given to ``keys`` in order."""
    spans: dict[str, list[tuple[int, int]]] = {}
    index = 0
    for key in keys:
        start = masked.index("\x1a", index)
        stop = start
        while stop < len(masked) and masked[stop] == "\x1a":
            stop += 1
        spans[key] = [(start, stop)]
        index = stop
    return spans


M = "\x1a\x1a\x1a"


@pytest.mark.parametrize(
    ("masked", "keys", "outcome"),
    [
        (f"{M} raises the risk of getting {M}.", ("a", "b"), "b"),
        (f"If a person has {M}, the chance of him developing {M} is greater.", ("a", "b"), "b"),
        (f"{M} is a risk factor for {M}.", ("a", "b"), "b"),
        (f"Patients with {M} are more prone to {M}.", ("a", "b"), "b"),
        (f"{M} predisposes a person to {M}.", ("a", "b"), "b"),
        (f"{M} is common in people with {M}.", ("a", "b"), None),
        (f"{M} is more likely to occur in people with {M}.", ("a", "b"), "a"),
        (f"The risk of {M}, unlike the risk of {M}, is low.", ("a", "b"), None),
    ],
)
def test_risk_outcome(masked: str, keys: tuple[str, str], outcome: str | None) -> None:
    assert risk_outcome(masked, _spans(masked, *keys)) == outcome


@pytest.mark.parametrize(
    ("masked", "target"),
    [
        (f"Less {M} influences the level of {M}.", "b"),
        (f"When {M} falls, {M} may be altered.", "b"),
        (f"{M} has no effect on {M}.", "b"),
        (f"{M} is not affected by {M}.", "a"),
        (f"{M} is linked to {M}.", None),
    ],
)
def test_effect_target(masked: str, target: str | None) -> None:
    assert effect_target(masked, _spans(masked, "a", "b")) == target


def test_direction_change_compares_both_sentences() -> None:
    orig = f"{M} raises the risk of {M}."
    same = f"People with {M} have a higher likelihood of {M}."
    swapped = f"{M} makes {M} more likely to develop."  # no outcome named: nothing to compare
    assert direction_change((orig, _spans(orig, "a", "b")), (same, _spans(same, "a", "b"))) is None
    back = f"{M} raises the risk of {M}."
    finding = direction_change((orig, _spans(orig, "a", "b")), (back, _spans(back, "b", "a")))
    assert finding is not None and finding[0] == "roles swapped"
    assert (
        direction_change((orig, _spans(orig, "a", "b")), (swapped, _spans(swapped, "a", "b")))
        is None
    )


@pytest.mark.parametrize(
    ("statement", "candidate", "expected"),
    [
        # risk: the outcome stays the outcome
        (
            "If a patient has Barrett Esophagus, then the likelihood of he/she suffering from "
            "Esophageal Adenocarcinoma is higher.",
            "Barrett esophagus raises a patient's risk of esophageal adenocarcinoma.",
            "accepted",
        ),
        (
            "If a patient has Barrett Esophagus, then the likelihood of he/she suffering from "
            "Esophageal Adenocarcinoma is higher.",
            "Esophageal adenocarcinoma raises a patient's risk of developing Barrett esophagus.",
            "roles swapped",
        ),
    ],
)
def test_risk_direction_in_the_validator(statement: str, candidate: str, expected: str) -> None:
    assert (
        _verdict(statement, candidate, "Barrett Esophagus", "Esophageal Adenocarcinoma") == expected
    )


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Less thyroid peroxidase may influence iodination.", "accepted"),
        (
            "A change in iodination may influence the production of thyroid peroxidase.",
            "roles swapped",
        ),
    ],
)
def test_effect_direction_in_the_validator(candidate: str, expected: str) -> None:
    statement = (
        "If the production of Thyroid Peroxidase decreases, the process of Iodination may be "
        "influenced."
    )
    assert _verdict(statement, candidate, "Thyroid Peroxidase", "Iodination") == expected


@pytest.mark.parametrize(
    ("masked", "target"),
    [
        # a change that ends its clause names its target, unless it is the condition
        (f"If {M} falls, {M} may decrease.", "b"),
        (f"{M} may decline if {M} drops.", "a"),
        # change verbs that are also nouns or adjectives count only after a modal or "to"
        (f"A decrease in {M} may reduce {M}.", "b"),
        (f"Lower {M} is linked to {M}.", None),
        (f"{M} lowers {M}.", "b"),
    ],
)
def test_effect_target_of_changes(masked: str, target: str | None) -> None:
    assert effect_target(masked, _spans(masked, "a", "b")) == target


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Reduced production of hexokinase 2 may decrease glucose phosphorylation.", "accepted"),
        ("Glucose phosphorylation may decline if hexokinase 2 production falls.", "accepted"),
        (
            "Decreased glucose phosphorylation may decrease hexokinase 2 production.",
            "roles swapped",
        ),
        ("Hexokinase 2 production may decline if glucose phosphorylation falls.", "roles swapped"),
    ],
)
def test_change_direction_in_the_validator(candidate: str, expected: str) -> None:
    statement = (
        "If the production of Hexokinase 2 decreases, the functionality of Glucose "
        "Phosphorylation may decrease."
    )
    assert _verdict(statement, candidate, "Hexokinase 2", "Glucose Phosphorylation") == expected


def test_direction_kept() -> None:
    orig = f"{M} raises the risk of {M}."
    moved = f"{M} is more likely to occur in people with {M}."
    assert direction_kept((orig, _spans(orig, "a", "b")), (moved, _spans(moved, "b", "a")))
    assert not direction_kept((orig, _spans(orig, "a", "b")), (moved, _spans(moved, "a", "b")))


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        # the order changes, the outcome stays: no role swap
        (
            "Esophageal adenocarcinoma is more likely to occur in patients with Barrett esophagus.",
            "accepted",
        ),
        (
            "The risk of esophageal adenocarcinoma is higher in patients with Barrett esophagus.",
            "accepted",
        ),
        (
            "The risk of Barrett esophagus is higher in patients with esophageal adenocarcinoma.",
            "roles swapped",
        ),
    ],
)
def test_moved_outcome_keeps_the_roles(candidate: str, expected: str) -> None:
    statement = (
        "If a patient suffers from Barrett Esophagus, then the likelihood of he/she suffering "
        "from Esophageal Adenocarcinoma is higher."
    )
    assert (
        _verdict(statement, candidate, "Barrett Esophagus", "Esophageal Adenocarcinoma") == expected
    )
