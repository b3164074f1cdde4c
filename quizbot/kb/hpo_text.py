"""Readable text for the ``hpo`` KB: sentence-cased labels, plain disease names, non-diseases.

HPO labels and OMIM/Orphanet disease names are written for catalogues, not for sentences. This
module turns them into text a clinician would write, with rules that err on the side of leaving
text alone:

* :func:`sentence_case` lower-cases the first letter of an HPO label ("Seizure" -> "seizure")
  unless its first word is an acronym or mixed case ("EEG", "IgA", "T-cell", "X-linked") or a
  proper noun from :data:`EPONYMS` ("Down", "Raynaud", "Wilms");
* :func:`disease_name` tidies spacing and known source typos, rewrites OMIM titles in capitals
  ("ALPORT SYNDROME") in ordinary case, and puts OMIM's inverted titles back in reading order
  ("Dystonia 34, myoclonic" -> "Myoclonic dystonia 34"); a part it cannot place with certainty
  goes into a parenthesis at the end instead of being guessed;
* :func:`non_disease` says why an OMIM entry is a trait, a blood group, a measurement, a drug
  response or a susceptibility rather than a disease (such entries are no heads).

Words are lower-cased only on evidence: a word moved into the middle of a disease name (or written
in capitals) is lower-cased when the same word occurs in lower case inside some other disease
name or HPO label, and is no eponym; otherwise its capital is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

__all__ = [
    "EPONYMS",
    "KNOWN_TYPOS",
    "NON_DISEASE_RULES",
    "disease_name",
    "lower_words",
    "non_disease",
    "sentence_case",
]

# Proper nouns that open HPO labels or sit in OMIM titles (compared lower-cased, whole word or
# the part of a word before a hyphen or apostrophe). Found by reading the first words of the
# labels used as tails and the capitalised words of OMIM titles; extend it when one is missed.
_EPONYM_WORDS = """
    achilles addison aicardi alport alzheimer angelman arnold asperger babinski bardet barrett
    bartter beau beevor bell's bence bowdler brushfield burkitt chaddock charcot cheyne chiari
    chvostek clostridium coombs cornelia crohn cushing dandy darier darwin descemet down duane
    ebstein ehlers erlenmeyer ewing fabry fanconi fuldauer froment gaucher gottron gowers graves
    gunn hashimoto heberden helicobacter hirschsprung hodgkin hoffmann horner howell huntington
    jones kaposi kayser klinefelter kuijpers lafora leber lewy libman lisch madelung marcus
    marfan meckel merkel mizuo mongolian niemann noonan paget pappenheimer parkinson peters
    pierre pneumocystis pompe potter probst raynaud reye rieger robin rosenthal schmorl sertoli
    sjogren sprengel stokes tarlov tay tessier turner usher whipple wilms wilson wolff wormian
    zollinger
"""
EPONYMS: frozenset[str] = frozenset(_EPONYM_WORDS.split())

# Source typos in disease names, fixed wherever they occur (found in phenotype.hpoa, 2025-01-16).
KNOWN_TYPOS: Mapping[str, str] = {
    "degenerationand": "degeneration and",  # OMIM:613710
    "Insulin-Like": "Insulin-like",  # OMIM:270450
    "Vitiligo-Associated": "Vitiligo-associated",  # OMIM:606579
    "Alpha-Fetoprotein": "Alpha-fetoprotein",  # OMIM:615970
    "Atpase": "ATPase",  # OMIM:270425
    "fuldauer and kuijpers": "Fuldauer and Kuijpers",  # OMIM:145200
    "cromer system": "Cromer system",  # OMIM:613793
    "of leigh": "of Leigh",  # OMIM:256000
    "north Carolina": "North Carolina",  # OMIM:136550
    "posteriorstridor": "posterior stridor",  # OMIM:215800
}

# Why an OMIM entry is no disease (OMIM marks these with brackets or braces in its own titles,
# which phenotype.hpoa leaves out, so they are recognised by their wording). Orphanet lists
# clinical entities only and is never filtered. Checked in order; the first match names the rule.
NON_DISEASE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "susceptibility",
        re.compile(r"(?:^|, )susceptibility to(?:,|$)|\bsusceptibility(?:$|,| \d)", re.IGNORECASE),
    ),
    ("quantitative trait locus", re.compile(r"\bquantitative trait locus\b", re.IGNORECASE)),
    ("trait", re.compile(r"\btrait$", re.IGNORECASE)),
    ("blood group", re.compile(r"^blood group\b", re.IGNORECASE)),
    (
        "measured value",
        re.compile(
            r"\bactivity of\b|\bnatural killer activity\b|\blevel in (?:plasma|serum)\b"
            r"|, elevated (?:plasma|serum)$|\bpolymorphism of\b|^lactase persistence"
            r"|^alpha-fetoprotein, hereditary persistence",
            re.IGNORECASE,
        ),
    ),
    (
        "drug or agent response",
        re.compile(
            r"^(?![^,]*\bwith\b)[^,(]*\b(?:sensitivity|toxicity)(?:, acute)?$|^drug metabolism\b"
            r"|^acetylation, slow$|^amobarbital, deficient|^skunk\b|\bmodifier\b",
            re.IGNORECASE,
        ),
    ),
)

_SPACE_BEFORE_COMMA = re.compile(r"\s+,")
_NO_SPACE_AFTER_COMMA = re.compile(r"(?<=[A-Za-z)]),(?=[A-Za-z(])")
_KARYOTYPE = re.compile(r"\b(4[5-9]|5\d),([xy]+)\b", re.IGNORECASE)
_LEADING_LETTERS = re.compile(r"[A-Za-z]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_NUMBER = re.compile(r"\d+[A-Za-z]{0,3}\d?")
_DESIGNATION = re.compile(
    r"(?:type|group|complementation group|subtype|class|form|variant)"
    r" (?:[0-9]+[A-Za-z]{0,3}[0-9]?|[IVX]+[A-Za-z]{0,2}[0-9]?|[A-Za-z]{1,2}[0-9]{0,2})"
)
# "Spahr type", "recessive form": a named kind, shown in parentheses after the name
_NAMED_KIND = re.compile(r"\S+(?: \S+)? (?:type|form|variant)(?: \S+)?")
_PHRASE_START = re.compile(
    r"(?:with|without|with or without|due to|associated with|caused by|including|in|from|"
    r"resulting from|after|following|of|plus) ",
)
_ENDS_IN_PREPOSITION = re.compile(r".*\b(?:of|to|in|for)$")
# Words that may be moved, as a modifier, in front of the noun they describe in an inverted
# OMIM title ("Cardiomyopathy, dilated, 1A" -> "Dilated cardiomyopathy 1A").
_MODIFIER_TEXT = """
    abdominal absence acute adult age angiomatoid atypical autonomic autosomal axonal benign
    bilateral catecholaminergic central centrofacial childhood chronic classic classical
    combined common communicating complete complex congenital cortical cutaneous demyelinating
    dilated distal dominant dyserythropoietic early endosteal endothelial erythropoietic
    essential familial fatal fibrous focal frontoparietal generalized gingival hemiplegic
    hemolytic hemorrhagic hereditary horizontal hypochromic hypertrophic hypomyelinating
    idiopathic infantile inflammatory inherited intermediate intestinal intracardiac intrahepatic
    intraocular isolated junctional juvenile late lethal limb lobe malabsorptive malignant
    microcytic mild mitochondrial motor multiple multisystem myelocytic myoclonic myofibrillar
    myxomatous neonatal nephrogenic neovascular neural neurodysraphic neuronal neurosensory
    nocturnal nonautoimmune nongoitrous nonimmune nonphotosensitive nonpolyposis nonspherocytic
    nonsyndromic obstructive occipital ocular oculocutaneous onset open angle palmoplantar
    paroxysmal partial patterned periodic permanent perisylvian polymorphic polymorphous
    postaxial posterior postsynaptic preaxial presynaptic primary progressive proximal pulmonary
    punctate recessive recurrent remitting renal restrictive retinal rolandic scapuloperoneal
    scapulohumeroperoneal secondary selective sensorineural sensory severe sideroblastic sleep
    somatic sporadic stationary syndromic systemic temporal thoracic torsion transient variable
    visceral and
"""
_MODIFIER_WORDS: frozenset[str] = frozenset(_MODIFIER_TEXT.split())
_MODIFIER_SUFFIXES = (
    "-linked",
    "-onset",
    "-related",
    "-dependent",
    "-responsive",
    "-resistant",
    "-sensitive",
    "-type",
    "-induced",
    "-specific",
    "-limited",
    "-girdle",
    "-channel",
    "-grade",
    "-angle",
    "-like",
    "-refractory",
    "-deficient",
)
_SINGLE_LETTER_PREFIX = re.compile(r"[A-Z]-[a-z-]+")


def _lowerable(word: str, eponyms: frozenset[str]) -> bool:
    """Whether ``word`` may lose its initial capital: no acronym, mixed case or eponym."""
    if not word or not word[0].isupper() or any(c.isupper() for c in word[1:]):
        return False
    lead = _LEADING_LETTERS.match(word)
    if lead is None or len(lead.group(0)) < 2:
        return False  # "T-cell", "X-linked", "3-methylglutaconic"
    stem = word.lower().split("'", 1)[0]
    return lead.group(0).lower() not in eponyms and stem not in eponyms


@lru_cache(maxsize=65536)
def sentence_case(label: str, eponyms: frozenset[str] = EPONYMS) -> str:
    """``label`` as it reads inside a sentence: its first letter lower-cased when safe.

    The first word keeps its capital when it is an acronym or mixed case ("EEG abnormality",
    "IgA deposition", "T-cell lymphopenia"), starts with a single letter ("X-linked recessive
    inheritance"), or is an eponym ("Raynaud phenomenon", "Wilms tumor").
    The other words are left as HPO writes them.
    """
    text = label.strip()
    first, sep, rest = text.partition(" ")
    if _lowerable(first, eponyms):
        return first[0].lower() + first[1:] + sep + rest
    return text


def lower_words(texts: Iterable[str]) -> frozenset[str]:
    """Words written in lower case somewhere after the first word of one of ``texts``.

    The evidence that a word is a common word, not a name, when a disease name is re-cased.
    """
    found: set[str] = set()
    add = found.add
    for text in texts:
        for word in text.split()[1:]:
            if word[:1].islower():
                add(word.strip(",;:()[]").lower())
    return frozenset(found)


def _recase_word(word: str, common: frozenset[str], eponyms: frozenset[str]) -> str:
    """A word in capitals in ordinary case: lower-cased part by part when the evidence allows."""
    parts = re.split(r"([-/])", word)
    out: list[str] = []
    for part in parts:
        if part in ("-", "/") or len(part) < 2 or not part.isalpha():
            out.append(part)  # "B" of "B-CELL", "1", separators
            continue
        low = part.lower()
        if low in eponyms:
            out.append(part[0] + low[1:])
        elif low in common or len(part) > 7:
            out.append(low)  # a known word, or too long to be an acronym
        else:
            out.append(part)  # maybe an acronym (CHANDS, AREDYLD): keep it
    return "".join(out)


def _fix_capitals(name: str, common: frozenset[str], eponyms: frozenset[str]) -> str:
    """An OMIM title written in capitals, in ordinary case (the caller restores the initial)."""
    return _WORD.sub(lambda m: _recase_word(m.group(0), common, eponyms), name)


def _split_top(name: str) -> list[str]:
    """``name`` split at ", " outside parentheses."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(name):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0 and name[i + 1 : i + 2] == " ":
            parts.append(name[start:i].strip())
            start = i + 2
    parts.append(name[start:].strip())
    return parts


def _is_modifier(segment: str) -> bool:
    """Whether ``segment`` is made of known modifiers only ("autosomal recessive", "X-linked")."""
    words = segment.split()
    return bool(words) and all(
        (w.islower() or _SINGLE_LETTER_PREFIX.fullmatch(w) is not None)
        and (w in _MODIFIER_WORDS or w.endswith(_MODIFIER_SUFFIXES))
        for w in words
    )


# Endings of medical common nouns ("myosclerosis", "dystonia"): enough evidence on their own.
_MEDICAL_ENDINGS = (
    "osis",
    "itis",
    "emia",
    "pathy",
    "plasia",
    "trophy",
    "oma",
    "algia",
    "uria",
    "ism",
    "ia",
    "esis",
    "ase",
    "ly",
    "phy",
    "ectasia",
)


def _lower_initial(text: str, common: frozenset[str], eponyms: frozenset[str]) -> str:
    """``text`` with its first word lower-cased when it is a known common word, not a name."""
    first, sep, rest = text.partition(" ")
    low = first.lower()
    if _lowerable(first, eponyms) and (low in common or low.endswith(_MEDICAL_ENDINGS)):
        return first.lower() + sep + rest
    return text


def _uninvert(name: str, common: frozenset[str], eponyms: frozenset[str]) -> str:
    """An inverted OMIM title in reading order; unchanged when it is a list or has one part.

    Each part after the first is a number or designation ("5", "type IE"), a phrase that follows
    the name ("with ptosis", "due to ..."), a modifier to put in front ("autosomal recessive"),
    an "X of" phrase to put in front ("combined deficiency of"), a named kind ("Spahr type") or
    something else. Anything else means nothing is moved: the descriptive parts then go, in their
    order, into a parenthesis after the name, which is readable and cannot misplace a word.
    """
    segments = _split_top(name)
    if len(segments) < 2 or any(s.startswith(("and ", "or ")) for s in segments[1:]):
        return name  # "Deafness, cataract, ..., and polyneuropathy" is a list, not inverted
    head = segments[0]
    modifiers: list[str] = []
    of_phrase = ""
    trailer: list[str] = []
    aside: list[str] = []
    described: list[str] = []  # every descriptive part as written, for the fallback
    unplaced = False
    for segment in segments[1:]:
        words = segment.split()
        if _NUMBER.fullmatch(segment) or _DESIGNATION.fullmatch(segment):
            trailer.append(segment)
            continue
        if _PHRASE_START.match(segment):
            trailer.append(segment)  # "..., due to red cell leak", "..., of infancy"
            continue
        described.append(segment)
        if not of_phrase and not modifiers and _ENDS_IN_PREPOSITION.fullmatch(segment):
            of_phrase = segment  # "Amobarbital, deficient N-hydroxylation of"
        elif len(words) > 1 and _NUMBER.fullmatch(words[-1]) and _is_modifier(" ".join(words[:-1])):
            modifiers.append(" ".join(words[:-1]))
            trailer.append(words[-1])  # "..., autosomal recessive 5"
        elif _is_modifier(segment):
            modifiers.append(segment)
        else:
            aside.append(segment)
            unplaced = unplaced or _NAMED_KIND.fullmatch(segment) is None
    if unplaced:
        modifiers, of_phrase, aside = [], "", described
        trailer = [s for s in segments[1:] if s not in described]
    text = head
    if modifiers or of_phrase:
        front = " ".join([*([of_phrase] if of_phrase else []), *reversed(modifiers)])
        text = f"{front} {_lower_initial(head, common, eponyms)}"
    for i, part in enumerate(trailer):
        # "type B, 6" keeps its comma: the number belongs to the designation
        after_type = i > 0 and _DESIGNATION.fullmatch(trailer[i - 1]) is not None
        text += (", " if after_type and _NUMBER.fullmatch(part) else " ") + part
    if aside:
        text += f" ({', '.join(aside)})"
    return text[:1].upper() + text[1:]


def _tidy(name: str) -> str:
    """Spacing and known typos: outer and repeated blanks, " ," and ",x", "46,xy"."""
    text = " ".join(name.split())  # also drops no-break spaces and tabs
    for wrong, right in KNOWN_TYPOS.items():
        if wrong in text:
            text = text.replace(wrong, right)
    if "," not in text:
        return text
    text = _SPACE_BEFORE_COMMA.sub(",", text)
    text = _NO_SPACE_AFTER_COMMA.sub(", ", text)
    return _KARYOTYPE.sub(lambda m: f"{m.group(1)},{m.group(2).upper()}", text)


def disease_name(
    raw: str,
    database: str,
    common: frozenset[str] = frozenset(),
    eponyms: frozenset[str] = EPONYMS,
) -> str:
    """The name of a disease as a clinician would write it (see the module's docstring).

    ``database`` is ``OMIM`` or ``ORPHA``: only OMIM titles are re-cased and un-inverted
    (Orphanet's are already in reading order). ``common`` holds the words known to be common
    words (:func:`lower_words`); without it no word loses its capital except long all-caps ones.
    """
    text = _tidy(raw)
    if database == "OMIM":
        letters = [c for c in text if c.isalpha()]
        if len(letters) > 3 and all(c.isupper() for c in letters):
            text = _fix_capitals(text, common, eponyms)
        if ", " in text:
            text = _uninvert(text, common, eponyms)
    # Inside a sentence a disease name reads in lower case ("a patient with primary ciliary
    # dyskinesia") unless it starts with a name or an acronym; sentences and questions are
    # capitalised where they begin, whatever the head.
    return _lower_initial(text[:1].upper() + text[1:], common, eponyms)


def non_disease(raw: str, database: str) -> str | None:
    """The rule (a key of :data:`NON_DISEASE_RULES`) saying an entry is no disease, or None."""
    if database != "OMIM":
        return None
    text = _tidy(raw)
    for reason, pattern in NON_DISEASE_RULES:
        if pattern.search(text):
            return reason
    return None
