"""How a listed name is compared with another: the words of a clinical name, folded.

Open recall answers are written the way clinicians write: abbreviations ("FBC", "U&Es", "CT KUB"),
shorthand ("abdo", "mets", "physio"), American spellings ("anemia", "tumor"), adjectives for
organs ("testicular lump" for a lump of the testis), other word orders ("lump in the testicle").
:func:`words` turns a name into the tuple of its *words* so that such variants of one name come
out equal; the scorer (:mod:`quizbot.evaluation.recall`) compares those tuples, and the same
function folds the gold list, the KB's lexicon and the answer, so a rule applies to all sides
alike. In order:

1. NFKC, case folded, accents dropped; everything but letters, digits, ``&`` and ``+`` separates
   words (a hyphen too: "anti-CCP" is "anti ccp"), except after a bound prefix, which joins its
   stem ("trans-sphenoidal" is "transsphenoidal", "pre-eclampsia" is "preeclampsia");
2. :data:`ABBREVIATIONS` are spelled out, longest first ("ct kub" before "ct"; "u&e" as
   "urea and electrolytes"); only whole words, so "pe" never touches "pelvis";
3. each word: a plain plural dropped (as :func:`quizbot.kb.knowledge.entity_key` does for a
   name), British and American spellings folded ("ae"/"oe" to "e", "our" to "or", "-ise" to
   "-ize"), :data:`WORD_FORMS` applied (organ adjectives to the organ: "renal" is "kidney",
   "testicular" and "testicle" are "testis"; "visual" is "vision"), Greek and Latin plurals
   written one way ("metastasis" and "metastases", "varix" and "varices", "emboli" and
   "embolus": :func:`_latin`), then the Porter stem ("heaviness" and "heavy"
   share one);
4. :data:`STOPWORDS` go in :func:`content` (not in :func:`words`: "type 1" and "type 2" stay
   apart).

:data:`SPECIMENS` are the sample words a test may be named with or without ("serum alkaline
phosphatase" is "alkaline phosphatase"); :data:`GENERIC_WORDS` are words too broad to identify
anything on their own ("pain", "disease"): a shortened name made only of them names nothing;
with the qualifiers and :data:`BROAD_HEADS` ("symptoms", "organ") they are
:func:`folded_too_broad`, the words a broader name of a gold cannot be made of alone to be true.
None of this knows a KB: these are facts of clinical English, written for this module. The
tables live in :mod:`quizbot.evaluation.recall_abbreviations` (abbreviations, capitals) and
:mod:`quizbot.evaluation.recall_words` (word forms, specimens, stopwords, generic words).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence

from quizbot.evaluation.recall_abbreviations import ABBREVIATIONS, CAPITALS
from quizbot.evaluation.recall_words import (
    BROAD_HEADS,
    GENERIC_WORDS,
    QUALIFIERS,
    SPECIMENS,
    STOPWORDS,
    WORD_FORMS,
)

__all__ = [
    "content",
    "folded_too_broad",
    "plain_words",
    "separated",
    "split",
    "words",
]

# How a list reader (:func:`quizbot.evaluation.recall.parse_list`) cuts a line into entities. A
# slash before a short token that starts with a digit is part of a name, not a separator: "NS3/4A
# protease inhibitors", "IL-12/23 inhibitor" (such a token is never a name of its own).
_SPLIT_RE = re.compile(
    r"\s*(?:[,;、，；]|/(?!\d[a-z0-9]{0,2}\b)|\s&\s|\band/or\b|\bas\s+well\s+as\b|\band\b|\bor\b|\bplus\b)\s*",
    re.IGNORECASE,
)
_PAREN_RE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")

_SPLIT = re.compile(r"[^0-9a-z&+]+")
_FOLD_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"ae"), "e"),
    (re.compile(r"oe"), "e"),
    (re.compile(r"our$"), "or"),
    (re.compile(r"(?<=[a-z]{3})is(e|ed|es|ing|ation|ations)$"), r"iz\1"),
    (re.compile(r"(?<=[a-z]{3})yse$"), "yze"),
)
_NOT_PLURAL = re.compile(r"(?:ss|us|is|as|os|ys|ics)$")


def _abbreviation_table() -> dict[tuple[str, ...], tuple[str, ...]]:
    table: dict[tuple[str, ...], tuple[str, ...]] = {}
    for short, long in ABBREVIATIONS.items():
        key = tuple(_SPLIT.split(_ascii(short)))
        key = tuple(_plural(w) for w in key if w)
        if key:
            table[key] = tuple(w for w in _SPLIT.split(_ascii(long)) if w)
    return table


_POSSESSIVE = re.compile(r"['\u2019]s\b|['\u2019]")


def _ascii(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return _POSSESSIVE.sub("", "".join(c for c in decomposed if not unicodedata.combining(c)))


_CASED_SPLIT = re.compile(r"[^0-9A-Za-z&+]+")


def _capitals(name: str) -> frozenset[str]:
    """The words ``name`` writes in capitals (two letters or more), folded."""
    text = _POSSESSIVE.sub("", unicodedata.normalize("NFKC", name))
    return frozenset(
        _plural(w.casefold())
        for w in _CASED_SPLIT.split(text)
        if len(w) >= 2 and (w.isupper() or (w[:-1].isupper() and w[-1] == "s"))
    )


# A bound prefix joined by a hyphen is one word with its stem, written either way:
# "trans-sphenoidal" is "transsphenoidal", "pre-eclampsia" "preeclampsia" (and never "eclampsia"),
# "post-herpetic" "postherpetic". "anti-" and "non-" stay apart ("anti-CCP" is "anti ccp").
_BOUND_PREFIX = re.compile(
    r"\b(trans|mid|post|pre|intra|extra|peri|sub|supra|infra|inter|para|retro|hyper|hypo|endo"
    r"|epi|neo|poly|pseudo)-(?=[a-z])"
)


def split(name: str) -> tuple[str, ...]:
    """``name``'s words as typed: case and accents folded, a possessive and a plain plural
    dropped, a bound prefix joined to its stem, nothing spelled out (what :func:`words` starts
    from)."""
    return tuple(_plural(w) for w in _SPLIT.split(_BOUND_PREFIX.sub(r"\1", _ascii(name))) if w)


def _plural(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not _NOT_PLURAL.search(word):
        return word[:-1]
    return word


# Greek and Latin plurals a plain plural rule does not read, written as one form: "-sis" as
# "-se" (the plain plural of "-ses": "metastasis" and "metastases" are both "metastase"), "-ix"
# as "-ice" ("varix", "varices"), "-ae" as "-a" ("petechiae"); and the -um/-a, -us/-i, -on/-a,
# -ex/-ices words of :data:`LATIN_PLURALS` by name (a general "-i" or "-a" rule would fold
# ordinary words).
LATIN_PLURALS: dict[str, str] = {
    "bacterium": "bacteria",  # the plural, whose stem "bacterial" shares
    "diverticula": "diverticulum",
    "atria": "atrium",
    "septa": "septum",
    "ova": "ovum",
    "labia": "labium",
    "criteria": "criterion",
    "ganglia": "ganglion",
    "foramina": "foramen",
    "thrombi": "thrombus",
    "emboli": "embolus",
    "calculi": "calculus",
    "fungi": "fungus",
    "bacilli": "bacillus",
    "cocci": "coccus",
    "nuclei": "nucleus",
    "glomeruli": "glomerulus",
    "villi": "villus",
    "nevi": "nevus",
    "naevi": "nevus",
    "naevus": "nevus",
    "tophi": "tophus",
    "menisci": "meniscus",
    "sulci": "sulcus",
    "gyri": "gyrus",
    "stimuli": "stimulus",
    "cortice": "cortex",  # "-ices" has lost its plain plural "s" by now
    "apice": "apex",
    "indice": "index",
    "vertice": "vertex",
}


def _latin(word: str) -> str:
    """``word`` with a Greek or Latin plural (or its singular) written one way (see above)."""
    found = LATIN_PLURALS.get(word)
    if found is not None:
        return found
    if len(word) > 5 and word.endswith("sis"):
        return word[:-3] + "se"
    if len(word) > 4 and word.endswith("ix"):
        return word[:-2] + "ice"
    if len(word) > 4 and word.endswith("ae"):
        return word[:-1]
    return word


@functools.cache
def _stemmer() -> object:
    from nltk.stem.porter import PorterStemmer  # noqa: PLC0415 - nltk is slow to import

    return PorterStemmer()


@functools.lru_cache(maxsize=65536)
def _word(word: str) -> str:
    """One word folded: plural, spelling, word form, stem."""
    folded = _latin(_plural(word))
    mapped = WORD_FORMS.get(folded)
    if mapped is None:
        spelled = folded
        for pattern, replacement in _FOLD_RULES:
            spelled = pattern.sub(replacement, spelled)
        mapped = WORD_FORMS.get(spelled, spelled)
    if " " in mapped:
        return " ".join(_word(w) for w in mapped.split())
    mapped = _latin(mapped)  # a word form's organ may be one ("cervical" is "cervix")
    if not mapped.isalpha() or len(mapped) <= 3:
        return mapped
    stem: str = _stemmer().stem(mapped)  # type: ignore[attr-defined]
    return stem


@functools.cache
def _abbreviations() -> tuple[dict[tuple[str, ...], tuple[str, ...]], int]:
    table = _abbreviation_table()
    return table, max(len(k) for k in table)


@functools.lru_cache(maxsize=65536)
def words(name: str) -> tuple[str, ...]:
    """The folded words of ``name`` (see the module docstring); empty for a name of no words."""
    raw = list(split(name))
    capitals = _capitals(name)
    table, longest = _abbreviations()
    spelled: list[str] = []
    i = 0
    while i < len(raw):
        if raw[i] in CAPITALS and raw[i] in capitals:
            spelled.extend(CAPITALS[raw[i]].split())
            i += 1
            continue
        for size in range(min(longest, len(raw) - i), 0, -1):
            key = tuple(raw[i : i + size])
            found = table.get(key)
            if found is None and key[-1].endswith("s"):  # "SSRIs", "NSAIDs"
                found = table.get((*key[:-1], key[-1][:-1]))
            if found is not None:
                spelled.extend(found)
                i += size
                break
        else:
            spelled.append(raw[i])
            i += 1
    out: list[str] = []
    for word in spelled:
        out.extend(_word(_plural(word)).split())
    return tuple(out)


@functools.lru_cache(maxsize=65536)
def plain_words(name: str) -> tuple[str, ...]:
    """:func:`words` without spelling out abbreviations (to tell whether a name was one)."""
    out: list[str] = []
    for word in split(name):
        out.extend(_word(word).split())
    return tuple(out)


def content(folded: tuple[str, ...]) -> frozenset[str]:
    """The words of a folded name that carry meaning (:data:`STOPWORDS` left out)."""
    stop = _folded_stopwords()
    return frozenset(w for w in folded if w not in stop)


@functools.cache
def _folded_stopwords() -> frozenset[str]:
    return frozenset(_word(w) for w in STOPWORDS)


@functools.cache
def folded_specimens() -> frozenset[str]:
    """:data:`SPECIMENS` as :func:`words` folds them."""
    return frozenset(_word(w) for w in SPECIMENS)


@functools.cache
def folded_qualifiers() -> frozenset[str]:
    """:data:`QUALIFIERS` as :func:`words` folds them."""
    return frozenset(w for q in QUALIFIERS for w in words(q))


@functools.cache
def folded_generic() -> frozenset[str]:
    """:data:`GENERIC_WORDS` as :func:`words` folds them."""
    return frozenset(w for g in GENERIC_WORDS for w in words(g))


@functools.cache
def folded_too_broad() -> frozenset[str]:
    """The words of a name too broad to be true of a disease as a broader name of a gold:
    :data:`GENERIC_WORDS`, :data:`QUALIFIERS` and :data:`BROAD_HEADS`, folded."""
    heads = frozenset(w for h in BROAD_HEADS for w in words(h))
    return folded_generic() | folded_qualifiers() | heads


def separated(names: Sequence[str]) -> list[str]:
    """The names a list reader would cut apart (a separator, a parenthesis or a colon in them)."""
    normal = [unicodedata.normalize("NFKC", p) for p in names]
    return [p for p in normal if _SPLIT_RE.search(p) or _PAREN_RE.search(p) or ":" in p]
