"""Voice for the rephrasing validator: which predicate family relates two entities, and which way.

:func:`predicate_reading` reads the first predicate phrase between the two entities as (family,
flip). ``flip`` is 0 when the entity *before* the phrase plays the family's first role (the drug
in "treats", the disease in "presents with", the earlier event in "precedes") and 1 when it
plays the second ("is treated with", "is a feature of", "occurs after"). Symmetric families
(association) have no roles. Re-exported by :mod:`quizbot.generate.wording`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SYMMETRIC_FAMILIES", "PredicateReading", "predicate_reading"]


@dataclass(frozen=True, slots=True)
class PredicateReading:
    """How the words between the two entities relate them (see the module docstring)."""

    family: str
    flip: int  # 0: the first entity plays the family's first role; 1: the second role
    symmetric: bool
    phrase: str


_BE = r"\b(?:is|are|was|were|be|been|being|get|gets|got)\s+(?:(?:not|never|also|often|\w+ly)\s+)*"
_ADVERB = r"(?:\w+ly\s+)?"  # "characterized morphologically by", "caused mainly by"
# (pattern, family, flip); symmetric families use flip 0. Searched together; the leftmost wins.
_VOICE: tuple[tuple[str, str, int], ...] = (
    # treatment: the therapy is the first role
    (
        _BE
        + r"(?:treat|manag|cur|controll?)(?:ed|able)\s+"
        + _ADVERB
        + r"(?:with|by|using|through|via)\b",
        "treat",
        1,
    ),
    (r"\b(?:treatment|therapy)\s+(?:with|using|by)\b", "treat", 1),
    (r"\b(?:benefit(?:s|ed)?|respond(?:s|ed)?)\s+(?:from|to)\b", "treat", 1),
    (r"\b(?:treat(?:s|ing)?|manag(?:e|es|ing)|cur(?:e|es|ing))\b", "treat", 0),
    (r"\b(?:giv(?:e|en|ing)|administer(?:ed|ing)?|prescrib(?:e|ed|ing))\b", "treat", 0),
    (r"\b(?:in)?effective\s+(?:for|against|in)\b", "treat", 0),
    (
        r"\b(?:treatment|therapy|management|remedy|intervention|procedure|drug|medication)"
        r"\s+(?:for|of|in)\b",
        "treat",
        0,
    ),
    # prevention: the preventive agent first
    (
        _BE
        + r"(?:prevent(?:ed|able)|averted|protected)\s+"
        + _ADVERB
        + r"(?:with|by|using|through|via)\b",
        "prevent",
        1,
    ),
    (r"\b(?:prevent(?:s|ing)?|protect(?:s|ing)?\s+against)\b", "prevent", 0),
    (r"\b(?:prevention|prophylaxis)\s+(?:of|against)\b", "prevent", 0),
    # causation: the cause first
    (_BE + r"(?:caused|produced|induced|triggered)\s+" + _ADVERB + r"(?:by|with)\b", "cause", 1),
    (r"\b(?:result(?:s|ed)?\s+from|due\s+to|aris(?:e|es|ing)\s+from)\b", "cause", 1),
    # a bare passive participle ("[B], caused by [A]"; the prototypes' "it may caused by"),
    # "attributed to", "because (of)": the cause last
    (r"\b(?:caused|induced|triggered|provoked)\s+(?:\w+ly\s+)?by\b", "cause", 1),
    (
        r"\b(?:attribut(?:ed|able)|ascribed|owing|secondary)\s+to\b|\bbecause(?:\s+of)?\b",
        "cause",
        1,
    ),
    (r"\b(?:bring|brings|brought|bringing)\s+about\b", "cause", 0),
    # "[B] comes from [A]": the cause last; "[A] is / lies behind [B]": the cause first
    (r"\b(?:come|comes|came|coming)\s+(?:\w+ly\s+)?from\b", "cause", 1),
    (_BE + r"behind\b|\b(?:lie|lies|lay|lying)\s+behind\b", "cause", 0),
    (
        r"\b(?:caus(?:e|es|ing)|produc(?:e|es|ing)|induc(?:e|es|ing)|trigger(?:s|ing)?"
        r"|lead(?:s|ing)?\s+to|result(?:s|ed)?\s+in)\b",
        "cause",
        0,
    ),
    (r"\b(?:cause|trigger|reason|explanation)s?\s+(?:of|for|behind)\b", "cause", 0),
    # "[X] is responsible for [Y]": the cause first ("responsible for encoding [Y]" is read by its
    # verb); "[Y]: the cause may be [X]": the cause last
    (r"\b(?:responsible|accountable)\s+for\b(?!\s+\w+ing\b)", "cause", 0),
    (
        r"\b(?:the|a|an|its|their|one)\s+(?:\w+\s+)?(?:cause|reason|explanation|trigger)s?\s+"
        r"(?:(?:may|might|can|could|would|will)\s+(?:also\s+)?be|is|are|was|were)\b",
        "cause",
        1,
    ),
    (r"\b(?:has|have|having)\s+(?:the|an?)\s+(?:\w+\s+)?effects?\b", "cause", 0),
    # presentation: the disease first
    (_BE + r"(?:characteri[sz]ed|marked|accompanied)\s+" + _ADVERB + r"by\b", "feature", 0),
    (
        r"\b(?:feature|sign|symptom|manifestation|finding|characteristic|hallmark)s?"
        r"(?:\s+(?:\w+ly\s+)?(?:seen|found|observed|encountered|present))?\s+(?:of|in)\b",
        "feature",
        1,
    ),
    (
        r"\b(?:seen|found|observed|present|encountered|detected|occur(?:s|ring)?|appear(?:s|ing)?)"
        r"\s+in\b",
        "feature",
        1,
    ),
    (r"\b(?:characteri[sz]es?|accompan(?:y|ies))\b", "feature", 1),
    (
        r"\b(?:present(?:s|ing)?\s+with|manifest(?:s|ing)?\s+with|features?|exhibit(?:s|ing)?"
        r"|harbou?r(?:s|ing)?|carr(?:y|ies|ying))\b(?!\s+(?:that|which|of|in)\b)",
        "feature",
        0,
    ),
    # sites and processes: the disease / process first
    (_BE + r"(?:affected|involved)\s+(?:by|in|with)\b", "affect", 1),
    # "[B] remains unaffected when / by [A]" = "[A] does not affect [B]"
    (r"\bunaffected\s+(?:by|when|if|as|with)\b", "affect", 1),
    (
        r"\b(?:plays?|playing|has|have)\s+(?:a|an|the|no)?\s*(?:\w+\s+)?role\s+in\b"
        r"|\b(?:participat(?:e|es|ing)|tak(?:e|es|ing)\s+part)\s+in\b"
        r"|\bcontribut(?:e|es|ing)\s+to\b|\bfunction(?:s|ing)?\s+(?:in|within)\b",
        "affect",
        1,
    ),
    (r"\b(?:affect(?:s|ing)?|involv(?:e|es|ing))\b|\b(?:is|are)\s+where\b", "affect", 0),
    # "[A] is the site of [B]'s function" = "[A] is where [B] functions"
    (
        r"\b(?:is|are)\s+(?:not\s+)?(?:the|a|an)\s+(?:\w+\s+)?(?:site|place|location)s?\s+"
        r"(?:of|for)\b(?!\s+origin)",
        "affect",
        0,
    ),
    # time order: the earlier event first
    (r"\b(?:preced(?:e|es|ing)|(?:come|comes|occur|occurs|happen|happens)\s+before)\b", "time", 0),
    (_BE + r"followed\s+by\b", "time", 0),
    (_BE + r"preceded\s+by\b", "time", 1),
    (
        r"\b(?:follow(?:s|ing)?|(?:occur|occurs|develop|develops|arise|arises|come|comes|happen"
        r"|happens)\s+after)\b",
        "time",
        1,
    ),
    # mapping: the disease (the thing mapped) first, in both voices ("[disease] is mapped to
    # [gene]", "[disease] maps to [gene]"); "[gene] maps to [disease]" swaps the roles
    (_BE + r"mapped\s+(?:on)?to\b|\bmap(?:s|ping)?\s+(?:on)?to\b", "map", 0),
    # encoding: the gene first
    (_BE + r"(?:encoded|coded\s+for)\s+by\b", "encode", 1),
    (r"\b(?:encod(?:e|es|ing)|codes?\s+for)\b", "encode", 0),
    # "[gene] serves as the (genetic) blueprint for [product]"
    (r"\b(?:blueprint|template|instructions)s?\s+(?:for|of)\b", "encode", 0),
    # inheritance: the disease first
    (
        r"\b(?:mode|pattern|form|type)s?\s+of\s+inheritance\s+(?:for|of|in)\b"
        r"|\binheritance\s+(?:mode|pattern)s?\s+(?:for|of|in)\b",
        "inherit",
        1,
    ),
    (
        r"\b(?:passed|handed)\s+(?:down|on)\s+(?:through|by|via|in|as)\b"
        r"|\b(?:inherited|transmitted)\s+(?:through|in|via|by|as)\b",
        "inherit",
        0,
    ),
    # origin: the disease first, the cell / tissue / site it starts from second
    (
        r"\b(?:origin(?:ate|ates|ated|ating)\s+(?:in|from|within)"
        r"|(?:stem(?:s|med|ming)?|deriv(?:e|es|ed|ing))\s+from)\b",
        "origin",
        0,
    ),
    (
        r"\b(?:(?:site|tissue|cell|organ|place|point)s?\s+of\s+)?origins?\s+(?:of|for)\b",
        "origin",
        1,
    ),
    # association: symmetric
    (
        r"\b(?:associated|linked|related|connected|correlated|tied)\s+(?:with|to)\b"
        r"|\b(?:together|alongside)\b"
        r"|\b(?:association|link|relation|relationship|connection|correlation)s?\s+(?:with|to)\b",
        "assoc",
        0,
    ),
)
_VOICE_RE = tuple((re.compile(p, re.IGNORECASE), f, flip) for p, f, flip in _VOICE)
SYMMETRIC_FAMILIES = frozenset({"assoc"})


# "X has Y as one of its features": the phrase between is a bare "has", the predicate follows.
_BARE_HAS = re.compile(r"^\s*(?:has|have|having|shows?|showing)\s+(?:(?:a|an|the)\s+)?$", re.I)
_AS_FEATURE = re.compile(
    r"^\s*as\s+(?:one\s+of\s+)?(?:its|their|a|an|the)\s+(?:[\w-]+\s+){0,2}"
    r"(?:feature|sign|symptom|manifestation|finding|characteristic)s?\b",
    re.IGNORECASE,
)


def predicate_reading(between: str, after: str = "") -> PredicateReading | None:
    """The first predicate phrase of ``between`` (the text between two entities), or None.

    ``after`` is the text after the second entity: "X has Y as one of its features" reads as
    the feature family with X first, like "X presents with Y".
    """
    if _BARE_HAS.match(between) and (found := _AS_FEATURE.match(after)):
        return PredicateReading("feature", 0, False, between.strip() + " ... " + found.group(0))
    best: tuple[int, PredicateReading] | None = None
    for pattern, family, flip in _VOICE_RE:
        match = pattern.search(between)
        if match is not None and (best is None or match.start() < best[0]):
            reading = PredicateReading(family, flip, family in SYMMETRIC_FAMILIES, match.group(0))
            best = (match.start(), reading)
    return best[1] if best is not None else None
