"""Three ways English rewrites a name that no listed form covers, for the rephrasing validator.

* An acronym in the name spelled out: "Adenomatous Polyposis Coli gene" for "APC Gene",
  "Chronic Obstructive Pulmonary Disease" for "COPD". The words of the spelling must be
  capitalised and their initials (hyphenated parts counted apart, "of"/"and"/"the" skipped)
  must spell the acronym in order, so that ordinary words ("very high levels") never pass.
* An adverb and its participle folded into an adjective or moved after the noun: "surgical
  menopause" or "menopause produced through surgical means" for "Surgically Induced
  Menopause", "a genetic trait" for "Genetically Determined Trait". The adverb's adjective must
  be there; only the participle may be left out or reworded.
* A name qualified by the scheme that classifies it, said in a clause: "colon adenocarcinoma,
  which is classified according to the Dukes staging system" for "Colon Adenocarcinoma by Dukes
  Stage".

:func:`reworded_span` finds any of them in a sentence; it is tried only when no name, listed
form or loose reordering of the name is found.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

__all__ = ["reworded_span"]

_ACRONYM = re.compile(r"[A-Z]{3,6}")
_JOINER = r"(?:\s+(?:of|and|the|de|von|van)\b)?(?:\s+|-)"
_PARTICIPLE = re.compile(r"[a-z]{3,}(?:ed|en)", re.IGNORECASE)
# What the adjective of a moved adverb goes with: "through surgical means", "in a surgical way"
_MANNER = (
    r"(?:through|by|via|in)\s+(?:an?\s+)?{adj}\s+"
    r"(?:means|manner|way|ways|route|routes|mechanisms?|process(?:es)?)"
)


def _word(word: str) -> str:
    """A word of the name, case-insensitive, with an optional plural ending."""
    return re.escape(word) + ("(?:s|es)?" if word[-1:].isalpha() else "")


def _spelled(acronym: str) -> str:
    """Capitalised words (or hyphenated parts) whose initials spell ``acronym``."""
    return _JOINER.join(f"(?-i:{letter})[a-z]+" for letter in acronym)


def _adjectives(adverb: str) -> str:
    """The adjectives of an adverb in -ly: "actively" -> "active", "surgically" ->
    "surgical", "genetically" -> "genetical" or "genetic", "heavily" -> "heavy"."""
    base = adverb[:-2]
    forms = [base]
    if base.endswith("ical"):
        forms.append(base[:-2])
    if base.endswith("i"):  # "heavily" -> "heavy"
        forms.append(base[:-1] + "y")
    return "(?:" + "|".join(map(re.escape, forms)) + ")"


@lru_cache(maxsize=4096)
def _patterns(name: str) -> tuple[re.Pattern[str], ...]:
    words = [w.strip(",") for w in name.split() if w.strip(",")]
    found: list[str] = []
    if any(_ACRONYM.fullmatch(w) for w in words):
        found.append(r"\s+".join(_spelled(w) if _ACRONYM.fullmatch(w) else _word(w) for w in words))
    for i, (adverb, participle) in enumerate(itertools.pairwise(words)):
        if not (
            len(adverb) > 5
            and adverb.lower().endswith("ly")
            and _PARTICIPLE.fullmatch(participle)
            and i + 2 < len(words)
        ):
            continue
        before = [_word(w) for w in words[:i]]
        after = [_word(w) for w in words[i + 2 :]]
        adjective = _adjectives(adverb.lower())
        found.append(r"\s+".join([*before, adjective, *after]))  # "surgical menopause"
        manner = _MANNER.format(adj=adjective)
        found.append(r"\s+".join([*before, *after, r"[a-z]+(?:ed|en)", manner]))
    found += _classified(words)
    return tuple(re.compile(r"(?<![\w-])" + p + r"(?![\w-])", re.IGNORECASE) for p in found)


# A name qualified by the scheme that classifies it ("Colon Adenocarcinoma by Dukes Stage") may
# say so in a clause: "colon adenocarcinoma, as classified by the Dukes staging system", "...,
# which is staged according to Dukes stage"; every word of both parts stays.
_SCHEMES = frozenset(["stage", "grade", "classification", "criteria", "system", "score"])
_CLASSIFIED = (
    r",?\s+(?:(?:which|that)\s+(?:is|are|can\s+be|may\s+be)\s+|as\s+)?"
    r"(?:classified|staged|graded|categori[sz]ed|defined)\s+"
    r"(?:by|according\s+to|under|using|per)\s+(?:the\s+)?"
)


def _classified(words: list[str]) -> list[str]:
    """The clause form of a name "<A> by <scheme>" (see ``_CLASSIFIED``), or nothing."""
    lower = [w.lower() for w in words]
    if "by" not in lower[1:-1] or lower[-1] not in _SCHEMES:
        return []
    cut = lower.index("by", 1)
    scheme = [_word(w) for w in words[cut + 1 : -1]]
    last = _word(words[-1])
    if lower[-1] in ("stage", "grade"):  # "Dukes stage" = "the Dukes staging system"
        root = re.escape(lower[-1][:-1])
        last = rf"(?:{last}|{root}ing(?:\s+(?:system|scheme|criteria))?)"
    return [r"\s+".join(_word(w) for w in words[:cut]) + _CLASSIFIED + r"\s+".join([*scheme, last])]


def reworded_span(text: str, name: str) -> tuple[int, int] | None:
    """Where ``text`` names ``name`` with an acronym spelled out, an adverb and participle
    reworded or its classifying scheme in a clause (see the module docstring); None if not."""
    for pattern in _patterns(name):
        match = pattern.search(text)
        if match is not None:
            return match.span()
    return None
