"""Claim changes a rewording makes without touching negation or the entities, for the rephrasing
validator (each a pure function of the masked texts or their lower-cased words, returning
``(category, detail)`` or None):

* :func:`non_implication`: a firm claim made a non-implication or a statement of knowledge
  ("is not known to cause"). "A patient with [X] does not
  suffer from [Y]" says the patient does not have [Y]; "Having [X] does not mean a patient has
  [Y]" only says one does not follow from the other;
* :func:`degree_added`: a word of degree or directness narrows the claim ("is not directly
  linked to", "is a major cause of");
* :func:`risk_dropped`: a risk said as a certainty ("Patients with [X] will develop [Y]" for "the
  likelihood of [Y] is higher");
* :func:`opposite_qualifier`: a qualifier turned into its opposite, "normal" / "abnormal" ("stems
  from the normal cell" / "arises from abnormal cells"), or a place made its outside ("where [X]
  functions" / "functions outside [X]");
  :func:`kept_qualifiers` are the words that only reword a qualifier ("healthy" for "normal");
* :func:`remedy_to_onset`: a remedy made the way to get the disease ("can prevent [Y]" / "can help
  a patient develop [Y]"): the statement prevents or treats, the candidate keeps no word of a
  remedy and brings in a verb of getting a disease;
* :func:`removal_added`: the converse, a claim of having, arising or taking part made one of
  removing, destroying or obstructing ("does not have [Y]" / "does not clear [Y]", "stems from
  [Y]" / "destroys [Y]", "plays a role in [Y]" / "obstructs [Y]") where the statement speaks of
  no remedy, removal or damage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from quizbot.generate.rephrase.claims import NEGATION

__all__ = [
    "degree_added",
    "kept_qualifiers",
    "non_implication",
    "opposite_qualifier",
    "remedy_to_onset",
    "removal_added",
    "risk_dropped",
]

Finding = tuple[str, str]

_NON_IMPLICATION = re.compile(
    r"\b(?:(?:does|do|did|will|would)\s+not|doesn['’]t|don['’]t|didn['’]t|won['’]t)\s+"
    r"(?:\w+ly\s+)?(?:mean|imply|implies|entail|guarantee|prove|indicate|signify|suggest)s?\b"
    r"|\b(?:is|are)\s+(?:not|no)\s+(?:a\s+)?(?:guarantee|proof)\b"
    r"|\bit\s+does\s+not\s+follow\b"
    # what is known in place of what is: "is not known to cause", "no evidence that"
    r"|\bnot\s+(?:been\s+|yet\s+)?(?:known|shown|proven|proved|established|demonstrated"
    r"|documented|confirmed)\b"
    r"|\bno\s+(?:known|evidence|proof|data)\b|\b(?:unknown|unclear|unproven|uncertain)\b",
    re.IGNORECASE,
)

# Words of degree or directness that narrow a claim ("a major cause", "not directly linked")
_DEGREE = frozenset(
    [
        "directly",
        "direct",
        "indirectly",
        "significantly",
        "significant",
        "strongly",
        "substantially",
        "greatly",
        "markedly",
        "primarily",
        "primary",
        "main",
        "major",
        "minor",
        "sole",
        "principal",
        "chief",
        "leading",
        "partly",
        "partially",
        "fully",
        "completely",
        "entirely",
        "clinically",
        "pathognomonic",
    ]
)
# A defining trait, stronger than a link, when said of something: "is characteristic of", "a
# hallmark of" (not "the characteristic morphology")
_DEGREE_OF = frozenset(["characteristic", "hallmark", "typical"])

# (side, opposite side): word prefixes, lower case
_QUALIFIER_PAIRS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (
        ("normal", "healthy"),
        (
            *("abnormal", "unhealthy", "diseased", "patholog", "malignant", "cancerous"),
            *("damaged", "defective", "aberrant", "mutated", "mutant", "dysfunctional"),
        ),
    ),
    (
        ("inside", "within", "where", "in", "intra"),
        ("outside", "beyond", "exterior", "extracellular"),
    ),
    # the development of a disease made its end
    (
        ("develop", "onset", "emerg", "appear"),
        ("resol", "regress", "remission", "disappear", "recover", "healing", "healed"),
    ),
    (("positiv",), ("negativ",)),
    (("upregulat", "up-regulat"), ("downregulat", "down-regulat")),
    (("activat",), ("deactivat", "inactivat")),
    # a fall made an improvement, a rise made a lessening
    (
        ("improv", "restor", "strengthen"),
        (
            *("decreas", "reduc", "impair", "diminish", "weaken", "declin", "lower"),
            *("loss", "lose", "lost", "worsen"),
        ),
    ),
    (
        ("increas", "higher", "rais", "elevat", "more", "greater", "enhanc", "boost"),
        ("minimi", "lessen", "mitigat", "smaller", "weaker", "weaken"),
    ),
)

_REMEDY = (
    "prevent",
    "prophyla",
    "protect",
    "avert",
    "avoid",
    "stop",
    "keep",
    "ward",
    "guard",
    "block",
    "halt",
    "spare",
    "shield",
    "reduc",
    "decreas",
    "lower",
    "less",
    "fewer",
    "diminish",
    "treat",
    "cure",
    "therap",
    "manag",
    "reliev",
    "allevia",
    "heal",
    "against",
    "combat",
    "fight",
    "counter",
    "resol",
    "remed",
    "inhibit",
    "suppress",
    "hinder",
    "imped",
    "curb",
    "limit",
    "lessen",
    "minimi",
    "mitigat",
    # ridding a patient of a disease: "get rid of", "overcome", "recover from"
    "rid",
    "relief",
    "overcom",
    "eliminat",
    "eradicat",
    "clear",
    "recover",
    "better",
    "improv",
)
# verbs of getting a disease (not the noun: "inhibit the development of [Y]" is a remedy)
_ONSET = frozenset(
    [
        "develop",
        "develops",
        "developing",
        "developed",
        "acquire",
        "acquires",
        "acquiring",
        "contract",
        "contracts",
        "contracting",
        "catch",
        "catches",
        "get",
        "gets",
        "getting",
        # verbs of helping a disease along
        "contribute",
        "contributes",
        "contributing",
        "facilitate",
        "facilitates",
        "encourage",
        "encourages",
        "favor",
        "favors",
        "favour",
        "favours",
    ]
)


def non_implication(orig: str, cand: str) -> Finding | None:
    """``claim strength changed`` when the candidate says one thing "does not mean / imply /
    guarantee" the other, or says what is known in place of what is ("is not known to", "no
    evidence"), and the statement has no such phrase (masked texts)."""
    found = _NON_IMPLICATION.search(cand)
    if found is not None and _NON_IMPLICATION.search(orig) is None:
        return ("claim strength changed", f"{found.group(0)!r} only denies an implication")
    return None


def degree_added(had: Sequence[str], words: Sequence[str]) -> Finding | None:
    """``claim strength changed`` when the candidate brings in a word of degree or directness
    (``_DEGREE``: "directly", "significantly", "a major cause"; ``_DEGREE_OF`` before "of": "is
    characteristic of") the statement does not have.
    One that intensifies a negation cue ("completely ineffective", "entirely unrelated") keeps
    the claim."""
    following = [*words[1:], ""][: len(words)]  # an all-entity candidate has no words
    added = [
        w
        for w, after in zip(words, following, strict=True)
        if (w in _DEGREE or (w in _DEGREE_OF and after == "of"))
        and w not in had
        and not NEGATION.fullmatch(after)
    ]
    if added:
        return ("claim strength changed", f"{added[0]!r} narrows the claim")
    return None


# Words of a risk: "the likelihood of [Y] is higher", "more prone to", "predisposes to"
_RISK_WORDS = ("risk", "likel", "chance", "probab", "odds", "prone", "predispos", "susceptib")


def risk_dropped(had: Sequence[str], words: Sequence[str]) -> Finding | None:
    """``claim strength changed`` when the statement speaks of a risk and the candidate keeps no
    word of one: "Patients with [X] will develop [Y]" is not "the likelihood of [Y] is higher"."""
    if any(w.startswith(_RISK_WORDS) for w in had) and not any(
        w.startswith((*_RISK_WORDS, "vulnerab", "unlikel")) for w in words
    ):
        return ("claim strength changed", "the risk became a certainty")
    return None


def _on(word: str, side: tuple[str, ...]) -> bool:
    return any(word == p or (len(p) > 3 and word.startswith(p)) for p in side)


def opposite_qualifier(had: Sequence[str], words: Sequence[str]) -> Finding | None:
    """``antonym`` when the candidate brings in a word of one side of ``_QUALIFIER_PAIRS``
    that the statement does not have, while the statement has the other side and none of it.
    A short prefix ("in", "where") must be the whole word."""
    for left, right in _QUALIFIER_PAIRS:
        for this, other in ((left, right), (right, left)):
            brought = [w for w in words if _on(w, other) and not _on(w, this) and w not in had]
            if not brought or any(_on(w, other) and not _on(w, this) for w in had):
                continue
            if any(_on(w, this) and not _on(w, other) for w in had):
                return ("antonym", f"{brought[0]!r} reverses the statement's qualifier")
    return None


def kept_qualifiers(had: Sequence[str], words: Sequence[str]) -> set[str]:
    """The candidate's words on the same side of ``_QUALIFIER_PAIRS`` as a word of the
    statement ("healthy" for "normal"): a rewording, not an opposite of another statement word
    ("healthy" is no opposite of "the disease [X]" when it stands for "normal")."""
    kept: set[str] = set()
    for pair in _QUALIFIER_PAIRS:
        for this in pair:
            if any(_on(w, this) for w in had):
                kept |= {w for w in words if _on(w, this)}
    return kept


def remedy_to_onset(had: Sequence[str], words: Sequence[str]) -> Finding | None:
    """``antonym`` when the statement has a remedy word and the candidate has none but brings
    in a verb of getting a disease ("develop", "acquire", "contract") the statement lacks."""
    if not any(w.startswith(_REMEDY) for w in had) or any(w.startswith(_REMEDY) for w in words):
        return None
    onset = [w for w in words if w in _ONSET and w not in had]
    if onset and not any(w in _ONSET for w in had):
        return ("antonym", f"{onset[0]!r} makes a remedy the way to get the disease")
    return None


# Verbs and nouns of removing, destroying or obstructing a thing: the opposite of having it,
# arising from it or taking part in it ("clears", "eradicates", "destroys", "obstructs")
_REMOVAL = (
    *("clear", "eliminat", "eradicat", "remov", "abolish", "abolition", "wipe"),
    *("destroy", "destruct", "kill", "obstruct", "hinder", "imped", "hamper", "thwart"),
)
_REMOVAL_WORDS = frozenset(["rid", "lose", "loses", "losing", "shed", "sheds", "shedding"])
_NOT_REMOVAL = frozenset(["clearly", "clearer", "clearest"])  # "clearly linked": no removal
# Words of the statement that make a removal fair: a remedy, or damage it already speaks of
_DAMAGE = ("lesion", "damag", "injur", "harm", "toxic", "necro", "death", "degrad", "loss")


def _removal(word: str) -> bool:
    return word not in _NOT_REMOVAL and (word in _REMOVAL_WORDS or word.startswith(_REMOVAL))


def removal_added(had: Sequence[str], words: Sequence[str]) -> Finding | None:
    """``antonym`` when the candidate brings in a word of removing, destroying or obstructing
    (``_REMOVAL``: "clear", "eradicate", "destroy", "obstruct") while the statement has none and
    no word of a remedy (``_REMEDY``) or of damage (``_DAMAGE``): what a thing has, arises from or
    takes part in, it does not remove or block."""
    if any(_removal(w) or w.startswith(_REMEDY + _DAMAGE) for w in had):
        return None
    brought = [w for w in words if _removal(w)]
    if brought:
        return ("antonym", f"{brought[0]!r} makes the relation a removal")
    return None
