"""Other spellings of one entity name that a rephrasing may use, for the rephrasing validator.

A knowledge base writes names as a thesaurus does ("Leukemia, Myeloid, Acute", "Pneumonia, NOS",
"Postpartum Hemorrhage", "Type 2 diabetes mellitus"); a rewording writes them as prose. Every
variant here names the same entity, so adding it to the names the validator looks for never lets
a dropped or swapped entity pass:

* a comma-inverted name in prose order: "Leukemia, Myeloid, Acute" -> "Acute Myeloid Leukemia";
* a thesaurus qualifier dropped: ", NOS", "unspecified", a semantic tag "(disorder)",
  "(finding)" or a one-letter tag "[D]";
* British and American spelling: "haemorrhage" / "hemorrhage", "oesophagus", "tumour",
  "leukaemia", "diarrhoea", "-ise" / "-ize";
* a prefix set off by a hyphen: "post-partum" / "postpartum", "non-small cell";
* a type number in Roman or Arabic figures: "type 2" / "type II" (1 to 4 only);
* a Greek letter spelled out or as its symbol: "TNF-alpha" / "TNF-α";
* a generic last word dropped: "Phosphorylation Process", "Atypical Cells Present", "Protein
  Kinase Activity" (what the enzyme does: "functions as a protein kinase");
* an organ noun as its adjective ("Tooth Diseases" / "dental diseases", "Cell" / "cellular") and
  a two-word name as "[B] of [A]" ("diseases of the teeth");
* a causal link inside the name in other words: "Dermatitis due to radiation" / "dermatitis
  caused by (the) radiation", "resulting from", "secondary to", "induced by", "owing to", or a
  short cause set before the effect ("radiation-induced dermatitis", "radiation-related");
* a change named by its direction in another word of the same direction: "Decreased
  Acetylcholine Activity" / "reduced" or "lowered acetylcholine activity" (never "increased");
* a binding protein named for what it does, where the name is a function: "DNA Binding
  Protein" / "DNA binding", "DNA-binding function" or "activity".

Hyphens and spaces inside a name ("cell-surface receptor", "T cell") are matched by
:func:`~quizbot.generate.wording.entity_regex` itself. :data:`DESCRIPTORS` are words that may
stand before an entity without making it a subtype ("the cellular Golgi apparatus") or take
it as their object ("may reduce hydrolysis").
"""

from __future__ import annotations

import re

__all__ = ["DESCRIPTORS", "ORGAN_ADJECTIVES", "name_variants"]

# Words a rewording may put right before an entity that say what kind of thing it is, not which
# subtype ("the human gene product", "the biological process of hydrolysis").
DESCRIPTORS = frozenset(
    [
        "human",
        "cellular",
        "biological",
        "biochemical",
        "molecular",
        "anatomical",
        "anatomic",
        "physiological",
        "physiologic",
        "so-called",
        "called",
        "named",
        "termed",
        "known",
        # verbs that take the entity as their object ("may reduce hydrolysis")
        "reduce",
        "reduces",
        "decrease",
        "decreases",
        "lower",
        "lowers",
        "impair",
        "impairs",
        "diminish",
        "diminishes",
        "increase",
        "increases",
        "influence",
        "influences",
    ]
)

# A last word that says what kind of thing the name is, or that it was seen, not which one
_GENERIC_LAST = re.compile(r"(?<=\w)\s+(?:process|present|activity)$", re.IGNORECASE)
# Organ nouns and their adjectives ("renal" for "kidney")
ORGAN_ADJECTIVES: dict[str, tuple[str, ...]] = {
    "cell": ("cellular",),
    "cells": ("cellular",),
    "tooth": ("dental",),
    "teeth": ("dental",),
    "heart": ("cardiac",),
    "kidney": ("renal",),
    "liver": ("hepatic",),
    "lung": ("pulmonary",),
    "brain": ("cerebral",),
    "skin": ("cutaneous",),
    "muscle": ("muscular",),
    "stomach": ("gastric",),
    "bone": ("bony", "osseous"),
    "nerve": ("neural",),
    "eye": ("ocular",),
    "nose": ("nasal",),
}
# Irregular plurals of nouns a name may hold
_IRREGULAR: dict[str, tuple[str, ...]] = {
    "tooth": ("teeth",),
    "foot": ("feet",),
    "mouse": ("mice",),
    "louse": ("lice",),
    "child": ("children",),
    "woman": ("women",),
    "man": ("men",),
}

_QUALIFIER = re.compile(
    r"(?:\s*,\s*|\s+)(?:NOS|not\s+otherwise\s+specified|unspecified|\[[A-Z]\]"
    r"|\((?:disorder|finding|disease|morphologic\s+abnormality|body\s+structure|substance"
    r"|procedure|situation|event|qualifier\s+value)\))\s*$",
    re.IGNORECASE,
)
# (American, British) spellings of word parts, applied both ways in one pass
_SPELLINGS = (
    ("emia", "aemia"),
    ("hem", "haem"),
    ("edem", "oedem"),
    ("esoph", "oesoph"),
    ("estr", "oestr"),
    ("pedi", "paedi"),
    ("tumor", "tumour"),
    ("fet", "foet"),
    ("celiac", "coeliac"),
    ("rrhea", "rrhoea"),
    ("anes", "anaes"),
    ("ize", "ise"),
    ("yze", "yse"),
)
_TO_UK = re.compile("|".join(us for us, _ in _SPELLINGS), re.IGNORECASE)
_TO_US = re.compile("|".join(uk for _, uk in _SPELLINGS), re.IGNORECASE)
_UK = {us: uk for us, uk in _SPELLINGS}
_US = {uk: us for us, uk in _SPELLINGS}
_ROMAN = {"1": "I", "2": "II", "3": "III", "4": "IV"}
_ARABIC = {v: k for k, v in _ROMAN.items()}
_NUMBER = re.compile(r"(?<![\w-])(?:[1-4]|I{1,3}|IV)(?![\w-])")


_PREFIX = re.compile(
    r"(?<![\w-])(post|pre|peri|anti|intra|extra|sub|supra|inter|trans|non)(?=[a-z]{4,}\b)",
    re.IGNORECASE,
)


# Greek letters spelled out and as symbols ("TNF-alpha" / "TNF-α")
_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "kappa": "κ"}
_LATIN_GREEK = {v: k for k, v in _GREEK.items()}
_GREEK_WORD = re.compile(r"(?<![^\W\d_])(?:" + "|".join(_GREEK) + r")(?![^\W\d_])", re.IGNORECASE)
_GREEK_SIGN = re.compile("|".join(_LATIN_GREEK))


def _greek(name: str) -> str:
    """The name with its Greek letters spelled the other way (word -> symbol, or symbol ->
    word)."""
    if _GREEK_WORD.search(name):
        return _GREEK_WORD.sub(lambda m: _GREEK[m.group(0).lower()], name)
    return _GREEK_SIGN.sub(lambda m: _LATIN_GREEK[m.group(0)], name)


def _uninverted(name: str) -> str | None:
    """ "Leukemia, Myeloid, Acute" -> "Acute Myeloid Leukemia" (None without a comma)."""
    parts = [p.strip() for p in name.split(",") if p.strip()]
    return " ".join(reversed(parts)) if len(parts) > 1 else None


def _respelled(name: str, pattern: re.Pattern[str], table: dict[str, str]) -> str:
    return pattern.sub(lambda m: table[m.group(0).lower()], name)


def _renumbered(name: str) -> str:
    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        return _ROMAN.get(word) or _ARABIC.get(word, word)

    return _NUMBER.sub(swap, name)


def _reworded(name: str) -> list[str]:
    """A name with a generic last word dropped ("Phosphorylation Process" -> "Phosphorylation",
    "Atypical Cells Present" -> "Atypical Cells"), with an organ noun made its adjective
    ("Tooth Diseases" -> "Dental Diseases", "Cell" -> "cellular") and a two-word name as "[B]
    of [A]" ("Tooth Diseases" -> "Diseases of teeth")."""
    found: list[str] = []
    if (short := _GENERIC_LAST.sub("", name).strip()) and short != name:
        found.append(short)
    words = name.split()
    if len(words) == 1 and words[0].lower() in ORGAN_ADJECTIVES:
        found += ORGAN_ADJECTIVES[words[0].lower()]
    for index, word in enumerate(words[:-1]):
        for adjective in ORGAN_ADJECTIVES.get(word.lower(), ()):
            found.append(" ".join([*words[:index], adjective, *words[index + 1 :]]))
    if len(words) == 2 and words[0].isalpha() and words[1].isalpha():
        first = words[0].lower()
        found += [f"{words[1]} of {form}" for form in (first, *_IRREGULAR.get(first, ()))]
    return found


# Phrases that link an effect to its cause inside a name ("Dermatitis due to radiation")
_CAUSAL_LINKS = (
    "due to",
    "caused by",
    "resulting from",
    "secondary to",
    "induced by",
    "owing to",
    "attributable to",
    "because of",
)
_CAUSAL_LINK = re.compile(
    r"(?<=\w )(" + "|".join(p.replace(" ", r"\s+") for p in _CAUSAL_LINKS) + r")(?= \w)",
    re.IGNORECASE,
)
# "... DNA Binding Protein": the protein named for what it does, said as the function
_FUNCTION_PROTEIN = re.compile(r"(?<=\w)(ing)\s+proteins?$", re.IGNORECASE)


def _relinked(name: str) -> list[str]:
    """The name with its causal link said in each other way (and a short cause set before the
    effect: "radiation-induced pneumonitis"), and a binding protein's name as its function
    ("... Binding" / "... Binding function" / "... Binding activity")."""
    found: list[str] = []
    link = _CAUSAL_LINK.search(name)
    if link:
        found += [_CAUSAL_LINK.sub(other, name, count=1) for other in _CAUSAL_LINKS]
        effect, cause = name[: link.start()].strip(), name[link.end() :].strip()
        if len(cause.split()) <= 2 and "," not in name:  # "radiation-induced pneumonitis"
            found += [f"{cause}-{how} {effect}" for how in ("induced", "related")]
    if _FUNCTION_PROTEIN.search(name):
        ends = ("", " function", " activity")
        found += [_FUNCTION_PROTEIN.sub(r"\1" + end, name) for end in ends]
    return found


# A change named by its direction ("Decreased Acetylcholine Activity"): other participles of
# the same direction only, never of the other ("increased" stays an antonym)
_DIRECTIONS = (
    ("decreased", "reduced", "lowered", "diminished", "dropped", "declined", "impaired"),
    ("increased", "elevated", "raised", "enhanced", "heightened", "boosted", "augmented"),
)


def _redirected(name: str) -> list[str]:
    """``name`` with its first word, a participle of direction, said by another of the same
    direction ("Decreased Acetylcholine Activity" -> "Reduced Acetylcholine Activity")."""
    first, _, rest = name.partition(" ")
    for group in _DIRECTIONS:
        if first.lower() in group and rest:
            return [f"{other} {rest}" for other in group if other != first.lower()]
    return []


def name_variants(name: str) -> tuple[str, ...]:
    """Other ways to write ``name`` (see the module docstring), ``name`` itself left out."""
    bases = [name, *_reworded(name), *_relinked(name), *_redirected(name)]
    plain = _QUALIFIER.sub("", name).strip()
    if plain and plain != name:
        bases.append(plain)
    for base in list(bases):
        if (prose := _uninverted(base)) is not None:
            bases.append(prose)
    found: list[str] = []
    for base in bases:
        for spelled in (base, _respelled(base, _TO_UK, _UK), _respelled(base, _TO_US, _US)):
            # "post-partum" is matched with or without the hyphen
            found += [spelled, _renumbered(spelled), _PREFIX.sub(r"\1-", spelled), _greek(spelled)]
    return tuple(v for v in dict.fromkeys(found) if v and v.casefold() != name.casefold())
