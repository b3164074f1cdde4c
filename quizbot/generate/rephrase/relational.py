"""The predicate that relates two entities, read through relative clauses and "as its [N]".

:func:`~quizbot.generate.wording.predicate_reading` reads the words *between* two entities. A
rewording often puts the predicate elsewhere, and then the order of the entities no longer says
who plays which role:

* a relative clause with a preposition, ``[A] is the [N] from / for / to which [B] [V]``
  ("The kidney is the site from which nephrolithiasis arises"): read as ``[B] [V] from [A]``,
  the entities in reverse order ("where" reads as "in which", "arises in" as "originates in");
* a relative clause with its subject inside, ``[A] is the [N] that / which [B] [V]``
  ("Furosemide is something which diuresis can cause"): ``[B] [V] [A]``, reversed;
* a reduced passive, ``[A] is the [N] [V]ed by [B]`` ("Insulin is the gene product encoded by
  the INS gene"): ``[A] is [V]ed by [B]``;
* ``[A] displays / has (the) features / signs / characteristics of [B]``: the feature family
  with [A] the whole, as in "[A] presents with [B]";
* ``[A] is associated with / has [B] as its [N]`` ("Diuresis is associated with furosemide as
  its cause"): ``[B] is the [N] of [A]``, reversed.

"Gives rise to" reads as "causes". The origin family ("stems from", "originates in") is read as
the cause family with the roles the other way round ("arises from" is both), so "X arises from
Y" rewords "X stems from Y".
:func:`read_relation` returns the reading and whether the entities stand reversed;
:func:`player` says which entity plays the role that the owner of a relational noun
(:mod:`.possession`) plays (:func:`owner_role`: the owner of an "effect" causes it, the owner of
a "morphology" is the whole that presents with it), to compare the two sentences.
"""

from __future__ import annotations

import re

from quizbot.generate.wording import PredicateReading, predicate_reading

__all__ = ["owner_role", "player", "read_relation"]

_BE = r"^\s*(?:(?:may|might|can|could|would|will|must|should)\s+)?(?:is|are|be|was|were)\s+"
_NP = (
    r"(?:not\s+)?(?:(?:one\s+of\s+)?(?:a|an|the|its|their|one|something|someone)\s+)?"
    r"(?:[^\W\d_][\w'’-]*\s+){0,3}?"
)
_ART = r"(?:(?:a|an|the)\s+)?"
# "[A] is the site from which [B] ...": the preposition goes with the verb after [B]
_PIED_PIPED = re.compile(
    _BE
    + _NP
    + r"(?:(?P<prep>from|for|to|in|by|with|through|on)\s+(?:which|whom)|where)\s+"
    + _ART
    + "$",
    re.IGNORECASE,
)
# Idioms read as the phrase of their family: "gives rise to" causes, "arises in" originates in
_IDIOMS = (
    (re.compile(r"\bg[ai]v(?:e|es|en|ing)\s+rise\s+to\b", re.IGNORECASE), "causes"),
    (re.compile(r"\bar[io]s(?:e|es|en|ing)\s+in\b", re.IGNORECASE), "originates in"),
    (re.compile(r"\bprior\s+to\b", re.IGNORECASE), "before"),
    # "a treatment option for" = "a treatment for"
    (
        re.compile(
            r"\b(?:treatment|therapeutic|therapy)\s+"
            r"(?:options?|choices?|agents?|approach(?:es)?)\s+(?:for|in)\b",
            re.IGNORECASE,
        ),
        "treatment for",
    ),
    # "[A] is the (gene) product of [B]" = "[A] is encoded by [B]"
    (
        re.compile(r"\b(?:the\s+|a\s+|an\s+)?(?:gene\s+)?products?\s+of\b", re.IGNORECASE),
        "encoded by",
    ),
    # "[A] is the result of [B]" = "[A] is caused by [B]"; a bare "caused by" (a reduced
    # relative, "it may caused by") as its passive
    (
        re.compile(
            r"\b(?:the\s+|a\s+|an\s+)?(?:\w+\s+)?(?:result|consequence|outcome)s?\s+of\b",
            re.IGNORECASE,
        ),
        "caused by",
    ),
    (
        re.compile(
            r"(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bbeen )(?<!\bnot )"
            r"\b(?:caused|induced|triggered)\s+by\b",
            re.IGNORECASE,
        ),
        "is caused by",
    ),
    (
        re.compile(r"\b(?:co-?)?occur(?:s|red|ring)?\s+(?:together\s+)?with\b", re.IGNORECASE),
        "associated with",
    ),
)
# The role the owner of a relational noun plays in a family: the owner of an "effect" or a
# "complication" causes it, the owner of a "cause" or an "origin" is caused, the owner of a
# "treatment" is treated; otherwise (morphology, finding, abnormal cell, symptom) it is the whole.
_OWNED = (
    (re.compile(r"\b(?:effects?|complications?|consequences?)\b", re.IGNORECASE), "cause", 0),
    (re.compile(r"\b(?:causes?|origins?)\b", re.IGNORECASE), "cause", 1),
    (re.compile(r"\b(?:treatments?|therap(?:y|ies)|remed(?:y|ies))\b", re.IGNORECASE), "treat", 1),
)
# "[A] is something which [B] can cause": [B] is the subject of the clause
_OBJECT_RELATIVE = re.compile(_BE + _NP + r"(?:that|which|whom)\s+" + _ART + "$", re.IGNORECASE)
# "[A] is the gene product encoded by [B]"
_REDUCED = re.compile(
    _BE + _NP + r"(?P<verb>[^\W\d_]+(?:ed|en))\s+(?P<prep>by|with)\s+" + _ART + "$", re.IGNORECASE
)
# the verb phrase of a relative clause after [B], up to the end of its clause
_VERB_AFTER = re.compile(r"^\s*(?P<verb>[^,;:.()]+?)\s*(?:[,;:.()]|$)")
# "[A] is associated with [B] as its cause", "[A] has [B] as one of its symptoms"
_BARE = re.compile(
    r"^\s*(?:(?:does|do|may|might|can|could|will|would|also|often|not|never)\s+)*"
    r"(?:(?:be|is|are)\s+(?:\w+ly\s+)?(?:associated|linked|related|connected)\s+(?:with|to)"
    r"|has|have|having)\s+" + _ART + "$",
    re.IGNORECASE,
)
_AS_ITS = re.compile(
    r"^\s*,?\s*as\s+(?:one\s+of\s+)?(?:its|their)\s+(?P<noun>(?:[^\W\d_][\w-]*\s+){0,2}?"
    r"[^\W\d_][\w-]*)",
    re.IGNORECASE,
)


# "[X] displays characteristics of [Y]": the subject has the features (the whole), like "[X]
# presents with [Y]", not "[X] is a characteristic of [Y]"
_HAS_FEATURES = re.compile(
    r"^\s*(?:(?:\w+ly|often|may|might|can|could|does|do|also)\s+)*"
    r"(?:has|have|shows?|displays?|exhibits?|presents?|demonstrates?|manifests?)\s+"
    r"(?:[^\W\d_][\w-]*\s+){0,2}?(?:features?|signs?|characteristics?|findings?|hallmarks?)"
    r"\s+of\s+(?:both\s+)?" + _ART + "$",
    re.IGNORECASE,
)


def _normal(reading: PredicateReading | None) -> PredicateReading | None:
    """The origin family as the cause family with the other flip ("X stems from Y" = "X
    results from Y")."""
    if reading is None or reading.family != "origin":
        return reading
    return PredicateReading("cause", 1 - reading.flip, reading.symmetric, reading.phrase)


def _idioms(phrase: str) -> str:
    for pattern, family_phrase in _IDIOMS:
        phrase = pattern.sub(family_phrase, phrase)
    return phrase


def _verb_after(after: str) -> str | None:
    found = _VERB_AFTER.match(after)
    return None if found is None else found.group("verb")


def _relative(between: str, after: str) -> tuple[PredicateReading | None, bool] | None:
    if _BARE.match(between) and (noun := _AS_ITS.match(after)):
        reading = predicate_reading(f" {noun.group('noun')} of ")
        if reading is not None and not reading.symmetric:
            return reading, True
    if _HAS_FEATURES.match(between):
        return PredicateReading("feature", 0, False, between.strip()), False
    if (found := _PIED_PIPED.match(between)) and (verb := _verb_after(after)):
        return predicate_reading(_idioms(f" {verb} {found.group('prep') or 'in'} ")), True
    if _OBJECT_RELATIVE.match(between) and (verb := _verb_after(after)):
        return predicate_reading(f" {verb} "), True
    if found := _REDUCED.match(between):
        return predicate_reading(f" is {found.group('verb')} {found.group('prep')} "), False
    return None


def read_relation(between: str, after: str = "") -> tuple[PredicateReading | None, bool]:
    """The predicate relating two entities and whether it reads them in reverse order.

    ``between`` is the (masked) text between the two entities, ``after`` the text after the
    second one. Without any shape of the module docstring this is
    :func:`~quizbot.generate.wording.predicate_reading` in the sentence's order.
    """
    relative = _relative(between, after)
    if relative is not None:
        return _normal(relative[0]), relative[1]
    return _normal(predicate_reading(_idioms(between), after)), False


def owner_role(masked: str) -> tuple[str, int]:
    """The family and role the owner of the sentence's relational noun plays (``_OWNED``;
    the whole of the feature family by default)."""
    for pattern, family, role in _OWNED:
        if pattern.search(masked):
            return family, role
    return "feature", 0


def player(
    reading: PredicateReading | None, order: tuple[str, str], family: str, role: int
) -> str | None:
    """The entity that plays ``role`` of ``family`` in ``reading``, the entities given in
    reading order ("[X] is found in [Y]": Y is the whole of the feature family); None when the
    reading is of another family."""
    if reading is None or reading.family != family:
        return None
    return order[0] if reading.flip == role else order[1]
