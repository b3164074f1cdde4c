"""The eight predicate transforms of PretexEval and the truth value of each.

A knowledge triplet is a predicate P(h, t). Three operations rewrite it without changing its
meaning: inversion (state it from the tail's side, P^-1(t, h)), instantiation (state it of an
individual: a patient with h ...), and double negation (not not P). Their combinations give eight
variants. A double-negated variant is *stated* in its single-negated form (the sentence says
"not P"), so it is the one variant whose text is the negation of the fact:

    transform     says        true triplet   negative triplet
    none          P           true           false
    inv           P^-1        true           false
    ins           P(x)        true           false
    inv+ins       P^-1(x)     true           false
    dn            not P       false          true
    inv+dn        not P^-1    false          true
    ins+dn        not P(x)    false          true
    inv+ins+dn    not P^-1(x) false          true

So ``label = polarity_is_positive XOR transform_has_dn``.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["PAIRS", "TRANSFORMS", "Polarity", "Transform", "describe", "label_for"]


class Polarity(StrEnum):
    """Whether the triplet asked about is a KB fact or a generated negative."""

    POSITIVE = "positive"
    NEGATIVE = "negative"


class Transform(StrEnum):
    """The eight variants, named by the operations applied."""

    NONE = "none"
    INV = "inv"
    INS = "ins"
    INV_INS = "inv+ins"
    DN = "dn"
    INV_DN = "inv+dn"
    INS_DN = "ins+dn"
    INV_INS_DN = "inv+ins+dn"

    @property
    def parts(self) -> frozenset[str]:
        """The operations in this transform (empty for ``none``)."""
        return frozenset() if self is Transform.NONE else frozenset(self.value.split("+"))

    @property
    def negated(self) -> bool:
        """True when the sentence states the negation (a double-negation variant)."""
        return "dn" in self.parts

    @property
    def partner(self) -> Transform:
        """The same variant with double negation toggled: the SDAK factual/counterfactual pair."""
        parts = set(self.parts) ^ {"dn"}
        return _BY_PARTS[frozenset(parts)]


TRANSFORMS: tuple[Transform, ...] = tuple(Transform)
_BY_PARTS = {t.parts: t for t in Transform}

# (factual, counterfactual) pairs: each plain variant with its double-negated partner.
PAIRS: tuple[tuple[Transform, Transform], ...] = tuple(
    (t, t.partner) for t in TRANSFORMS if not t.negated
)

_NAMES = {"inv": "inversion", "ins": "instantiation", "dn": "double negation"}


def label_for(polarity: Polarity, transform: Transform) -> bool:
    """Truth value of the sentence for this triplet polarity and transform."""
    return (polarity is Polarity.POSITIVE) != transform.negated


def describe(transform: Transform) -> str:
    """Human description, e.g. ``inversion + double negation`` (``original statement``)."""
    if transform is Transform.NONE:
        return "original statement"
    return " + ".join(_NAMES[p] for p in transform.value.split("+"))
