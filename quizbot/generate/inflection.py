"""Entity forms and stems for the rephrasing validator: inflection, entity patterns, crude stems.

Entity forms (:func:`entity_regex`): an entity matches whatever its case, with or without
articles between or before its words, in its singular or plural (-s, -es, -ies and the Latin and
Greek plurals common in medicine: -itis/-itides, -us/-i, -a/-ae, -is/-es, -ex|-ix/-ices,
-um/-a) and under any listed synonym. Words in capitals or with digits (FBN1, AIDS) are not
inflected. :func:`stem` is the crude stem every word comparison uses. Re-exported by
:mod:`quizbot.generate.wording`.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["entity_regex", "is_inheritance_mode", "stem", "word_forms"]

_ARTICLES = ("a", "an", "the")
_OPTIONAL_ARTICLE = r"(?:(?:a|an|the)\s+)?"

# --------------------------------------------------------------------------------------------
# Inflection
# --------------------------------------------------------------------------------------------

# (plural ending, singular ending), most specific first; each pair is used both ways.
_LATIN = (
    ("itides", "itis"),
    ("ices", "ex"),
    ("ices", "ix"),
    ("oses", "osis"),
    ("ases", "asis"),
    ("eses", "esis"),
    ("ae", "a"),
    ("i", "us"),
    ("a", "um"),
    ("a", "on"),  # ganglia, mitochondria
)
_SIBILANT_ES = re.compile(r"(?:s|x|z|ch|sh)es$")


def _singulars(word: str) -> set[str]:
    found = {word}
    for plural, singular in _LATIN:
        if word.endswith(plural) and len(word) - len(plural) >= 3:
            found.add(word[: -len(plural)] + singular)
    if word.endswith("ies") and len(word) > 4:
        found.add(word[:-3] + "y")
    elif _SIBILANT_ES.search(word):
        found.add(word[:-2])
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        found.add(word[:-1])
    return found


def _plurals(word: str) -> set[str]:
    found = {word}
    for plural, singular in _LATIN:
        if word.endswith(singular) and len(word) - len(singular) >= 3:
            found.add(word[: -len(singular)] + plural)
    if word.endswith("y") and len(word) > 3 and word[-2] not in "aeiou":
        found.add(word[:-1] + "ies")
    elif re.search(r"(?:s|x|z|ch|sh)$", word):
        found.add(word + "es")
    else:
        found.add(word + "s")
    return found


def word_forms(word: str) -> frozenset[str]:
    """The singular and plural forms ``word`` may take (lower case), ``word`` included.

    Words shorter than four letters, in capitals or not purely alphabetic are left as they are.
    """
    if len(word) < 4 or not word.isalpha() or word.isupper():
        return frozenset({word.lower()})
    lower = word.lower()
    forms: set[str] = set()
    for singular in _singulars(lower):
        forms |= _plurals(singular)
    return frozenset(forms)


def _word_pattern(word: str) -> str:
    forms = sorted(word_forms(word), key=lambda form: (-len(form), form))
    return forms[0] if len(forms) == 1 else "(?:" + "|".join(map(re.escape, forms)) + ")"


# Entity-form rules (documented in :func:`entity_regex`).
_INHERITANCE_NOUNS = (
    r"\s+(?:inheritance(?:\s+(?:pattern|mode)s?)?"
    r"|(?:manner|pattern|fashion|mode|trait)s?(?:\s+of\s+inheritance)?)"
)
_SITED_NOUNS = frozenset(["pain", "tenderness", "swelling", "stiffness", "numbness", "rash"])


def is_inheritance_mode(name: str) -> bool:
    """Whether the entity names a mode of inheritance ("autosomal recessive inheritance")."""
    words = name.split()
    return len(words) > 1 and words[-1].lower() == "inheritance"


@lru_cache(maxsize=8192)
def entity_regex(name: str) -> re.Pattern[str]:
    """A case-insensitive pattern for one entity name, tolerant of articles and plurals.

    Articles in the name are optional, and an article may appear before any of its words;
    whole words only at the name's edges ("FBN12" is not "FBN1"). Two phrasings keep every
    word that tells one entity from another: a mode of inheritance ("X-linked recessive
    inheritance") may read "an X-linked recessive manner / pattern (of inheritance)" or "X-linked
    recessive inheritance pattern", and a symptom after its site ("right lower quadrant pain",
    also tenderness, swelling, stiffness, numbness, rash) may read "pain in / over the right
    lower quadrant".
    """
    words = [w for w in name.split(" ") if w]
    while len(words) > 1 and words[0].lower() in _ARTICLES:
        words = words[1:]
    parts: list[str] = []
    for word in words:
        if word.lower() in _ARTICLES:
            continue  # an article inside the name: optional, like everywhere else
        pieces = re.split(r"(?<=\w)-(?=\w)", word)  # "T-Cell" = "T cell" = "TCell"
        cores = [re.escape(p) if not p.isalpha() else _word_pattern(p) for p in pieces]
        parts.append(r"(?:-|\s+)?".join(cores))
    body = (r"(?:-|\s+" + _OPTIONAL_ARTICLE + ")").join(parts)  # "cell-surface receptor"
    last = words[-1].lower()
    if len(parts) > 1 and last == "inheritance":
        # "autosomal recessive inheritance" = "an autosomal recessive manner / pattern (of
        # inheritance)" / "autosomal recessive inheritance pattern": the mode words stay.
        mode = (r"\s+" + _OPTIONAL_ARTICLE).join(parts[:-1])
        body = mode + _INHERITANCE_NOUNS
    elif len(parts) > 1 and last in _SITED_NOUNS:
        # "right lower quadrant pain" = "pain in the right lower quadrant": the site stays whole.
        site = (r"\s+" + _OPTIONAL_ARTICLE).join(parts[:-1])
        body = f"(?:{body}|{parts[-1]}\\s+(?:in|of|over|at)\\s+{_OPTIONAL_ARTICLE}{site}(?![\\w-]))"
    before = r"(?<![\w-])" if re.match(r"\w", words[0]) else ""
    after = r"(?![\w-]*\w)" if re.search(r"\w$", words[-1]) else ""
    return re.compile(before + body + after, re.IGNORECASE)


# --------------------------------------------------------------------------------------------
# Stems
# --------------------------------------------------------------------------------------------

_SUFFIXES = (
    "isations",
    "izations",
    "isation",
    "ization",
    "ations",
    "ation",
    "ments",
    "ment",
    "ingly",
    "ness",
    "ing",
    "ies",
    "ied",
    "ion",
    "ive",
    "ed",
    "es",
    "ly",
    "er",
    "s",
    "e",
    "y",
)


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A crude stem for comparing words of the same root ("treatment" ~ "treated" ~ "treat")."""
    word = word.lower().replace("’", "'")
    if word.endswith("'s"):
        word = word[:-2]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word
