"""Finding an entity whose name a rephrasing reorders or inflects ("complete traumatic amputation
of a structure" for "Amputated structure, traumatic, complete"), for the rephrasing validator."""

from __future__ import annotations

import re

from quizbot.generate.rephrase.lexicon import looks_medical
from quizbot.generate.rephrase.names import name_variants
from quizbot.generate.wording import FUNCTION_WORDS, stem

__all__ = [
    "TOKEN",
    "acronym_of",
    "adjective_forms",
    "foreign_looking",
    "loose_span",
    "loose_span_over",
    "name_forms",
    "noun_forms",
    "same_root",
    "same_root_any",
]

TOKEN = re.compile(r"[^\W_][\w'’-]*")
LOOSE_SLACK = 4  # words a loose mention may hold besides the entity's own


# Words of totality a rewording swaps freely inside a name ("total vulvar amputation" for
# "amputation of entire vulva").
_TOTAL = frozenset(
    ["entire", "entirely", "total", "totally", "whole", "complete", "completely", "full", "fully"]
)
# Endings that make a noun its adjective ("vulva" -> "vulvar", "cortex" -> "cortical" is left to
# the six-letter rule).
_ADJECTIVAL = ("r", "l", "ar", "al", "ic", "ous", "ary")


def same_root(one: str, two: str) -> bool:
    """Two lower-cased words of one root: the same stem, the same first six letters
    ("amputated" ~ "amputation", "morphological" ~ "morphology"), a noun and its adjective
    ("vulva" ~ "vulvar") or two words of totality ("entire" ~ "total"); numbers must be equal.

    A hyphenated compound is of a word's root only part by part: "triple-positive" is not
    "triple-negative" and "granulocyte-macrophage" not "granulocyte", though each shares the
    first six letters; "post-partum" is "postpartum"."""
    if one == two or stem(one) == stem(two):
        return True
    if "-" in one or "-" in two:
        ones, twos = one.split("-"), two.split("-")
        if len(ones) != len(twos):
            return one.replace("-", "") == two.replace("-", "")
        return all(_same_word_root(a, b) for a, b in zip(ones, twos, strict=True))
    return _same_word_root(one, two)


def _same_word_root(one: str, two: str) -> bool:
    """:func:`same_root` of two words without hyphens."""
    if one == two or stem(one) == stem(two):
        return True
    if one in _TOTAL and two in _TOTAL:
        return True
    short, long = sorted((one, two), key=len)
    if len(short) >= 4 and long.startswith(short) and long[len(short) :] in _ADJECTIVAL:
        return True
    if _NUMBER.findall(one) != _NUMBER.findall(two):
        return False  # "TP53BP1" is not "TP53BP2", "type 1" not "type 2"
    return len(one) >= 6 and len(two) >= 6 and one[:6] == two[:6] and not one[:1].isdigit()


_NUMBER = re.compile(r"\d+")


# A one-word name's adjective: "fibrosis" -> "fibrotic", "apoptosis" -> "apoptotic",
# "paralysis" -> "paralytic", "anaemia" -> "anaemic", "ischemia" -> "ischemic", "endometrium" ->
# "endometrial"; a noun of quality in -ity names the state of its adjective: "obesity" ->
# "obese", "sterility" -> "sterile", "rigidity" -> "rigid", "spasticity" -> "spastic",
# "tortuosity" -> "tortuous" (a form that is no word never occurs in a sentence).
_ADJECTIVE_OF: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sis", ("tic",)),
    ("ia", ("ic",)),
    ("ium", ("ial",)),
    ("osity", ("ous",)),
    ("ity", ("e", "")),
    ("sion", ("sive",)),  # "hypertension" -> "hypertensive", "depression" -> "depressive"
)
# An adjective's noun, the other way round: "apoptotic" -> "apoptosis", "glycolytic" ->
# "glycolysis", "anaemic" -> "anaemia", "endometrial" -> "endometrium"
_NOUN_OF: tuple[tuple[str, str], ...] = (("tic", "sis"), ("ial", "ium"), ("ic", "ia"))


def adjective_forms(name: str) -> tuple[str, ...]:
    """The adjectives of a one-word name of at least six letters by its ending (see
    ``_ADJECTIVE_OF``), lower-cased, or nothing."""
    word = name.strip().lower()
    if " " in word or len(word) < 6 or not word.isalpha():
        return ()
    for end, adjectives in _ADJECTIVE_OF:
        if word.endswith(end):  # the first ending that fits ("-osity" before "-ity")
            return tuple(word[: -len(end)] + adj for adj in adjectives)
    return ()


def noun_forms(name: str) -> tuple[str, ...]:
    """The noun of a one-word adjective of at least six letters by its ending (see
    ``_NOUN_OF``), lower-cased, or nothing: "Apoptotic" (of "Apoptotic Process") ->
    "apoptosis"."""
    word = name.strip().lower()
    if " " in word or len(word) < 6 or not word.isalpha():
        return ()
    for end, noun in _NOUN_OF:
        if word.endswith(end):
            return (word[: -len(end)] + noun,)
    return ()


def name_forms(name: str) -> tuple[str, ...]:
    """Other ways to write ``name``: its prose variants (:func:`.names.name_variants`) and, for
    each one-word form, its adjective ("anaemic" for "Anemia", "obese" for "Obesity") or the
    noun of an adjective ("apoptosis" for "Apoptotic Process")."""
    variants = name_variants(name)
    found = list(variants)
    for form in (name, *variants):
        found += adjective_forms(form) + noun_forms(form)
    return tuple(dict.fromkeys(found))


def loose_span(text: str, name: str) -> tuple[int, int] | None:
    """Where ``text`` names ``name`` with its words reordered or inflected, within a few words
    of one another ("complete traumatic amputation of a structure" for "Amputated structure,
    traumatic, complete", "binding to DNA" for "DNA Binding"): every word of the name but its
    function words, each matched once, outside the text's masked entities. None if not found."""
    words = [w.lower() for w in TOKEN.findall(name) if w.lower() not in FUNCTION_WORDS]
    if len(set(words)) < 2:
        return None
    # a word the name repeats may be said once ("intraductal and lobular carcinoma" for
    # "intraductal carcinoma and lobular carcinoma"); a hyphenated word of the name is matched
    # part by part ("sequence specific" for "Sequence-Specific")
    parts = (p for w in words for p in w.split("-") if p)
    wanted = list(dict.fromkeys(p for p in parts if p not in FUNCTION_WORDS))
    tokens = [(m.start(), m.end(), m.group(0).lower()) for m in TOKEN.finditer(text)]
    width = len(wanted) + LOOSE_SLACK
    best: tuple[int, int] | None = None
    for first in range(len(tokens)):
        left = list(wanted)
        last = None
        for index in range(first, min(len(tokens), first + width)):
            hits = _hits(left, tokens[index][2])
            if not hits:
                continue
            if index == first or last is not None:
                for hit in hits:
                    left.remove(hit)
                last = index
            if not left:
                break
        if (
            last is not None
            and not left
            and _hits(wanted, tokens[first][2])
            and not any(
                foreign_looking(tokens[i][2], text[tokens[i][0]])
                and not _hits(wanted, tokens[i][2])
                for i in range(first, last + 1)
            )
        ):
            span = (tokens[first][0], tokens[last][1])
            if best is None or span[1] - span[0] < best[1] - best[0]:
                best = span
    return best


def _hits(left: list[str], word: str) -> list[str]:
    """The words of ``left`` that ``word`` matches: one of its root, or one per part of a
    hyphenated compound when every part matches ("sequence-specific"); none when a part is
    not the name's ("granulocyte-macrophage" names another factor)."""
    hit = next((w for w in left if same_root(w, word)), None)
    if hit is not None:
        return [hit]
    found: list[str] = []
    for part in (p for p in word.split("-") if p and p not in FUNCTION_WORDS):
        match = next((w for w in left if w not in found and same_root(w, part)), None)
        if match is None:
            return []
        found.append(match)
    return found if "-" in word else []


def acronym_of(word: str, name: str) -> bool:
    """Whether ``word`` as written is the acronym of ``name``: the capital initials of its words
    and hyphenated parts, with or without its function words ("PTLD" for "Post-Transplant
    Lymphoproliferative Disorder", "G-CSF" for "Granulocyte Colony-Stimulating Factor"; not
    "GM-CSF")."""
    letters = word.replace("-", "")
    if len(letters) < 2 or not letters.isalpha() or not letters.isupper():
        return False
    parts = [p for w in TOKEN.findall(name) for p in w.split("-") if p]
    every = "".join(p[0] for p in parts).upper()
    content = "".join(p[0] for p in parts if p.lower() not in FUNCTION_WORDS).upper()
    return letters in (every, content)


def foreign_looking(word: str, initial: str) -> bool:
    """A capitalised or medical-looking word (``word`` lower-cased, ``initial`` as written)."""
    return initial.isupper() or looks_medical(word)


def same_root_any(words: list[str], word: str) -> bool:
    """Whether ``word`` is of the root of any of ``words``."""
    return any(same_root(w, word) for w in words)


def loose_span_over(
    text: str, masked: str, name: str, others: list[tuple[int, int]]
) -> tuple[tuple[int, int], list[tuple[int, int]]] | None:
    """:func:`loose_span` for a name that holds another entity's name ("ductal carcinoma of the
    breast" for "Carcinoma, Ductal, Breast" beside the entity "Breast"): the mentions in
    ``others`` (spans in ``text``, blanked out in ``masked``) whose words all belong to ``name``
    are read again, and the span is returned with the mentions it took in. None if not found."""
    words = [w.lower() for w in TOKEN.findall(name)]
    opened = masked
    for start, stop in others:
        mention = [w.lower() for w in TOKEN.findall(text[start:stop])]
        if mention and all(same_root_any(words, w) for w in mention):
            opened = opened[:start] + text[start:stop] + opened[stop:]
    if opened == masked:
        return None
    span = loose_span(opened, name)
    if span is None:
        return None
    return span, [o for o in others if span[0] <= o[0] and o[1] <= span[1]]
