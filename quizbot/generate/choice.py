"""Multiple-choice questions in the EBMQA style: every question also offers "I do not know".

Two subtypes:

* ``semantic``: "Which of the following drugs can be used to treat {head}? Select all that
  apply." One question per (head, relation) among the facts asked. The correct options are the
  asked fact's tail plus, up to ``max_correct``, other tails the KB lists for that head and
  relation (chosen by seed); the distractors are safe false tails of the *same* relation, ranked
  by :mod:`quizbot.generate.candidates` exactly as negatives are (no true tail by any name or at
  any level; close neighbours' and common tails last; by default a plausible one, from the head's
  own organ systems, first; the tier of each is recorded in ``meta["distractor_tiers"]``). The
  wording is the same whether one option or several are right, so it gives nothing away; no
  option is named in the stem (a correct tail the stem gives away is not used). Too few safe
  distractors and the question is skipped.

* ``frequency``: "How often does {head} present with {tail}?" for ``has_phenotype`` facts with an
  HPO frequency, answered by one of the five HPO frequency bands (always offered in the same
  order). Facts whose frequency cannot be mapped to a band, or whose KB annotations disagree on
  the band, are skipped, and so are facts whose frequency rests on too few patients (see
  :func:`enough_patients`); the same rule decides whether a phenotype question may call its
  answers *frequent* features.

Everything random is drawn from a :class:`random.Random` seeded by sha256 of (seed, KB, relation,
head), so the same inputs give the same questions with the same option order, byte for byte, and
a question does not depend on which other facts are asked alongside it.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from quizbot.generate.candidates import DEFAULT_DIFFICULTY, CandidatePool, Difficulty
from quizbot.items import I_DO_NOT_KNOW, ChoiceItem
from quizbot.kb.knowledge import Knowledge
from quizbot.kb.model import KnowledgeBaseData, Triplet, point_id

__all__ = [
    "CHOICE_MAX_CORRECT",
    "CHOICE_OPTIONS",
    "FREQUENCY_BANDS",
    "I_DO_NOT_KNOW",
    "MIN_PATIENTS",
    "SKIP_DISTRACTORS",
    "SKIP_PLAUSIBLE",
    "SKIP_STEM",
    "SUBTYPES",
    "choice_questions",
    "enough_patients",
    "frequency_band",
    "multi_answer_questions",
    "question_text",
    "stem_names",
]

SUBTYPES = ("semantic", "frequency")
# Multiple choice (issue 24: no tells by shape): 5 or 6 options besides "I do not know", 1 to 4 of
# them right, the count drawn per question with weights that lean to more right options where the
# KB lists more, so that no count is the usual one (clinical-core: none above 40% of questions).
CHOICE_OPTIONS = (5, 6)
CHOICE_MAX_CORRECT = 4
_COUNT_WEIGHTS: Mapping[int, tuple[float, ...]] = {
    1: (1.0,),
    2: (0.3, 0.7),
    3: (0.1, 0.3, 0.6),
    4: (0.05, 0.1, 0.2, 0.65),
}
# Why a semantic question was not generated (counted in ``skipped``).
SKIP_STEM = "every right option is named in the stem"
SKIP_DISTRACTORS = "too few safe distractors"
SKIP_PLAUSIBLE = "no plausible distractor"
# Multi-answer questions (EBMQA semantic): up to this many right options among MULTI_OPTIONS.
MULTI_MAX_CORRECT = 5
MULTI_OPTIONS = 8
PHENOTYPE_RELATION = "has_phenotype"

# The HPO frequency bands, in the fixed order they are offered.
FREQUENCY_BANDS: tuple[str, ...] = (
    "Very rare (1-4%)",
    "Occasional (5-29%)",
    "Frequent (30-79%)",
    "Very frequent (80-99%)",
    "Obligate (100%)",
)
_VERY_RARE, _OCCASIONAL, _FREQUENT, _VERY_FREQUENT, _OBLIGATE = FREQUENCY_BANDS
# Bands for which "a frequent feature" is a fair description.
_FREQUENT_BANDS = frozenset({_FREQUENT, _VERY_FREQUENT, _OBLIGATE})
# A ratio frequency ("7/9") is asked about, or called frequent, only when it counts at least this
# many patients: "1/1" would otherwise be keyed "Obligate (100%)". An HPO frequency term
# (HP:0040280-HP:0040285) is a curated judgement and counts as enough; a bare percentage or
# fraction gives no count and does not.
MIN_PATIENTS = 5

_BY_TERM: Mapping[str, str] = {
    "HP:0040280": _OBLIGATE,
    "HP:0040281": _VERY_FREQUENT,
    "HP:0040282": _FREQUENT,
    "HP:0040283": _OCCASIONAL,
    "HP:0040284": _VERY_RARE,
}
_BY_LABEL: Mapping[str, str] = {
    "obligate": _OBLIGATE,
    "very frequent": _VERY_FREQUENT,
    "frequent": _FREQUENT,
    "occasional": _OCCASIONAL,
    "very rare": _VERY_RARE,
}
_BY_RANGE: Mapping[str, str] = {
    "100%": _OBLIGATE,
    "80-99%": _VERY_FREQUENT,
    "30-79%": _FREQUENT,
    "5-29%": _OCCASIONAL,
    "1-4%": _VERY_RARE,
}
_RATIO = re.compile(r"(\d+)\s*/\s*(\d+)")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
_DASHES = re.compile(r"\s*[-\u2010-\u2015]\s*")

_LETTERS = "ABCDEFGHIJ"  # ChoiceItem.text letters its options with these


@dataclass(frozen=True, slots=True)
class _Template:
    singular: str
    plural: str


_TEMPLATES: Mapping[str, _Template] = {
    "has_symptom": _Template(
        "Which of the following is a recognised clinical feature of {head}?",
        "Which of the following are recognised clinical features of {head}? Select all that apply.",
    ),
    "affects_site": _Template(
        "Which of the following sites can {head} affect?",
        "Which of the following sites can {head} affect? Select all that apply.",
    ),
    "treated_with_drug": _Template(
        "Which of the following drugs can be used to treat {head}?",
        "Which of the following drugs can be used to treat {head}? Select all that apply.",
    ),
    "treated_with_procedure": _Template(
        "Which of the following procedures can be used to manage {head}?",
        "Which of the following procedures can be used to manage {head}? Select all that apply.",
    ),
    "has_complication": _Template(
        "Which of the following is a recognised complication of {head}?",
        "Which of the following are recognised complications of {head}? Select all that apply.",
    ),
    "investigated_with": _Template(
        "Which of the following is a standard investigation for {head}?",
        "Which of the following are standard investigations for {head}? Select all that apply.",
    ),
    "typical_age_group": _Template(
        "In which of the following age groups does {head} typically present?",
        "In which of the following age groups does {head} typically present? "
        "Select all that apply.",
    ),
    "treated_with_drug_class": _Template(
        "Which of the following drug classes can be used to treat {head}?",
        "Which of the following drug classes can be used to treat {head}? Select all that apply.",
    ),
    "prevents": _Template(
        "Which of the following can {head} help to prevent?",
        "Which of the following can {head} help to prevent? Select all that apply.",
    ),
    "has_phenotype": _Template(
        "Which of the following is a frequent feature of {head}?",
        "Which of the following are frequent features of {head}? Select all that apply.",
    ),
    "associated_gene": _Template(
        "Which of the following genes is associated with {head}?",
        "Which of the following genes are associated with {head}? Select all that apply.",
    ),
    "has_inheritance": _Template(
        "What is a recognised mode of inheritance of {head}?",
        "Which of the following are recognised modes of inheritance of {head}? "
        "Select all that apply.",
    ),
}
# has_phenotype when some correct phenotype is not known to be frequent (< 30 % or unannotated).
_PHENOTYPE_ANY = _Template(
    "Which of the following is a recognised feature of {head}?",
    "Which of the following are recognised features of {head}? Select all that apply.",
)
_FALLBACK = _Template(
    "Which of the following is linked to {head} by the relation '{label}'?",
    "Which of the following are linked to {head} by the relation '{label}'? Select all that apply.",
)
_FREQUENCY_QUESTION = "How often does {head} present with {tail}?"


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def question_text(
    relation: str, head: str, *, label: str | None = None, plural: bool = False
) -> str:
    """The semantic question for ``relation`` about ``head``; ``plural`` for several answers.

    Unknown relations (e.g. MedLAMA's) get a generic question quoting ``label`` (default: the
    relation name with spaces for underscores).
    """
    template = _TEMPLATES.get(relation)
    if template is None:
        template = _FALLBACK
    text = template.plural if plural else template.singular
    shown = label if label is not None else relation.replace("_", " ")
    return _capitalise(text.format(head=head, label=shown))


def _fraction_band(fraction: float) -> str | None:
    """The band of a fraction in [0, 1]; ``None`` for 0 (excluded) or nonsense."""
    if not 0 < fraction <= 1:
        return None
    percent = round(fraction * 100, 6)  # 3/10 as a float is 29.999...: round it first
    if percent >= 100:
        return _OBLIGATE
    if percent >= 80:
        return _VERY_FREQUENT
    if percent >= 30:
        return _FREQUENT
    if percent >= 5:
        return _OCCASIONAL
    return _VERY_RARE


def _raw_band(raw: str) -> str | None:
    """The band of an HPO frequency as written in phenotype.hpoa: a term, ``n/m`` or ``x%``."""
    raw = raw.strip()
    if raw.upper().startswith("HP:"):
        return _BY_TERM.get(raw.upper())
    ratio = _RATIO.fullmatch(raw)
    if ratio:
        num, den = int(ratio.group(1)), int(ratio.group(2))
        return _fraction_band(num / den) if den > 0 and num <= den else None
    percent = _PERCENT.fullmatch(raw)
    if percent:
        return _fraction_band(float(percent.group(1)) / 100)
    return None


def _meta_bands(meta: Mapping[str, Any]) -> set[str]:
    """Every band the frequency fields of one triplet's meta map to (several = inconsistent)."""
    bands: set[str | None] = set()
    raw = meta.get("frequency")
    if isinstance(raw, str) and raw.strip():
        bands.add(_raw_band(raw))
    label = meta.get("frequency_label")
    if isinstance(label, str) and label.strip():
        bands.add(_BY_LABEL.get(" ".join(label.split()).casefold()))
    band = meta.get("frequency_band")
    if isinstance(band, str) and band.strip():
        bands.add(_BY_RANGE.get(_DASHES.sub("-", band.strip()).replace(" ", "")))
    fraction = meta.get("frequency_fraction")
    if isinstance(fraction, int | float) and not isinstance(fraction, bool):
        bands.add(_fraction_band(float(fraction)))
    if None in bands:  # a field we cannot read: do not guess from the others
        return set()
    return {b for b in bands if b is not None}


def frequency_band(meta: Mapping[str, Any]) -> str | None:
    """The HPO frequency band (one of :data:`FREQUENCY_BANDS`) a triplet's meta describes.

    Reads ``frequency`` (an HPO term such as ``HP:0040281``, ``7/9`` or ``45%``),
    ``frequency_label`` ("Very frequent"), ``frequency_band`` ("80-99%") and
    ``frequency_fraction`` (0.78). ``None`` when there is nothing to map, a field cannot be mapped
    (e.g. "Excluded"), or the fields disagree with one another.
    """
    bands = _meta_bands(meta)
    return next(iter(bands)) if len(bands) == 1 else None


def enough_patients(meta: Mapping[str, Any]) -> tuple[bool, str | None]:
    """Whether a phenotype's frequency rests on enough patients, and the count to show with it.

    ``(True, "7/9 patients")`` for a ratio with at least :data:`MIN_PATIENTS` patients,
    ``(False, "1/1 patients")`` for fewer, ``(True, None)`` for an HPO frequency term (or, with
    no raw ``frequency``, a frequency label or band such as "Frequent"), and ``(False, None)``
    for a percentage or a bare fraction, which say nothing of how many patients were seen.
    """
    raw = meta.get("frequency")
    if not isinstance(raw, str) or not raw.strip():
        named = any(
            isinstance(meta.get(key), str) and meta[key].strip()
            for key in ("frequency_label", "frequency_band")
        )
        return named, None
    raw = raw.strip()
    if raw.upper().startswith("HP:"):
        return raw.upper() in _BY_TERM, None
    ratio = _RATIO.fullmatch(raw)
    if ratio is None:
        return False, None
    num, den = int(ratio.group(1)), int(ratio.group(2))
    return den >= MIN_PATIENTS, f"{num}/{den} patients"


def _rng(seed: str, kb: str, relation: str, head: str) -> random.Random:
    key = "\x1f".join((seed, kb, relation, head))
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def _lazy_shuffle(items: Sequence[str], rng: random.Random) -> Iterator[str]:
    """``items`` in a seeded random order, drawing only as many random numbers as items taken."""
    pool = list(items)
    for i in range(len(pool)):
        j = rng.randrange(i, len(pool))
        pool[i], pool[j] = pool[j], pool[i]
        yield pool[i]


class _Index:
    """What the generator needs to know about a KB, computed once per call."""

    def __init__(self, kb: KnowledgeBaseData, difficulty: Difficulty = DEFAULT_DIFFICULTY) -> None:
        self.kb = kb
        self.difficulty = difficulty
        self.pool = CandidatePool(kb)
        self.knowledge = self.pool.knowledge
        phenotype_meta: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
        for t in kb.triplets:
            if t.relation == PHENOTYPE_RELATION:
                phenotype_meta[(t.head, t.tail)].append(t.meta)
        self.phenotype_meta = dict(phenotype_meta)


_STEM_WORD = re.compile(r"[^\W_]+")
# Words too slight to give an option away ("of", "the").
_SLIGHT = frozenset(
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
        "by",
        "with",
        "and",
        "or",
        "from",
        "its",
        "their",
        "his",
        "her",
        "as",
        "is",
        "are",
        "be",
    ]
)


def _root_words(text: str) -> list[str]:
    """The words of ``text`` that can name something: not slight, not a number or a code of
    one or two characters ("type 2", "g1")."""
    return [
        w
        for w in _STEM_WORD.findall(text.casefold())
        if w not in _SLIGHT and len(w) > 2 and not w.isdigit()
    ]


def _same_root(one: str, two: str) -> bool:
    """One word of another's root: equal, a plural ("kidney"/"kidneys"), or the same first six
    letters ("appendicitis"/"appendix", "tonsillitis"/"tonsillectomy")."""
    if one == two:
        return True
    short, long = sorted((one, two), key=len)
    if len(short) >= 3 and long.startswith(short) and len(long) - len(short) <= 2:
        return True
    return len(short) >= 6 and one[:6] == two[:6]


def stem_names(stem: str, option: str) -> bool:
    """Whether the question's ``stem`` (its head) names ``option`` or a word of it, or the option
    a word of the stem: a shared word, plural or root ("Which sites can autosomal dominant
    polycystic kidney disease affect?" gives "kidneys" away; appendicitis gives "appendix")."""
    mine = _root_words(stem)
    return any(_same_root(a, b) for a in _root_words(option) for b in mine)


def _in_stem(knowledge: Knowledge, stem: str, option: str) -> bool:
    """Whether the question's stem (its head) names ``option`` or the option names the head, as
    an entity ("COVID-19 vaccine" gives "COVID-19" away) or by a word (:func:`stem_names`)."""
    a, b = knowledge.key(stem), knowledge.key(option)
    if bool(a and b) and (a == b or f" {b} " in f" {a} " or f" {a} " in f" {b} "):
        return True
    return stem_names(stem, option)


def _count(rng: random.Random, available: int, most: int) -> int:
    """How many right options a varied question gets: 1 to ``min(available, most)``, drawn
    with :data:`_COUNT_WEIGHTS` (more right options where more are available)."""
    top = max(1, min(available, most, max(_COUNT_WEIGHTS)))
    return rng.choices(range(1, top + 1), weights=_COUNT_WEIGHTS[top])[0]


def _distractors(
    index: _Index,
    fact: Triplet,
    correct: Sequence[str],
    need: int,
    rng: random.Random,
    skipped: Counter[str] | None = None,
) -> list[tuple[str, str]] | None:
    """``need`` safe distractors with their tiers, most preferred first, or ``None``.

    The candidates and their order come from :mod:`quizbot.generate.candidates` (the same rules
    as negatives); an option is never the same entity as another option, nor named in the stem.
    At the default difficulty, a head without groups (a drug, a vaccine) gets at least one
    distractor sharing a group with a right option: an item offering only options of other
    systems ("warfarin prevents ... diphtheria, pertussis, cervical cancer") is answered by
    elimination, so when the KB offers no such distractor the question is not made (``skipped``
    counts why).
    """
    head, relation = fact.head, fact.relation
    if need <= 0:
        return []
    knowledge = index.knowledge
    groups = knowledge.groups(head)
    if fact.group is not None and fact.group not in groups:
        groups = groups | {fact.group}
    seen = {knowledge.key(c) for c in correct}

    def fresh(tail: str) -> bool:
        return (
            tail.strip() != I_DO_NOT_KNOW
            and knowledge.key(tail) not in seen
            and not _in_stem(knowledge, head, tail)
        )

    key = rng.getrandbits(64).to_bytes(8, "big")
    # A head without groups (a drug, a vaccine) wants at least one distractor of a group of its
    # right options: "warfarin prevents ischaemic stroke" a cardiovascular or neurological one,
    # not only vaccine targets. (A disease's distractors already come first from its own system
    # once reviewed, then from other systems of the same relation: docs/knowledge.md.)
    aim: frozenset[str] = frozenset()
    if not groups and index.difficulty == DEFAULT_DIFFICULTY:
        aim = frozenset().union(*(knowledge.groups(c) for c in correct))

    def is_plausible(tail: str) -> bool:
        found = knowledge.groups(tail)
        # An infection offered for a drug that prevents no infection is there to be eliminated.
        return not aim or (bool(found & aim) and ("infectious" not in found - aim))

    chosen: list[tuple[str, str]] = []
    for candidate in index.pool.ranked(
        head, relation, key, difficulty=index.difficulty, groups=groups, accept=fresh
    ):
        folded = knowledge.key(candidate.tail)
        if folded in seen:
            continue
        seen.add(folded)
        if len(chosen) == need:  # full, but none plausible yet: this one replaces the last
            if is_plausible(candidate.tail):
                chosen[-1] = (candidate.tail, candidate.tier)
                return chosen
            continue
        chosen.append((candidate.tail, candidate.tier))
        if len(chosen) == need and any(is_plausible(c) for c, _ in chosen):
            return chosen
    if skipped is not None:
        skipped[SKIP_PLAUSIBLE if len(chosen) == need else SKIP_DISTRACTORS] += 1
    return None


def _semantic(
    index: _Index,
    fact: Triplet,
    seed: str,
    n_options: int | None,
    max_correct: int | None,
    skipped: Counter[str] | None = None,
) -> ChoiceItem | None:
    kb = index.kb
    knowledge = index.knowledge
    head, relation = fact.head, fact.relation
    rng = _rng(seed, kb.name, relation, head)
    varied = n_options is None
    options = rng.choice(CHOICE_OPTIONS) if n_options is None else n_options
    most = (CHOICE_MAX_CORRECT if varied else 2) if max_correct is None else max_correct
    most = min(most, options - 1)
    others = [t for t in index.pool.tails(head, relation) if t != fact.tail]
    usable: list[str] = []
    keys_taken: set[str] = set()
    # The asked fact leads unless the stem gives it away ("COVID-19 vaccine" -> "COVID-19").
    for tail in (fact.tail, *_lazy_shuffle(others, rng)):
        if len(usable) >= max(most, CHOICE_MAX_CORRECT):
            break
        folded = knowledge.key(tail)
        if folded not in keys_taken and not _in_stem(knowledge, head, tail):
            usable.append(tail)
            keys_taken.add(folded)
    if not usable:
        if skipped is not None:
            skipped[SKIP_STEM] += 1
        return None
    correct = usable[: _count(rng, len(usable), most) if varied else most]
    chosen = _distractors(index, fact, correct, options - len(correct), rng, skipped)
    if chosen is None:
        return None
    distractors = [tail for tail, _tier in chosen]
    content = [*correct, *distractors]
    rng.shuffle(content)
    keys = tuple(sorted(_LETTERS[content.index(c)] for c in correct))
    template_relation = relation
    patients: dict[str, str] = {}
    if relation == PHENOTYPE_RELATION:
        for tail in correct:
            enough, count = _phenotype_support(index, fact, tail)
            if count is not None:
                patients[tail] = count
            if not enough or _phenotype_band(index, fact, tail) not in _FREQUENT_BANDS:
                template_relation = ""  # not known to be frequent: ask for a recognised feature
    # Always "select all that apply": the wording must not tell how many options are right.
    if template_relation:
        known = kb.relations.get(relation)
        question = question_text(relation, head, label=known.label if known else None, plural=True)
    else:
        question = _capitalise(_PHENOTYPE_ANY.plural.format(head=head))
    meta: dict[str, Any] = {
        "correct_tails": correct,
        "distractors": distractors,
        "distractor_tiers": [tier for _tail, tier in chosen],
        "difficulty": index.difficulty,
    }
    if patients:
        meta["patients"] = patients
    if fact.group is not None:
        meta["group"] = fact.group
    return ChoiceItem(
        kb=kb.name,
        kb_version=kb.version,
        relation=relation,
        head=head,
        question=question,
        options=(*content, I_DO_NOT_KNOW),
        answer_keys=keys,
        subtype="semantic",
        knowledge_point_ids=tuple(point_id(kb.name, relation, head, c) for c in correct),
        meta=meta,
    )


def _phenotype_band(index: _Index, fact: Triplet, tail: str) -> str | None:
    """The one band every annotation of (head, has_phenotype, tail) maps to, else ``None``."""
    metas = list(index.phenotype_meta.get((fact.head, tail), []))
    if tail == fact.tail:
        metas.append(fact.meta)
    bands: set[str] = set()
    for meta in metas:
        bands |= _meta_bands(meta)
    return next(iter(bands)) if len(bands) == 1 else None


def _phenotype_support(index: _Index, fact: Triplet, tail: str) -> tuple[bool, str | None]:
    """:func:`enough_patients` for (head, has_phenotype, tail): all its annotations must agree."""
    metas = [fact.meta] if tail == fact.tail else []
    metas += index.phenotype_meta.get((fact.head, tail), [])
    verdicts = [enough_patients(meta) for meta in metas]
    counts = [count for _, count in verdicts if count is not None]
    return bool(verdicts) and all(ok for ok, _ in verdicts), counts[0] if counts else None


def _frequency(index: _Index, fact: Triplet) -> ChoiceItem | None:
    band = _phenotype_band(index, fact, fact.tail)
    enough, patients = _phenotype_support(index, fact, fact.tail)
    if band is None or not enough:
        return None
    kb = index.kb
    meta: dict[str, Any] = {"tail": fact.tail, "band": band}
    if patients is not None:
        meta["patients"] = patients
    for key in ("frequency", "frequency_label", "frequency_band", "frequency_fraction"):
        if key in fact.meta:
            meta[key] = fact.meta[key]
    return ChoiceItem(
        kb=kb.name,
        kb_version=kb.version,
        relation=fact.relation,
        head=fact.head,
        question=_capitalise(_FREQUENCY_QUESTION.format(head=fact.head, tail=fact.tail)),
        options=(*FREQUENCY_BANDS, I_DO_NOT_KNOW),
        answer_keys=(_LETTERS[FREQUENCY_BANDS.index(band)],),
        subtype="frequency",
        knowledge_point_ids=(point_id(kb.name, fact.relation, fact.head, fact.tail),),
        meta=meta,
    )


def choice_questions(
    kb: KnowledgeBaseData,
    facts: Sequence[Triplet],
    *,
    seed: int | str = 0,
    difficulty: Difficulty = DEFAULT_DIFFICULTY,
    n_options: int | None = None,
    max_correct: int | None = None,
    subtypes: Iterable[str] = SUBTYPES,
    skipped: Counter[str] | None = None,
) -> list[ChoiceItem]:
    """Multiple-choice questions about ``facts`` (triplets of ``kb``), in the order of ``facts``.

    Per fact, in order: the semantic question of its (head, relation), if that pair has not been
    asked yet, then (for ``has_phenotype`` with a mappable frequency) its frequency question.
    By default a semantic question offers 5 or 6 options (:data:`CHOICE_OPTIONS`, by seed) of
    which 1 to 4 are right (:data:`CHOICE_MAX_CORRECT`, drawn per question), plus "I do not know"
    last, so neither the number of options nor the number of right ones is a tell. A fixed
    ``n_options`` gives ``min(max_correct (default 2), tails the KB lists)`` right options. No
    option shares a word with the stem. A question is skipped rather than weakened when every
    right option is named in the stem, safe distractors are too few, or none is plausible (see
    :func:`_distractors`); ``skipped`` counts the reasons. Same inputs, same questions.
    """
    wanted = tuple(subtypes)
    unknown = sorted(set(wanted) - set(SUBTYPES))
    if unknown:
        raise ValueError(f"unknown subtypes {unknown}; expected some of {list(SUBTYPES)}")
    if n_options is not None and not 2 <= n_options <= len(_LETTERS) - 1:
        raise ValueError(f"n_options must be between 2 and {len(_LETTERS) - 1}")
    if max_correct is not None and not 1 <= max_correct < (n_options or min(CHOICE_OPTIONS)):
        raise ValueError("max_correct must be at least 1 and less than n_options")
    index = _Index(kb, difficulty)
    key = str(seed)
    asked: set[tuple[str, str]] = set()
    timed: set[tuple[str, str]] = set()
    items: list[ChoiceItem] = []
    for fact in facts:
        if "semantic" in wanted and (fact.head, fact.relation) not in asked:
            asked.add((fact.head, fact.relation))
            item = _semantic(index, fact, key, n_options, max_correct, skipped)
            if item is not None:
                items.append(item)
        if (
            "frequency" in wanted
            and fact.relation == PHENOTYPE_RELATION
            and (fact.head, fact.tail) not in timed
        ):
            timed.add((fact.head, fact.tail))
            item = _frequency(index, fact)
            if item is not None:
                items.append(item)
    return items


def multi_answer_questions(
    kb: KnowledgeBaseData,
    facts: Sequence[Triplet],
    *,
    seed: int | str = 0,
    difficulty: Difficulty = DEFAULT_DIFFICULTY,
) -> list[ChoiceItem]:
    """EBMQA-style multi-answer questions: "Which of the following ...? Select all that apply."

    One per (head, relation) among ``facts``, built as the semantic questions are, with
    :data:`MULTI_OPTIONS` options of which up to :data:`MULTI_MAX_CORRECT` are right (every
    other true tail the KB lists for the head and relation, by seed, up to that many; a head
    with one true tail gets one right option, which the wording does not give away), plus "I do
    not know" last. The false options are safe distractors of the same relation (none true of
    the head by any name or at any level: :meth:`quizbot.kb.knowledge.Knowledge.conflict` finds
    nothing). Marked ``meta["multi_answer"]``, so reports add fractional credit to exact match.
    """
    items = choice_questions(
        kb,
        facts,
        seed=seed,
        difficulty=difficulty,
        n_options=MULTI_OPTIONS,
        max_correct=MULTI_MAX_CORRECT,
        subtypes=("semantic",),
    )
    return [replace(item, meta={**item.meta, "multi_answer": True}) for item in items]
