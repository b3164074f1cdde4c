"""Second readings of an open recall entry that names no gold entity as written (used by
:func:`quizbot.evaluation.recall.match`; facts of clinical English, no KB).

Qualifiers (:func:`without_qualifier`)
    A trailing qualifier says when, why or how, not what: "IV fluids in crisis", "opioids for
    rescue", "TFTs to exclude other causes", "painless vaginal bleeding in third trimester".
    The entry is read again without it (cut at the first "in", "for", "with", "to", "during",
    "after", "if", "when" or "on" that follows at least one word).

Parenthetical notes (:func:`note_parts`)
    What a parenthesis adds to an entry: the members of a regimen ("FLOT (fluorouracil,
    oxaliplatin, docetaxel)"), the part meant ("tendons (xanthomata, Achilles)"). The list
    reader drops it from the entry's name; the scorer reads its parts, and the entry with the
    note's words, when the entry alone names no gold.

Age groups (:func:`age_range`, :func:`ages_recalled`)
    Ages written as numbers or life stages: "children under 5", "adults over 50",
    "25-45 years", "in their 40s", "women of reproductive age", "postmenopausal women",
    "school-age children". The span of years they name recalls the gold age groups it covers:
    more than half of the group's own span (:data:`AGE_BANDS`), or at least half of the named
    span falling in the group.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from quizbot.evaluation.recall_terms import _SPLIT_RE
from quizbot.kb.knowledge import entity_key

__all__ = ["AGE_BANDS", "age_range", "ages_recalled", "note_parts", "without_qualifier"]

_QUALIFIER_RE = re.compile(
    r"^(?P<head>\S.*?)\s+(?:in|for|with|to|during|after|if|when|on)\s+\S.*$", re.IGNORECASE
)


def without_qualifier(entry: str) -> str | None:
    """``entry`` without its trailing qualifier, or ``None`` when it has none."""
    found = _QUALIFIER_RE.match(entry.strip())
    return found.group("head") if found else None


_LEADING_RE = re.compile(
    r"^(?:e\.?g\.?|i\.?e\.?|such\s+as|including|especially|mainly|mostly)\b[\s,:.]*",
    re.IGNORECASE,
)


_CIRCUMSTANCE_RE = re.compile(
    r"^(?:in|for|with|without|to|during|after|before|if|when|on|at|by|via|from|as|not)\b",
    re.IGNORECASE,
)


def note_parts(note: str) -> list[str]:
    """The listed parts of a parenthetical note ("e.g. fluorouracil, oxaliplatin" gives both).
    A part that says when or with what ("with isoniazid", "in crisis") names nothing the entry
    is: left out, so "pyridoxine (with isoniazid)" never recalls isoniazid."""
    parts = (_LEADING_RE.sub("", p.strip()).strip(" .") for p in _SPLIT_RE.split(note))
    return [p for p in parts if p and not _CIRCUMSTANCE_RE.match(p)]


# Years of age each of clinical-core's age groups spans, [start, end).
AGE_BANDS: dict[str, tuple[float, float]] = {
    "infants": (0, 1),
    "children": (1, 12),
    "adolescents": (12, 18),
    "young adults": (18, 40),
    "middle-aged adults": (40, 65),
    "older adults": (65, 120),
}
_BANDS = {entity_key(name): band for name, band in AGE_BANDS.items()}
_OLDEST = 120.0
_STAGES: tuple[tuple[re.Pattern[str], tuple[float, float]], ...] = (
    (re.compile(r"\b(?:reproductive|child[\s-]?bearing|fertile)\s+(?:age|years)\b"), (15, 50)),
    (re.compile(r"\bpost[\s-]?menopaus"), (50, _OLDEST)),
    (re.compile(r"\bpre[\s-]?menopaus"), (15, 50)),
    (re.compile(r"\bperi[\s-]?menopaus"), (45, 55)),
    (re.compile(r"\bpre[\s-]?school"), (1, 5)),
    (re.compile(r"\bschool[\s-]?age"), (5, 12)),
    (re.compile(r"\btoddlers?\b"), (1, 3)),
)
_NUMBER = r"(\d{1,3})(?!\d)\s*(months?|mo|years?|yrs?|y)?"
_UNDER_RE = re.compile(r"\b(?:under|below|younger\s+than|less\s+than|up\s+to)[\s-]+" + _NUMBER)
_LESS_RE = re.compile(r"(?:<|≤|<=)\s*" + _NUMBER)
_OVER_RE = re.compile(
    r"(?:\b(?:over|above|older\s+than|more\s+than|aged)[\s-]+|>=?\s*|≥\s*)"
    + _NUMBER
    + r"(?!\s*[-–])"
)
_AND_OVER_RE = re.compile(r"\b(\d{1,3})\s*(?:years?\s+)?(?:and|or)\s+(?:over|older|above)\b")
_PLUS_RE = re.compile(r"\b(\d{1,3})\s*\+")
_SPAN_RE = re.compile(r"\b(\d{1,3})\s*(?:-|–|to)\s*" + _NUMBER)
_DECADE_RE = re.compile(r"\b([1-9]0)s\b")


def _years(number: str, unit: str | None) -> float:
    value = float(number)
    return value / 12 if unit and unit.startswith("mo") else value


def age_range(text: str) -> tuple[float, float] | None:
    """The span of years (start, end) an entry names, or ``None`` when it names no age."""
    low, high = _OLDEST, 0.0
    lowered = text.lower()
    spans: list[tuple[float, float]] = [span for rule, span in _STAGES if rule.search(lowered)]
    for found in _SPAN_RE.finditer(lowered):
        unit = found.group(3)
        spans.append((_years(found.group(1), unit), _years(found.group(2), unit) + 1))
    for rule in (_UNDER_RE, _LESS_RE):
        spans.extend((0.0, _years(m.group(1), m.group(2))) for m in rule.finditer(lowered))
    for found in _OVER_RE.finditer(lowered):
        spans.append((_years(found.group(1), found.group(2)), _OLDEST))
    for rule in (_PLUS_RE, _AND_OVER_RE):
        spans.extend((float(m.group(1)), _OLDEST) for m in rule.finditer(lowered))
    spans.extend((float(m.group(1)), float(m.group(1)) + 10) for m in _DECADE_RE.finditer(lowered))
    for start, end in spans:
        low, high = min(low, start), max(high, end)
    return (low, high) if spans and high > low else None


def ages_recalled(entry: str, golds: Sequence[str]) -> list[str]:
    """The gold age groups the ages ``entry`` names cover (see the module docstring)."""
    span = age_range(entry)
    if span is None:
        return []
    start, end = span
    found: list[str] = []
    for gold in golds:
        band = _BANDS.get(entity_key(gold))
        if band is None:
            continue
        overlap = min(end, band[1]) - max(start, band[0])
        if overlap > 0 and (overlap > (band[1] - band[0]) / 2 or overlap >= (end - start) / 2):
            found.append(gold)
    return found
