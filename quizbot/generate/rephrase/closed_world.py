"""Closed-world predicates: a candidate's claim words must be the statement's relation, reworded.

Every other rule of :mod:`~quizbot.generate.rephrase.validator` rejects what it recognises (a
negation, an antonym listed somewhere, another core predicate) and accepts the rest: a candidate
that says the opposite through a verb no list has ("[X] lowers [Y]" for "[X] raises [Y]",
"[X] shields [Y]" for "[X] damages [Y]") passes. :func:`unlisted_predicate` closes that world: each
word of the candidate outside its two entities must be

* a word of the statement, inflected or derived (same stem or root: "elevation" for
  "elevates");
* a function word, a neutral word (people, generic nouns of the entity types, neutral verbs:
  :data:`~quizbot.generate.wording.NEUTRAL_WORDS`), a type noun, a negation cue, an absolute, a
  hedge or a frequency word (those are compared by their own rules);
* a word of a predicate family the statement uses, or one a rewording of it may use
  (:data:`~quizbot.generate.wording.FAMILIES`, :func:`~quizbot.generate.wording.family_allowed`),
  in either voice; or a listed paraphrase of that family (:data:`PARAPHRASES`: general verbs and
  phrases a fluent writer uses for the relation, no entity names);
* a general word of rewording that carries no claim (:data:`CONNECTIVE`: "known", "there",
  "said", "individuals").

Anything else is ``predicate changed``, a category the optional judge model may overturn
(:data:`~quizbot.generate.rephrase.driver.JUDGEABLE`). :data:`CLOSED_WORLD` switches the check.
"""

from __future__ import annotations

import re

from quizbot.generate.rephrase.claims import ABSOLUTE, HEDGE, cues_in
from quizbot.generate.rephrase.entities import TOKEN, acronym_of, same_root
from quizbot.generate.rephrase.reading import WORD
from quizbot.generate.wording import (
    FAMILIES,
    FUNCTION_WORDS,
    NEUTRAL_WORDS,
    TYPE_NOUNS,
    families_of,
    family_allowed,
    stem,
)

__all__ = ["CLOSED_WORLD", "CONNECTIVE", "PARAPHRASES", "unlisted_predicate"]

# The switch: with it off, a predicate no rule recognises is accepted (the open world).
CLOSED_WORLD = True

# General paraphrases, in senses: each a tuple of word prefixes (lower case) a fluent writer uses
# for one relation or one notion of a relation. When a word of the statement (outside its
# entities) starts with a prefix of a sense, the candidate may use any word of that sense, in
# either voice; the families of :data:`~quizbot.generate.wording.FAMILIES` the statement uses
# (or may be reworded into) are allowed the same way. No sense holds two sides of an opposition
# ("before" and "after", "raise" and "lower" are in different senses).
PARAPHRASES: dict[str, tuple[str, ...]] = {
    # having a condition
    "suffer": (
        *("suffer", "experienc", "afflict", "affected", "have", "has", "had", "having", "occur"),
        *("happen", "emerg", "onset", "manifest", "come", "incur", "undergo", "underwent"),
        *("develop", "contract", "sustain", "diagnos", "living", "lives", "present", "show"),
        *("get", "gets", "getting", "got", "catch", "caught"),
    ),
    # showing a finding or a property
    "exhibit": (
        *("exhibit", "display", "show", "present", "manifest", "demonstrat", "reveal"),
        *("possess", "have", "has", "having", "featur", "characteri", "accompan", "carr"),
        *("contain", "harbo", "marked", "hallmark", "experienc", "combin", "pattern"),
        *("alteration", "change", "transform", "structur", "aberran", "appear"),
    ),
    # where a condition comes from
    "origin": (
        *("stem", "origin", "aris", "arose", "rise", "deriv", "emerg", "begin", "began"),
        *("start", "source", "come", "comes", "develop", "spring", "root", "form"),
    ),
    "cause": (
        *("caus", "lead", "led", "result", "due", "attribut", "produc", "trigger", "induc"),
        *("respons", "consequen", "reason", "explain", "account", "owing", "because"),
        *("stem", "aris", "origin", "bring", "brought", "driv", "underl", "behind"),
        *("expos", "intake", "administ"),
    ),
    "effect": (
        *("affect", "influenc", "impact", "alter", "chang", "modif", "disrupt", "effect"),
        *("disturb", "consequen", "bearing", "remain", "unaffect", "unchang", "unalter"),
        *("exert", "outcome", "repercussion", "implicat", "result", "stay"),
    ),
    "wish": (
        *("wish", "want", "seek", "desir", "hop", "aim", "intend", "goal", "try", "trying"),
        *("looking", "keen", "plan"),
    ),
    "prevent": (
        *("prevent", "protect", "avert", "avoid", "ward", "guard", "shield", "prophyla"),
        *("stop", "keep", "defen", "safeguard", "development", "onset", "occurr", "help"),
        *("inhibit", "hinder", "halt", "block", "risk", "reduc", "lower", "decreas"),
        *("chance", "likel", "incidence"),
        *("preclu", "forestall", "themselves", "himself", "herself", "get", "getting"),
    ),
    "treat": (
        *("treat", "manag", "cure", "therap", "control", "remed", "heal", "combat"),
        *("fight", "tackl", "address", "help", "benefi", "effective", "serv", "option"),
        *("administ", "prescri", "recommend", "indicat", "medicat", "regimen", "handl"),
        *("alleviat", "reliev", "improv", "resolv", "counter", "target", "employ", "effica"),
        *("eradicat", "eliminat", "clear", "work"),
    ),
    # ability, possibility, permission (hedges of a modal statement)
    "able": (
        *("able", "abilit", "capab", "capacit", "potential", "enabl", "allow", "help"),
        *("can", "may", "could", "might", "possib", "power", "permit", "effica"),
    ),
    "need": (
        *("need", "requir", "necess", "take", "taking", "took", "use", "receiv"),
        *("administ", "recommend", "advis", "should", "must", "consider", "benefi"),
        *("prescri", "indicat", "call", "warrant", "essential", "start"),
        # a need not to take: the negation is compared by its own rule
        *("avoid", "refrain", "abstain", "skip", "forgo", "forego", "omit", "stop"),
    ),
    "function": (
        *("function", "act", "serv", "perform", "role", "activit", "action", "work"),
        *("operat", "carr", "exhibit", "possess", "capab", "capacit", "biochemi"),
        *("catalys", "catalyz", "enzym", "mediat", "responsib", "property", "properties"),
    ),
    "assoc": (
        *("associa", "link", "relat", "connect", "tied", "tie", "correlat", "between"),
        *("involv", "concomitant", "co-occur", "together", "accompan", "mapp", "map"),
        *("assign", "correspond", "corresponds", "implicat", "comorbid", "coexist"),
        *("co-exist", "concurren", "alongside", "simultaneous", "locus", "loci", "basis"),
        *("mutat", "show"),
    ),
    "found": (
        *("detect", "found", "seen", "observ", "present", "identif", "locat"),
        *("contain", "exist", "occur", "appear", "encounter", "harbo", "reside", "situat"),
        *("visibl", "evident", "within", "inside", "among", "housed", "lesion"),
        *("compos", "consist", "comprise", "made", "populat", "involv"),
    ),
    "decrease": (
        *("decreas", "reduc", "lower", "low", "less", "fewer", "diminish", "drop"),
        *("declin", "fall", "fell", "impair", "loss", "lost", "dimin", "deficien", "shortag"),
        *("insufficien", "weaken", "downregulat", "deplet", "subdued", "attenuat", "dip"),
    ),
    "increase": (
        *("increas", "rais", "elevat", "high", "great", "more", "boost", "enhanc"),
        *("rise", "rising", "rose", "heighten", "augment", "amplif", "upregulat"),
        *("grow", "surg", "excess"),
    ),
    "encode": (
        *("encod", "code", "coding", "produc", "blueprint", "express", "translat"),
        *("synthes", "made", "make", "generat", "templat", "instruct", "genetic"),
        *("transcrib", "specif", "direct", "responsib", "rise", "source"),
    ),
    "produce": (
        *("product", "produc", "synthes", "generat", "output", "level", "amount"),
        *("quantit", "express", "activit", "function", "formation", "manufactur"),
    ),
    "before": ("before", "prior", "previous", "earlier", "preced", "first", "ahead", "history"),
    "after": ("after", "later", "subsequen", "follow", "afterward", "eventual", "next"),
    "indicate": (
        *("indicat", "sign", "suggest", "point", "signal", "mark", "consistent", "diagnos"),
        *("evidence", "hint", "imply", "implies", "reflect", "clue", "reveal", "predispos"),
    ),
    # an unwanted effect of a drug
    "adverse": ("advers", "side", "unwanted", "undesir", "toxicit", "complicat", "reaction"),
    # a growth of a site: where it arises
    "tumour": (
        *("tumo", "neoplas", "cancer", "carcinom", "growth", "aris", "origin", "develop"),
        *("locat", "situat", "found", "grow", "form"),
    ),
    # an abnormality: something wrong with a cell, a molecule, a structure
    "abnormal": (
        *("abnormal", "aberra", "anomal", "defect", "alteration", "irregular", "atypical"),
        *("dysfunction", "fault", "disrupt", "disturb", "derang"),
    ),
    # where a product sits or works
    "site": (
        *("anatom", "site", "locat", "locali", "resid", "found", "present", "situat"),
        *("compartment", "region", "area", "place", "where", "within", "operat"),
        *("function", "activ", "act", "work"),
    ),
    # a lesion in a site
    "lesion": (
        *("lesion", "damag", "injur", "abnormalit", "involv", "affect", "patholog"),
        *("locat", "situat", "found", "present", "occur"),
    ),
    # a normal cell or tissue
    "normal": ("normal", "healthy", "physiolog"),
    # a mode of inheritance
    "inherit": (
        *("inherit", "hered", "pass", "transmi", "pattern", "mode", "follow", "show"),
        *("exhibit", "display", "segregat", "familial", "genetic"),
    ),
    # a complication of a condition
    "complication": (
        *("complicat", "develop", "underl", "consequen", "sequel", "aris", "follow"),
        *("lead", "result", "caus", "secondary"),
    ),
    # an investigation of a suspected condition
    "investigate": (
        *("investigat", "test", "suspect", "work-up", "workup", "evaluat", "assess", "examin"),
        *("diagnos", "confirm", "detect", "check", "look", "exclu", "rule", "standard"),
    ),
    # a morphology: what a condition looks like
    "morphology": (
        *("morpholog", "characteri", "exhibit", "display", "show", "feature", "typical"),
        *("seen", "appear", "pattern", "hallmark", "marked", "defin", "histolog"),
        *("manifest", "present", "accompan", "structur", "look", "form"),
    ),
    "risk": (
        *("risk", "likel", "chance", "odds", "probab", "prone", "susceptib", "predispos"),
        *("vulnerab", "possibilit", "get", "develop", "contract", "acquir"),
    ),
}

# Words that carry no claim of their own, whatever the relation (stems via :func:`stem`).
CONNECTIVE = frozenset(
    stem(w)
    for w in [
        *("there", "said", "regard", "terms", "respect", "way", "both", "respectively"),
        *("additionally", "furthermore", "moreover", "however", "thus", "therefore", "hence"),
        *("specifically", "particular", "particularly", "namely", "such", "called", "named"),
        *("term", "termed", "referred", "designated", "identified", "labelled", "labeled"),
        *("classified", "categorized", "categorised", "defined", "category", "group"),
        *("human", "humans", "themselves", "himself", "herself", "they", "he", "she"),
        *("one", "ones", "someone", "anyone", "anybody", "whoever", "you", "your"),
        *("doctor", "doctors", "physician", "physicians", "clinician", "clinicians"),
        *("whether", "whose", "whom", "who", "which", "what", "where", "when", "while"),
        *("instead", "rather", "otherwise", "actually", "indeed", "truly", "really"),
        *("associated", "corresponding", "related", "relevant", "respective", "given"),
        *("certain", "specific", "particular", "various", "different", "own", "its"),
        *("evidence", "evident", "clear", "clearly", "true", "case", "fact", "factor"),
        *("possibility", "possibilities", "recognised", "recognized", "typical", "typically"),
        *("level", "levels", "amount", "state", "status", "presence", "component"),
        *("criteria", "criterion", "staging", "classification", "system", "means"),
        *("measure", "measures", "approach", "approaches", "strategy", "strategies"),
        *("method", "methods", "way", "ways"),
        # generic nouns of place and process
        *("location", "region", "area", "place", "reaction", "mechanism", "pathway"),
        # light and copular verbs: the noun after them carries the claim
        *("offer", "offers", "offered", "provide", "provides", "provided", "confer", "confers"),
        *("afford", "affords", "serve", "serves", "served", "represent", "represents"),
        *("constitute", "constitutes", "remain", "remains", "exist", "exists"),
    ]
)


# A conditional statement ("If [A], then [B]") may be said as "[A] indicates / suggests [B]".
_CONDITIONAL = re.compile(r"^\W*(?:if|when|whenever|once|should)\b", re.IGNORECASE)
_INFLECTION = re.compile(r"(?:ing|ed|es|s|d|e)$")


def _base(word: str) -> str:
    return _INFLECTION.sub("", word) if len(word) > 4 else word


def _prefixes(statement: str, statement_words: list[str]) -> tuple[str, ...]:
    """The word prefixes a candidate may use for the relation of a statement of these words."""
    had = families_of(statement_words, implied=True)
    families = sorted(family for family in FAMILIES if family_allowed(family, had))
    senses = sorted(
        name
        for name, prefixes in PARAPHRASES.items()
        if any(w.startswith(prefixes) for w in statement_words if len(w) > 2)
        or (name == "indicate" and _CONDITIONAL.match(statement))
    )
    return tuple(p for f in families for p in FAMILIES[f]) + tuple(
        p for name in senses for p in PARAPHRASES[name]
    )


def unlisted_predicate(
    statement: str, statement_words: list[str], masked: str, names: tuple[str, ...]
) -> str | None:
    """The first word of the candidate outside its entities (``masked``: the candidate's
    normalised text with the entities blanked out) that is no rewording of the statement's
    relation (see the module docstring), or None. ``statement`` is the statement's normalised
    text (its entity names included: a word taken from a name is the name's),
    ``statement_words`` its words outside the entities, ``names`` the entity names (an acronym
    of one, "(COPD)", is the entity's)."""
    known = {w.lower() for w in TOKEN.findall(statement)}
    known_stems = {stem(w) for w in known}
    bases = {_base(w) for w in known}
    prefixes = _prefixes(statement, statement_words)
    cue_words = {w for cue in cues_in(masked) for w in cue.split()}
    written_words: list[str] = WORD.findall(masked)
    for written in written_words:
        word = written.lower()
        if word in known or word in FUNCTION_WORDS or word in cue_words or len(word) < 2:
            continue
        root = stem(word)
        if root in known_stems or _base(word) in bases or word.isdigit():
            continue
        if root in NEUTRAL_WORDS or root in TYPE_NOUNS or root in CONNECTIVE:
            continue
        if word.startswith(prefixes) or ABSOLUTE.fullmatch(word) or HEDGE.fullmatch(word):
            continue
        if any(same_root(word, w) for w in known if len(w) >= 5):
            continue
        if any(acronym_of(written, name) for name in names):
            continue
        return word
    return None
