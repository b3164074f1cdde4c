"""The vocabulary behind the rephrasing validator: word lists, predicate families and antonyms.

Everything here is lexical and curated for the relations of our prototypes (treatment,
prevention, causation, presentation, sites, association, genes, inheritance, time order,
encoding). :mod:`quizbot.generate.rephrase` uses it to decide whether a rewording keeps a
statement's meaning. The lists are deliberately small and readable; a word they do not know is
treated as new content, so the validator stays conservative.

Here: the word lists (function words, neutral verbs, type nouns, heads that change an entity),
the predicate families and the antonyms. Entity forms and stems live in
:mod:`quizbot.generate.inflection`, voice in :mod:`quizbot.generate.voice`; both are
re-exported here, so ``quizbot.generate.wording`` stays the one import path for the validator's
vocabulary.
"""

from __future__ import annotations

from quizbot.generate.inflection import entity_regex, is_inheritance_mode, stem, word_forms
from quizbot.generate.opposites import lexicon_clash
from quizbot.generate.voice import SYMMETRIC_FAMILIES, PredicateReading, predicate_reading

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
