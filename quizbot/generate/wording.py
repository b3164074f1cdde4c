"""The vocabulary behind the rephrasing validator: entity forms, predicates, voice and antonyms.

Everything here is lexical and curated for the relations of our prototypes (treatment,
prevention, causation, presentation, sites, association, genes, inheritance, time order,
encoding). :mod:`quizbot.generate.rephrase` uses it to decide whether a rewording keeps a
statement's meaning. The lists are deliberately small and readable; a word they do not know is
treated as new content, so the validator stays conservative.

Entity forms (:func:`entity_regex`): an entity matches whatever its case, with or without
articles between or before its words, in its singular or plural (-s, -es, -ies and the Latin and
Greek plurals common in medicine: -itis/-itides, -us/-i, -a/-ae, -is/-es, -ex|-ix/-ices,
-um/-a) and under any listed synonym. Words in capitals or with digits (FBN1, AIDS) are not
inflected.

Voice (:func:`predicate_reading`): the first predicate phrase between the two entities is read
as (family, flip). ``flip`` is 0 when the entity *before* the phrase plays the family's first
role (the drug in "treats", the disease in "presents with", the earlier event in "precedes") and
1 when it plays the second ("is treated with", "is a feature of", "occurs after"). Symmetric
families (association) have no roles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from quizbot.generate.opposites import lexicon_clash

__all__ = [
    "ANTONYMS",
    "CHANGING_HEADS",
    "FAMILIES",
    "FUNCTION_WORDS",
    "NEUTRAL_VERBS",
    "NEUTRAL_WORDS",
    "SYMMETRIC_FAMILIES",
    "TYPE_NOUNS",
    "PredicateReading",
    "antonym_clash",
    "entity_regex",
    "families_of",
    "family_allowed",
    "is_inheritance_mode",
    "predicate_reading",
    "same_side",
    "stem",
    "word_forms",
]

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
# Words
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


FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "with",
        "by",
        "from",
        "into",
        "onto",
        "as",
        "and",
        "or",
        "but",
        "if",
        "than",
        "then",
        "that",
        "this",
        "these",
        "those",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "when",
        "where",
        "while",
        "it",
        "its",
        "it's",
        "itself",
        "they",
        "them",
        "their",
        "there",
        "here",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "done",
        "doing",
        "has",
        "have",
        "had",
        "having",
        "can",
        "could",
        "may",
        "might",
        "will",
        "would",
        "shall",
        "should",
        "also",
        "too",
        "so",
        "such",
        "any",
        "some",
        "one",
        "ones",
        "both",
        "either",
        "each",
        "about",
        "over",
        "under",
        "within",
        "through",
        "via",
        "using",
        "per",
        "after",
        "before",
        "up",
        "down",
        "out",
        "off",
        "upon",
        "among",
        "amongst",
        "alongside",
        "against",
        "toward",
        "towards",
        "during",
        "once",
        "just",
        "very",
        "more",
        "less",
    ]
)

# Neutral verbs: a verb may stand right before an entity without extending it.
NEUTRAL_VERBS = frozenset(
    stem(w)
    for w in [
        "develop",
        "develops",
        "developed",
        "developing",
        "go",
        "goes",
        "going",
        "come",
        "comes",
        "came",
        "become",
        "becomes",
        "became",
        "get",
        "gets",
        "got",
        "take",
        "takes",
        "taking",
        "taken",
        "use",
        "used",
        "uses",
        "using",
        "employ",
        "employed",
        "be",
        "given",
        "give",
        "giving",
        "receive",
        "receives",
        "received",
        "receiving",
        "took",
        "make",
        "makes",
        "made",
        "making",
        "seen",
        "observed",
        "noted",
        "found",
        "detected",
        "identified",
        "include",
        "includes",
        "included",
        "considered",
    ]
)

# Words a faithful rewording may bring in whatever the predicate: people, generic nouns of
# the entity types, neutral verbs and connectives. Stems, compared with :func:`stem`.
NEUTRAL_WORDS = NEUTRAL_VERBS | frozenset(
    stem(w)
    for w in [
        "patient",
        "patients",
        "person",
        "people",
        "individual",
        "individuals",
        "someone",
        "somebody",
        "subject",
        "case",
        "cases",
        "clinical",
        "clinically",
        "medical",
        "medically",
        "diagnosis",
        "diagnoses",
        "disease",
        "diseases",
        "disorder",
        "condition",
        "conditions",
        "illness",
        "entity",
        "agent",
        "drug",
        "drugs",
        "medication",
        "medications",
        "medicine",
        "medicines",
        "substance",
        "compound",
        "gene",
        "genes",
        "protein",
        "product",
        "process",
        "biological",
        "physiological",
        "physiologic",
        "cell",
        "cells",
        "cellular",
        "sample",
        "finding",
        "findings",
        "feature",
        "features",
        "type",
        "kind",
        "form",
        "structure",
        "site",
        "sites",
        "organ",
        "anatomical",
        "anatomic",
        "morphology",
        "morphological",
        "phenotype",
        "event",
        "events",
        "effect",
        "effects",
        "abnormality",
        "molecular",
        "variant",
        "variants",
        "mutation",
        "mutations",
        "pathogenic",
        "genetic",
        "occur",
        "occurs",
        "occurred",
        "occurring",
        "appear",
        "appears",
        "appeared",
        "family",
        "families",
        "history",
        "context",
        "setting",
        "setting",
        "situation",
        "instance",
        "example",
        "part",
        "usable",
        "able",
        "known",
        "well",
        "recognised",
        "recognized",
        "established",
        "accepted",
        "acknowledged",
        "regarded",
        "described",
        "documented",
        "reported",
        "listed",
        "counted",
        "possible",
        "potential",
        "option",
        "options",
        "choice",
        "candidate",
        "candidates",
        "suitable",
        "appropriate",
        "fitting",
        "reasonable",
        "valid",
        "acceptable",
        "proper",
        "correct",
        "legitimate",
    ]
)


# Generic type nouns that may stand right before or after an entity without changing it.
TYPE_NOUNS = frozenset(
    stem(w)
    for w in [
        "drug",
        "agent",
        "medication",
        "medicine",
        "gene",
        "product",
        "process",
        "finding",
        "feature",
        "symptom",
        "sign",
        "disease",
        "disorder",
        "condition",
        "site",
        "organ",
        "structure",
        "morphology",
        "phenotype",
        "effect",
        "event",
        "procedure",
        "intervention",
        "therapy",
        "treatment",
        "mode",
        "pattern",
        "abnormality",
        "patient",
        "patients",
        "person",
        "people",
    ]
)

# Nouns that, right after an entity, name something else ("insulin receptor", "warfarin
# toxicity", "influenza vaccine"): the entity is then extended, not restated.
CHANGING_HEADS = frozenset(
    [
        "inhibitor",
        "inhibitors",
        "antagonist",
        "antagonists",
        "agonist",
        "agonists",
        "deficiency",
        "excess",
        "toxicity",
        "resistance",
        "antibody",
        "antibodies",
        "vaccine",
        "vaccines",
        "vaccination",
        "receptor",
        "receptors",
        "level",
        "levels",
        "carrier",
        "carriers",
        "analogue",
        "analogues",
        "overdose",
        "withdrawal",
        "allergy",
        "poisoning",
        "precursor",
        "precursors",
        "fragment",
        "fragments",
    ]
)

# Predicate families, as word stems (prefixes of the lower-cased word). A rewording may not
# bring in a family the original does not use, except where ``_ALSO_ALLOWED`` says so.
FAMILIES: dict[str, tuple[str, ...]] = {
    "treat": (
        "treat",
        "therap",
        "manag",
        "cure",
        "curing",
        "remed",
        "interven",
        "procedur",
        "benefi",
        "prescri",
        "administ",
        "indicat",
        "respond",
        "medicat",
    ),
    "prevent": (
        "prevent",
        "prophyla",
        "protect",
        "avert",
        "ward",
        "vaccinat",
        "immunis",
        "immuniz",
    ),
    "cause": (
        "caus",
        "induc",
        "trigger",
        "provok",
        "produc",
        "lead",
        "result",
        "due",
        "aris",
        "effect",
    ),
    "feature": (
        "present",
        "manifest",
        "featur",
        "sign",
        "symptom",
        "exhibit",
        "show",
        "display",
        "accompan",
        "characteri",
        "marked",
        "hallmark",
        "harbour",
        "harbor",
        "carr",
        "contain",
    ),
    "affect": ("affect", "involv", "role", "particip", "part", "contribut", "spare"),
    "assoc": (
        "associat",
        "link",
        "relat",
        "connect",
        "together",
        "alongside",
        "likel",
        "chance",
        "odds",
        "tied",
        "correlat",
    ),
    "risk": ("risk",),
    "origin": ("origin",),
    "inherit": ("inherit", "passed", "pass", "transmi", "hered", "handed", "mode", "pattern"),
    "encode": ("encod", "code", "coding", "express", "yield"),
    "time": ("preced", "follow", "after", "before", "prior", "previous", "subsequent", "later"),
    "diagnose": (
        "diagnos",
        "differential",
        "explain",
        "account",
        "consistent",
        "support",
        "includ",
        "list",
        "underl",
    ),
}

# New family -> original families that make it acceptable (a weaker or equivalent claim).
_ALSO_ALLOWED: dict[str, frozenset[str]] = {
    "assoc": frozenset({"feature", "affect", "cause", "risk", "diagnose"}),
    "feature": frozenset({"affect", "diagnose"}),
    "affect": frozenset({"feature"}),
    "diagnose": frozenset({"feature"}),
    "risk": frozenset({"prevent"}),
    "prevent": frozenset({"risk"}),
}


def _family_of_word(word: str) -> str | None:
    lower = word.lower()
    for family, prefixes in FAMILIES.items():
        if lower.startswith(prefixes):
            return family
    return None


# Words that are no predicate themselves but, in an original, imply one: a drug "to give" a
# patient is a treatment; a finding "seen in" a disease is one of its features.
_IMPLIES: dict[str, str] = {
    "drug": "treat",
    "drugs": "treat",
    "medication": "treat",
    "medicine": "treat",
    "finding": "feature",
    "findings": "feature",
    "seen": "feature",
    "observed": "feature",
}


def families_of(words: list[str], *, implied: bool = False) -> set[str]:
    """The predicate families the words belong to; with ``implied``, also those their nouns
    imply (for an original: "a suitable drug" makes "treatment" a fair rewording)."""
    found = {family for w in words if (family := _family_of_word(w)) is not None}
    if implied:
        found |= {_IMPLIES[w.lower()] for w in words if w.lower() in _IMPLIES}
    return found


def family_allowed(family: str, original: set[str]) -> bool:
    """Whether a rewording may use ``family`` when the original uses ``original``."""
    return family in original or bool(_ALSO_ALLOWED.get(family, frozenset()) & original)


# --------------------------------------------------------------------------------------------
# Antonyms
# --------------------------------------------------------------------------------------------

# Pairs of opposite sides, each a tuple of word prefixes (lower case).
ANTONYMS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("prevent", "prophyla", "protect", "avert"), ("caus", "induc", "trigger", "provok", "promot")),
    (
        ("increas", "higher", "high", "rais", "elevat", "more", "greater", "enhanc", "boost"),
        ("decreas", "reduc", "lower", "low", "less", "fewer", "diminish", "drop"),
    ),
    (
        ("presence", "present", "appear", "emerg", "onset"),
        ("absen", "disappear", "resol", "loss", "vanish", "clear"),
    ),
    (("associat", "link", "relat"), ("unassociat", "unlink", "unrelat", "dissociat")),
    (("common", "frequent", "typical"), ("rare", "uncommon", "infrequent", "atypical", "unusual")),
    (
        ("treat", "improv", "reliev", "allevia", "benefi", "help", "cure", "heal"),
        ("worsen", "aggravat", "exacerbat", "harm", "damag", "complicat", "dangerous", "toxic"),
    ),
    (("suitab", "appropriat", "safe", "ideal"), ("unsuitab", "inappropriat", "unsafe", "danger")),
    (("excess", "surplus", "overload"), ("deficien", "lack", "shortage", "insufficien")),
    (("gain",), ("loss",)),
    (("activat", "stimulat", "agonis"), ("inhibit", "suppress", "block", "antagonis")),
    (("dominant",), ("recessive",)),
    (("benign",), ("malignant",)),
    (("acute",), ("chronic",)),
    (("affect", "involv"), ("spare", "spari", "protect")),
    (("recognis", "recogniz", "establish", "known"), ("unrecognis", "unrecogniz", "unknown")),
    (("sensitiv",), ("resistan",)),
    (("disease", "illness"), ("recover", "health")),
)
_PREFIX_PAIRS = (
    *(("hyper", "hypo"), ("tachy", "brady"), ("macro", "micro"), ("over", "under")),
    # opposite prefixes of general medical word formation: intracellular / extracellular,
    # endogenous / exogenous, preoperative / postoperative, pro- / anti-inflammatory
    *(("intra", "extra"), ("endo", "exo"), ("pre", "post"), ("pro-", "anti-"), ("up", "down")),
)
# Negating prefixes with the shortest base they take: "asymmetric" for "symmetric", but not
# "apart" for "part"; "irreversible", "decompensated", but not "deliver" for "liver".
_NEGATORS: tuple[tuple[str, int], ...] = (
    *(("un", 4), ("in", 4), ("im", 4), ("non-", 4), ("non", 4), ("dis", 4)),
    *(("ir", 5), ("a", 6), ("de", 6)),
)


def _side(word: str, prefixes: tuple[str, ...]) -> bool:
    return word.startswith(prefixes)


def same_side(word: str, original: list[str]) -> bool:
    """Whether ``word`` sits on the same side of an antonym pair as a word of ``original``
    ("reduced" for "lower"): a faithful substitute, not new content."""
    lower = word.lower()
    for left, right in ANTONYMS:
        for this, other in ((left, right), (right, left)):
            if (
                _side(lower, this)
                and not _side(lower, other)
                and any(_side(w.lower(), this) and not _side(w.lower(), other) for w in original)
            ):
                return True
    return False


def antonym_clash(original: list[str], candidate: list[str]) -> tuple[str, str] | None:
    """A (word of the original, its opposite brought in by the candidate), or None.

    A candidate word clashes when it is on one side of a pair, no original word is on that side
    and an original word is on the other; or when it is the original word with an opposite
    prefix (hyper/hypo, tachy/brady, intra/extra, pre/post...) or a negating one (un-, in-,
    non-, dis-, ir-, a-, de-); or when the lexicon of opposites says so
    (:func:`~quizbot.generate.opposites.lexicon_clash`, its rows that are no converses).
    """
    orig = [w.lower() for w in original]
    cand = [w.lower() for w in candidate]
    orig_set = set(orig)
    for left, right in ANTONYMS:
        for this, other in ((left, right), (right, left)):
            brought = [w for w in cand if _side(w, other) and not _side(w, this)]
            if not brought or any(_side(w, other) and not _side(w, this) for w in orig):
                continue
            had = [w for w in orig if _side(w, this) and not _side(w, other)]
            if had:
                return had[0], brought[0]
    for word in cand:
        if word in orig_set:
            continue
        for one, two in _PREFIX_PAIRS:
            for mine, theirs in ((one, two), (two, one)):
                if word.startswith(theirs) and mine + word[len(theirs) :] in orig_set:
                    return mine + word[len(theirs) :], word
        for negator, shortest in _NEGATORS:
            base = word[len(negator) :]
            if word.startswith(negator) and len(base) >= shortest and base in orig_set:
                return base, word
    return lexicon_clash(orig, cand)


# --------------------------------------------------------------------------------------------
# Voice
# --------------------------------------------------------------------------------------------


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
    (
        r"\b(?:caus(?:e|es|ing)|produc(?:e|es|ing)|induc(?:e|es|ing)|trigger(?:s|ing)?"
        r"|lead(?:s|ing)?\s+to|result(?:s|ed)?\s+in)\b",
        "cause",
        0,
    ),
    (r"\b(?:cause|trigger|reason|explanation)s?\s+(?:of|for|behind)\b", "cause", 0),
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
    (
        r"\b(?:plays?|playing|has|have)\s+(?:a|an|the|no)?\s*(?:\w+\s+)?role\s+in\b"
        r"|\b(?:participat(?:e|es|ing)|tak(?:e|es|ing)\s+part)\s+in\b"
        r"|\bcontribut(?:e|es|ing)\s+to\b|\bfunction(?:s|ing)?\s+(?:in|within)\b",
        "affect",
        1,
    ),
    (r"\b(?:affect(?:s|ing)?|involv(?:e|es|ing))\b|\b(?:is|are)\s+where\b", "affect", 0),
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
    # encoding: the gene first
    (_BE + r"(?:encoded|coded\s+for)\s+by\b", "encode", 1),
    (r"\b(?:encod(?:e|es|ing)|codes?\s+for)\b", "encode", 0),
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
        r"|\b(?:together|alongside)\b",
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
