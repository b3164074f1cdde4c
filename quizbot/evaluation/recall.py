"""Open recall: read a list out of free text and score it against the gold list (models and people).

Reading (:func:`parse_list`)
    Only the first 50,000 characters are read. NFKC, markdown emphasis (``* _ ` #``) dropped. A
    lead-in line ending in ":" ("The main symptoms are:") is dropped, and so is a lead-in before
    the first ":" of a one-line answer ("Symptoms: fever, cough"). The text is cut at a line that
    starts a new demonstration (``Question:``, ``Q:``, ``Disease:``...). Each line loses its bullet
    or number (``-``, ``*``, ``•``, ``1.``, ``2)``, ``(3)``, ``a)``) and, when it was a bullet, a
    trailing explanation after " - ", " – " or ":" ("Headache - often severe"). Lines are split
    at ``,`` ``;`` ``/`` (not before a short token that starts with a digit: "NS3/4A protease
    inhibitors", "IL-12/23 inhibitor"), "and", "or", "as well as", "plus" and "&" (except
    inside a name the scorer knows, e.g. a gold entity "nausea and vomiting"); parentheses are
    dropped from the name ("ACE inhibitors (e.g. ramipril)" is "ACE inhibitors") and kept as
    the entry's note
    (:func:`parse_entries`); each part loses leading "and", "or",
    "also", "e.g.", "such as", "including", articles, and trailing "etc" and punctuation. Empty
    parts and duplicates (same :func:`~quizbot.kb.knowledge.entity_key`) go; at most 50
    entities are kept, each at most 120 characters. An answer that is only an "I do not know"
    phrase (or "none") is an abstention.

Matching (:func:`match`, synonym- and hierarchy-aware)
    Names are compared by :func:`~quizbot.kb.knowledge.entity_key` (case, hyphens, articles, a
    plural ``s``). An answer *recalls* the gold entities it names (the gold or a synonym); if it
    names none, those it is a narrower entity of (a part or kind: "bisoprolol" recalls
    "beta-blocker"); if none, those whose name (or a narrower one's) it contains as whole words
    ("severe headache" recalls "headache"). The first of these rules that finds a gold decides,
    so an answer naming a listed part ("bronchi") does not also recall the listed whole ("lungs").
    An answer that recalls nothing but names a broader entity of a gold (up to two levels: "eye" for
    "retina", "heart failure" for "high-output cardiac failure") recalls nothing, unless it is
    the gold's own name without its clinical qualifiers
    (:data:`~quizbot.evaluation.recall_words.QUALIFIERS`: "sinusitis" for "acute sinusitis",
    "pancreatitis" for "acute pancreatitis"), which recalls it. Otherwise it is *true but not in
    the list* ("a broader name of 'high-output cardiac failure'": if the specific entity is
    true, its broader name is too, only less specific), unless a reviewer found it false or it
    is made of broad words only ("failure", "joints", "symptoms":
    :func:`~quizbot.evaluation.recall_terms.folded_too_broad`): then it is *vague*, matched but
    recalling nothing and no help to the tier floor. A gold is compared by the lexicon's
    spelling of its names and by their own words. An entry that names no gold as written is
    read again (:mod:`quizbot.evaluation.recall_rules`): an age question's entry by the ages it
    names ("children under 5"), then by its parentheses' parts and with them
    ("FLOT (fluorouracil, oxaliplatin)"), then without a trailing qualifier ("IV fluids in
    crisis"). What still names no gold is classed by the KB (true but not listed, known wrong,
    unverified: :meth:`~quizbot.evaluation.recall_context.RecallContext.classify`).

Scores (:func:`score_recall`)
    precision = (recalling + vague answers) / answers; recall = gold recalled / gold; F1 their
    harmonic mean (0 when both are 0). ROUGE-1 F1 (Google's ``rouge-score``) and BLEU-1
    (``nltk``, brevity penalty included) compare the answer's entities joined by spaces with the
    gold list joined by spaces, as MedDisKEval does for list aspects; accents are folded first.
    An abstention scores 0 everywhere. The embedding cosine (of the same two joined texts) is
    computed by the runner when the run has an embedding model
    (:func:`quizbot.evaluation.runner.recall_cosine`, litellm's embedding API) and kept in the
    stored summary ("recalled 2/4, wrong 1, cos 0.8123"), the only score that cannot be
    recomputed from the raw text alone.

Tiers (:class:`Tiers`)
    One metric (F1 by default) and two thresholds: below ``low`` "completely wrong", at or above
    ``high`` "basically correct", between "partially correct". The floor: an answer that lists
    at least one entry known true (matched, not merely vague; true but not in the list; judged
    correct) and none known wrong (no known-wrong entry, none judged incorrect) is at least
    "partially correct", whatever its metric ("hands, head" for essential tremor's sites
    "cerebellum, brain": F1 0, but every entry true). The metric itself is unchanged. Defaults
    F1 0.25 / 0.7, chosen on a hand-graded sample (tests/evaluation/data/recall_graded.jsonl,
    docs/recall.md); settable as
    ``QUIZBOT_RECALL_TIERS="metric:low:high"``. The stored outcome of a recall answer is CORRECT
    for "basically correct", INCORRECT otherwise, ABSTAINED for an abstention and UNPARSED for an
    empty answer; reports recompute every score from the stored raw text.
"""

from __future__ import annotations

import functools
import re
import unicodedata
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, cast

from quizbot.domain import Outcome
from quizbot.errors import ConfigError
from quizbot.evaluation.recall_context import RecallContext, context_for, same_name, shortened
from quizbot.evaluation.recall_rules import ages_recalled, note_parts, without_qualifier
from quizbot.evaluation.recall_terms import (
    _PAREN_RE,
    _SPLIT_RE,
    content,
    folded_qualifiers,
    folded_too_broad,
    separated,
    words,
)
from quizbot.items import RecallItem
from quizbot.kb.knowledge import entity_key

__all__ = [
    "DEFAULT_TIERS",
    "ENTRY_KINDS",
    "TIER_NAMES",
    "Entry",
    "EntryKind",
    "Match",
    "RecallScore",
    "Tiers",
    "Verdict",
    "cosine",
    "cosine_from_summary",
    "counts_from_summary",
    "has_truth_and_no_wrong",
    "how_recalled",
    "match",
    "parse_entries",
    "parse_list",
    "parse_tiers",
    "precision_of",
    "score_recall",
    "verdict_key",
]

_MAX_CHARS = 50_000
_MAX_ENTITIES = 50
_MAX_ENTITY = 120

TierName = Literal["completely wrong", "partially correct", "basically correct"]
TIER_NAMES: tuple[TierName, ...] = ("completely wrong", "partially correct", "basically correct")
TierMetric = Literal["f1", "rouge1", "bleu1", "cosine"]
_METRICS: tuple[TierMetric, ...] = ("f1", "rouge1", "bleu1", "cosine")


@dataclass(frozen=True)
class Tiers:
    """Which metric grades an answer and its two thresholds (see the module docstring)."""

    metric: TierMetric = "f1"
    low: float = 0.25
    high: float = 0.7

    def grade(self, value: float) -> TierName:
        """The tier of a metric value."""
        if value >= self.high:
            return "basically correct"
        if value < self.low:
            return "completely wrong"
        return "partially correct"

    def as_json(self) -> dict[str, Any]:
        """For a run's stored config and reports."""
        return {"metric": self.metric, "low": self.low, "high": self.high}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Tiers:
        """Back from :meth:`as_json` (defaults for what is missing)."""
        if not data:
            return DEFAULT_TIERS
        metric = str(data.get("metric", "f1"))
        return _checked(metric, float(data.get("low", 0.25)), float(data.get("high", 0.7)))


DEFAULT_TIERS = Tiers()


def _checked(metric: str, low: float, high: float) -> Tiers:
    if metric not in _METRICS:
        raise ConfigError(
            f"unknown recall tier metric {metric!r}", hint=f"one of {', '.join(_METRICS)}"
        )
    if not 0.0 <= low <= high <= 1.0:
        raise ConfigError(
            f"recall tier thresholds must satisfy 0 <= low <= high <= 1, got {low} and {high}"
        )
    return Tiers(metric, low, high)


def parse_tiers(spec: str | None) -> Tiers:
    """``"metric:low:high"`` (e.g. ``"f1:0.25:0.7"``) as :class:`Tiers`; ``None`` gives defaults."""
    if spec is None or not spec.strip():
        return DEFAULT_TIERS
    parts = spec.strip().split(":")
    try:
        if len(parts) != 3:
            raise ValueError
        return _checked(parts[0].strip().lower(), float(parts[1]), float(parts[2]))
    except ValueError:
        raise ConfigError(
            f"recall tiers {spec!r} are not metric:low:high", hint='e.g. "f1:0.25:0.7"'
        ) from None


# ---------------------------------------------------------------------------------------------
# Reading a list

_IDK_ONLY_RE = re.compile(
    r"(?:i\s+(?:really\s+)?(?:do\s+not|don't|dont)\s+know|not\s+sure|unsure|unknown|no\s+idea"
    r"|idk|none|nothing|n/?a|i\s+(?:cannot|can't|can\s+not)\s+(?:say|answer|list\s+(?:any|them)))"
    r"(?:[\s,.;:!-].*)?",
    re.IGNORECASE | re.DOTALL,
)
_MARKER_RE = re.compile(
    r"\s*(?:question|q|disease|example|input|aspect|problem|answer\s+\d+)\s*\d*\s*[:.)]",
    re.IGNORECASE,
)
_BULLET_RE = re.compile(r"^\s*(?:[-*+•·▪◦‣–—]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)](?=\s))\s*")
_EXPLANATION_RE = re.compile(r"\s+[-–—]\s+|:\s+|:$")
_INLINE_NUMBER_RE = re.compile(r"(?:^|\s)(?:\(\d{1,2}\)|\d{1,2}[.)])(?=\s)")
_LEADING_RE = re.compile(
    r"^(?:(?:and|or|also|plus|e\.?g\.?|i\.?e\.?|such\s+as|including|include|includes|like"
    r"|especially|notably|mainly|mostly|typically|usually|the|a|an)\b[\s,:]*)+",
    re.IGNORECASE,
)
_TRAILING_RE = re.compile(r"(?:[\s,;:]*\b(?:etc|and\s+so\s+on|among\s+others)\b)?[\s.,;:!?]*$")
_EMPHASIS_RE = re.compile(r"[*_`#]+")


def _lines(text: str) -> list[str]:
    cleaned = unicodedata.normalize("NFKC", text[:_MAX_CHARS]).replace("\r", "\n")
    cleaned = _EMPHASIS_RE.sub(" ", cleaned)
    lines: list[str] = []
    for line in cleaned.split("\n"):
        if lines and _MARKER_RE.match(line):
            break  # a base model going on to the next demonstration
        if line.strip():
            lines.append(line.strip())
    return lines


def _protect(line: str, phrases: Sequence[re.Pattern[str]], kept: list[str]) -> str:
    """Hide known names that contain separators ("nausea and vomiting") from the splitter;
    ``kept`` collects them for :func:`_restore`."""

    def hide(m: re.Match[str]) -> str:
        kept.append(m.group())
        return f"\x00{len(kept) - 1}\x00"

    for pattern in phrases:
        line = pattern.sub(hide, line)
    return line


def _restore(part: str, kept: Sequence[str]) -> str:
    return re.sub("\x00(\\d+)\x00", lambda m: kept[int(m.group(1))], part)


_NOTE_RE = re.compile("\x01(\\d+)\x01")


def _entities(line: str, bullet: bool, kept: Sequence[str]) -> list[tuple[str, str]]:
    """The entities of one line whose known names are already hidden (:func:`_protect`), each
    with the text of its parentheses (its note, "" when none)."""
    if bullet:
        head = _EXPLANATION_RE.split(line, maxsplit=1)[0]
        line = head if head.strip() else line
    notes: list[str] = []

    def hide(m: re.Match[str]) -> str:
        notes.append(_restore(m.group()[1:-1], kept))
        return f" \x01{len(notes) - 1}\x01 "

    line = _PAREN_RE.sub(hide, _INLINE_NUMBER_RE.sub(", ", line))
    found: list[tuple[str, str]] = []
    for raw in _SPLIT_RE.split(line):
        note = ", ".join(notes[int(n)] for n in _NOTE_RE.findall(raw))
        part = _LEADING_RE.sub("", _NOTE_RE.sub(" ", raw).strip())
        part = _TRAILING_RE.sub("", part).strip(" \"'.")
        part = _restore(part, kept)
        if part:
            found.append((" ".join(part.split())[:_MAX_ENTITY], " ".join(note.split())))
    return found


def _key(name: str) -> str:
    """:func:`entity_key` after NFKC, as answers are read ("m²" and "m2" are one)."""
    return entity_key(unicodedata.normalize("NFKC", name))


def _patterns(protect: Sequence[str]) -> list[re.Pattern[str]]:
    return list(_compiled(tuple(sorted(set(separated(protect)), key=len, reverse=True))))


@functools.lru_cache(maxsize=1024)
def _compiled(names: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    if not names:
        return ()
    # One alternation, longest names first, so a line is searched once.
    alternatives = "|".join(r"\s+".join(map(re.escape, p.split())) for p in names)
    return (re.compile(r"(?<!\w)(?:" + alternatives + r")(?!\w)", re.I),)


def parse_list(text: str, protect: Sequence[str] = ()) -> tuple[list[str], bool]:
    """The entities listed in ``text`` and whether the answer is an abstention (see above).

    ``protect``: names kept whole although they contain a separator (the scorer passes the gold
    entities and their synonyms, so "nausea and vomiting" stays one entity when it is one).
    """
    entries, abstained = parse_entries(text, protect)
    return [name for name, _note in entries], abstained


# A lead-in before the list ("Symptoms: fever, cough"): up to 12 words with no list separator in
# them, then a colon that ends a word. "LH:FSH ratio" in the middle of a list is a name, not a
# lead-in, and what comes before it stays in the answer.
_LEAD_IN_RE = re.compile(r"^[^,;:]{1,200}?:(?=\s|$)")


def parse_entries(text: str, protect: Sequence[str] = ()) -> tuple[list[tuple[str, str]], bool]:
    """As :func:`parse_list`, each entity with the text of its parentheses ("" when none):
    ``("FLOT", "fluorouracil, oxaliplatin, docetaxel")``."""
    phrases = _patterns(protect)
    raw_lines = _lines(text)
    if not raw_lines:
        return [], False
    whole = " ".join(raw_lines)
    if _IDK_ONLY_RE.fullmatch(whole.strip(" .!")):
        return [], True
    # Known names are hidden before anything is cut, so "EMG: positive sharp waves" is no
    # lead-in and "insulin:C-peptide ratio" no explanation.
    kept: list[str] = []
    lines = [_protect(line, phrases, kept) for line in raw_lines]
    if len(lines) > 1 and lines[0].rstrip().endswith(":"):
        lines = lines[1:]
    elif (
        len(lines) == 1
        and (lead := _LEAD_IN_RE.match(lines[0])) is not None
        and len(lead.group().split()) <= 12
        and lines[0][lead.end() :].strip()
    ):
        lines = [lines[0][lead.end() :]]
    entities: list[tuple[str, str]] = []
    seen: set[str] = set()
    for line in lines:
        bullet = _BULLET_RE.match(line) is not None
        for entity, note in _entities(_BULLET_RE.sub("", line), bullet, kept):
            key = _key(entity)
            if key and key not in seen:
                seen.add(key)
                entities.append((entity, note))
    return entities[:_MAX_ENTITIES], False


# ---------------------------------------------------------------------------------------------
# Matching

EntryKind = Literal["matched", "extra_truth", "known_wrong", "unverified"]
ENTRY_KINDS: tuple[EntryKind, ...] = ("matched", "extra_truth", "known_wrong", "unverified")
Verdict = Literal["correct", "incorrect"]
HowRecalled = Literal[
    "name",
    "synonym",
    "other wording",
    "specimen",
    "narrower",
    "class",
    "contains",
    "shorter",
    "whole",
    "age",
    "in parentheses",
    "without its qualifier",
]
_DRUG_RELATIONS = frozenset({"treated_with_drug", "treated_with_drug_class"})


@dataclass(frozen=True)
class Entry:
    """One listed entry and what it was found to be.

    ``kind``: ``matched`` (it names a gold entity, or is a broader name of one in broad words
    only: ``why`` is the rule, ``"vague"`` for such a broader name, which recalls nothing),
    ``extra_truth`` (true but not in
    the list: ``why`` says how the KB knows), ``known_wrong`` (the KB contradicts it: ``why``
    says how) or ``unverified`` (nothing known). ``judge`` is a judge model's verdict on an
    unverified entry, when the scoring had one.
    """

    text: str
    kind: EntryKind
    why: str = ""
    golds: tuple[str, ...] = ()
    judge: Verdict | None = None

    def as_json(self) -> dict[str, Any]:
        """For reports and the practice feedback."""
        out: dict[str, Any] = {"entry": self.text, "class": self.kind, "why": self.why}
        if self.golds:
            out["recalls"] = list(self.golds)
        if self.judge is not None:
            out["judge"] = self.judge
        return out


@dataclass(frozen=True)
class Match:
    """Which gold entities an answer recalled, and what each of its entries is.

    ``correct`` are the entries that recall a gold entity, ``vague`` those broader than one
    (matched, recalling nothing), ``extra`` the true ones not in the list, ``wrong`` the known
    wrong ones and ``unverified`` the rest; ``entries`` has every entry with its class and why.
    """

    recalled: tuple[str, ...]  # gold entities, in gold order
    missed: tuple[str, ...]
    correct: tuple[str, ...]  # answers that recall a gold entity
    vague: tuple[str, ...]  # answers naming a broader entity of a gold one
    wrong: tuple[str, ...]  # answers known wrong
    how: Mapping[str, str] = field(default_factory=dict)  # answer -> gold it recalled, or "vague"
    extra: tuple[str, ...] = ()  # true of the disease, not in the list
    unverified: tuple[str, ...] = ()  # nothing known
    entries: tuple[Entry, ...] = ()

    def counts(self) -> dict[EntryKind, int]:
        """How many entries of each class."""
        found = {kind: 0 for kind in ENTRY_KINDS}
        for entry in self.entries:
            found[entry.kind] += 1
        return found

    @property
    def judged(self) -> tuple[Entry, ...]:
        """The unverified entries a judge gave a verdict on."""
        return tuple(e for e in self.entries if e.kind == "unverified" and e.judge is not None)


class _Gold(NamedTuple):
    name: str
    forms: tuple[tuple[tuple[str, ...], bool], ...]  # (folded name, is it the gold's own name)
    own: frozenset[str]  # concept keys of the gold and its synonyms (with a context)
    narrower: frozenset[tuple[str, ...]]  # folded names of its parts and kinds (the item's)
    broader: frozenset[tuple[str, ...]]  # folded names of its wholes and classes (the item's)
    above: frozenset[str]  # concept keys of its broader entities (with a context)


def _golds(item: RecallItem, context: RecallContext | None) -> list[_Gold]:
    fold = context.form if context is not None else words
    golds: list[_Gold] = []
    for gold in item.answers:
        names = [gold, *item.synonyms.get(gold, ())]
        # The lexicon's spelling of each name, and the name's own words where they differ: a
        # gold whose lexicon spelling is another name ("acute sinusitis" as "acute
        # rhinosinusitis") is still named by its own words without a qualifier ("sinusitis").
        forms = tuple(
            dict.fromkeys((f, n == gold) for n in names for f in (fold(n), words(n)) if f)
        )
        own: frozenset[str] = frozenset()
        above: frozenset[str] = frozenset()
        if context is not None:
            own = frozenset(context.key(n) for n in names)
            above = frozenset(a for k in own for a in context.ancestors(k))
        golds.append(
            _Gold(
                gold,
                forms,
                own,
                frozenset(fold(n) for n in item.narrower.get(gold, ()) if fold(n)),
                frozenset(fold(n) for n in item.broader.get(gold, ()) if fold(n)),
                above,
            )
        )
    return golds


def _identity(
    entry: str, form: tuple[str, ...], keys: frozenset[str], gold: _Gold
) -> HowRecalled | None:
    """Whether an entry names ``gold`` itself: by name, synonym, wording or specimen word."""
    for gold_form, is_own in gold.forms:
        same = same_name(form, gold_form)
        if same == "name":
            # The same words once folded: its name, unless written another way (an
            # abbreviation, another spelling): then another name of it.
            return "name" if is_own and _key(entry) == _key(gold.name) else "synonym"
        if same is not None:
            return "other wording" if same == "other wording" else "specimen"
    if keys & gold.own:
        return "synonym"
    return None


def _contains(words_of: frozenset[str], gold: _Gold) -> bool:
    """Whether an entry's words hold all of a gold name's (or a part's) words."""
    names = [f for f, _ in gold.forms] + list(gold.narrower)
    for name in names:
        needed = content(name)
        if needed and needed <= words_of and sum(len(w) for w in needed) >= 3:
            return True
    return False


def _unqualified(words_of: frozenset[str], gold: _Gold) -> bool:
    """Whether an entry's words are a gold name's without its clinical qualifiers only."""
    qualifiers = folded_qualifiers()
    for name, _ in gold.forms:
        dropped = content(name) - words_of
        if words_of < content(name) and dropped <= qualifiers and words_of - qualifiers:
            return True
    return False


def _broader_of(golds: Sequence[_Gold], form: tuple[str, ...], keys: frozenset[str]) -> list[str]:
    """The golds an entry (folded ``form``, concept ``keys``) is a broader entity of: a whole,
    kind or class the item or the KB's lineage knows ("heart failure" for "high-output cardiac
    failure")."""
    return [g.name for g in golds if form in g.broader or (keys and (keys & g.above))]


def _broader_truth(golds: Sequence[_Gold], entry: str, context: RecallContext | None) -> str | None:
    """The gold a vague entry is a broader name of, when the entry says enough to be true of the
    disease: a specific word beyond :func:`~quizbot.evaluation.recall_terms.folded_too_broad`
    ("heart failure" for "high-output cardiac failure", "scrotum" for "epididymis"). ``None``
    for a broader name of broad words only ("infection", "failure", "chronic disease",
    "symptoms": vague) or none at all. If a specific entity is true of a disease, its broader
    name is true too, only less specific: it is true but not in the list, and recalls nothing."""
    form = context.form(entry) if context is not None else words(entry)
    if not content(form) - folded_too_broad():
        return None
    keys = context.concepts(entry) if context is not None else frozenset()
    broader = _broader_of(golds, form, keys)
    return broader[0] if broader else None


def _recalls(
    item: RecallItem,
    golds: Sequence[_Gold],
    entry: str,
    context: RecallContext | None,
) -> tuple[list[str], str]:
    """The gold entities ``entry`` recalls and by which rule; ``([], "vague")`` for a broader
    name; ``([], "")`` when it names none. The first rule that finds a gold decides."""
    form = context.form(entry) if context is not None else words(entry)
    if not form:
        return [], ""
    keys = context.concepts(entry) if context is not None else frozenset()
    above = context.with_lineage(keys) - keys if context is not None else frozenset()
    found = [(g.name, how) for g in golds if (how := _identity(entry, form, keys, g)) is not None]
    if found:
        return [name for name, _ in found], found[0][1]
    narrower = [g.name for g in golds if form in g.narrower or (above & g.own)]
    if narrower:
        return narrower, "narrower"
    broader = _broader_of(golds, form, keys)
    if broader and item.relation in _DRUG_RELATIONS:
        return broader, "class"  # a drug class recalls its members the list names
    words_of = content(form)
    contained = [g.name for g in golds if _contains(words_of, g)]
    if contained:
        return contained, "contains"
    if broader:
        # A broader name that is the gold's own name without a clinical qualifier ("sinusitis"
        # for "acute sinusitis") names it; any other broader name is vague ("heart" for "heart
        # valves", "arrhythmias" for "ventricular arrhythmias").
        named = [g.name for g in golds if g.name in broader and _unqualified(words_of, g)]
        return (named, "shorter") if named else ([], "vague")
    if context is not None and item.relation in _DRUG_RELATIONS:
        # A drug class named with a modifier: "broad-spectrum antibiotics", "topical steroids".
        inside = context.contained(entry)
        classes = [g.name for g in golds if inside & g.above]
        if classes:
            return classes, "class"
    shorter = [
        (len(content(f)) - len(words_of), g.name)
        for g in golds
        for f, _ in g.forms
        if shortened(words_of, content(f))
    ]
    if shorter:
        return [min(shorter)[1]], "shorter"
    return [], ""


def _read_again(
    item: RecallItem,
    golds: Sequence[_Gold],
    entry: str,
    note: str,
    context: RecallContext | None,
) -> tuple[list[str], str, str]:
    """:func:`_recalls`, then the second readings of :mod:`recall_rules` for an entry that names
    no gold as written: its age span (age groups), its parenthetical note, the entry without
    its trailing qualifier. Also returns the name the entry is classed by when nothing is
    recalled (the entry, or the entry without its qualifier)."""
    hits, rule = _recalls(item, golds, entry, context)
    if item.relation == "typical_age_group":
        ages = [g for g in ages_recalled(f"{entry} ({note})", item.answers) if g not in hits]
        if ages:
            return [*hits, *ages], rule if hits else "age", entry
    if hits:
        return hits, rule, entry
    if note:
        from_note: list[str] = []
        parts = note_parts(note)
        for part in [*parts, " ".join([entry, *parts])] if parts else ():
            found, _ = _recalls(item, golds, part, context)
            from_note += [g for g in found if g not in from_note]
        if from_note:
            return from_note, "in parentheses", entry
    if rule == "vague":
        return [], rule, entry
    shorter = without_qualifier(entry)
    if shorter is None:
        return [], rule, entry
    hits, rule = _recalls(item, golds, shorter, context)
    return hits, ("without its qualifier" if hits else rule), shorter


def verdict_key(entry: str) -> str:
    """The key a judge's (or a student's) verdict on an entry is stored under."""
    return _key(entry)


def match(
    item: RecallItem,
    answers: Sequence[str],
    *,
    context: RecallContext | Literal["auto"] | None = "auto",
    verdicts: Mapping[str, Verdict] | None = None,
    notes: Mapping[str, str] | None = None,
) -> Match:
    """Match listed ``answers`` against ``item``'s gold list and class every entry.

    ``context``: the KB knowledge the entries are classed with (:mod:`recall_context`);
    ``"auto"`` takes the item's KB's (:func:`context_for`), ``None`` none (every entry that
    names no gold is then unverified). ``verdicts``: a judge's verdicts on entries, by
    :func:`verdict_key`, applied to unverified entries only. ``notes``: the text of an
    entry's parentheses, by entry (:func:`parse_entries`), read when the entry alone names no
    gold (:mod:`recall_rules`).
    """
    found_context = context_for(item.kb) if context == "auto" else context
    golds = _golds(item, found_context)
    recalled: set[str] = set()
    entries: list[Entry] = []
    how: dict[str, str] = {}
    for answer in answers:
        hits, rule, classed_as = _read_again(
            item, golds, answer, (notes or {}).get(answer, ""), found_context
        )
        if hits:
            recalled.update(hits)
            how[answer] = hits[0]
            entries.append(Entry(answer, "matched", rule, tuple(hits)))
            continue
        if rule == "vague":
            wider = _broader_truth(golds, classed_as, found_context)
            if wider is not None and not (
                found_context is not None
                and found_context.reviewed_false(item.head, item.relation, classed_as)
            ):
                # A broader name of a gold: true, less specific (no recall; counts for the
                # floor). One a reviewer found false, or of broad words only, stays vague.
                entries.append(Entry(answer, "extra_truth", f"a broader name of {wider!r}"))
                continue
            how[answer] = "vague"
            entries.append(Entry(answer, "matched", "vague"))
            continue
        classed = None
        if found_context is not None:
            # The entry as written first (a reviewed-false name keeps its verdict), then the
            # entry without its qualifier.
            for name in dict.fromkeys((answer, classed_as)):
                classed = classed or found_context.classify(item.head, item.relation, name)
        if classed is not None:
            kind, why = classed
            entries.append(Entry(answer, cast(EntryKind, kind), why))
            continue
        verdict = (verdicts or {}).get(verdict_key(answer))
        entries.append(Entry(answer, "unverified", "", judge=verdict))

    def of(kind: EntryKind, vague: bool | None = None) -> tuple[str, ...]:
        return tuple(
            e.text
            for e in entries
            if e.kind == kind and (vague is None or (e.why == "vague") == vague)
        )

    return Match(
        recalled=tuple(g for g in item.answers if g in recalled),
        missed=tuple(g for g in item.answers if g not in recalled),
        correct=of("matched", vague=False),
        vague=of("matched", vague=True),
        wrong=of("known_wrong"),
        how=how,
        extra=of("extra_truth"),
        unverified=of("unverified"),
        entries=tuple(entries),
    )


def how_recalled(item: RecallItem, answer: str, gold: str) -> HowRecalled | None:
    """Which rule of :func:`match` lets ``answer`` recall ``gold`` (for feedback to a person).

    ``"name"``: it names the gold entity; ``"synonym"``: one of its other names;
    ``"other wording"``: the same words in another order or spelling ("lump in the testicle");
    ``"specimen"``: the same test without (or with) its specimen word ("alkaline phosphatase");
    ``"narrower"``: a part, kind or member of it; ``"class"``: a drug class of it ("NSAIDs" for
    ibuprofen); ``"contains"``: its name (or a narrower one's) is inside the answer;
    ``"shorter"``: a shorter name of it ("erythema" for "spreading erythema"). ``None`` when
    ``answer`` does not recall ``gold``.
    """
    entry = match(item, [answer]).entries[0]
    if gold not in entry.golds or entry.kind != "matched":
        return None
    return cast(HowRecalled, entry.why)


# ---------------------------------------------------------------------------------------------
# Scores


@functools.cache
def _rouge() -> Any:
    """Google's ROUGE scorer, imported on first use (nltk takes seconds to import)."""
    from rouge_score import rouge_scorer  # noqa: PLC0415 - only recall scoring needs it

    return rouge_scorer.RougeScorer(["rouge1"], use_stemmer=False)


def _tokens(text: str) -> list[str]:
    from rouge_score import tokenize  # noqa: PLC0415

    return list(tokenize.tokenize(_fold(text), None))


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def rouge1(answer: str, reference: str) -> float:
    """ROUGE-1 F1 of ``answer`` against ``reference`` (``rouge-score``; accents folded)."""
    return float(_rouge().score(_fold(reference), _fold(answer))["rouge1"].fmeasure)


def bleu1(answer: str, reference: str) -> float:
    """BLEU-1 of ``answer`` against ``reference`` (``nltk``, brevity penalty; accents folded)."""
    from nltk.translate.bleu_score import sentence_bleu  # noqa: PLC0415

    hypothesis = _tokens(answer)
    ref = _tokens(reference)
    if not hypothesis or not ref:
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk warns when nothing overlaps; the score is 0
        return float(sentence_bleu([ref], hypothesis, weights=(1.0,)))


@dataclass(frozen=True)
class RecallScore:
    """One recall answer read and scored."""

    answers: tuple[str, ...]
    abstained: bool
    match: Match
    precision: float
    recall: float
    f1: float
    rouge1: float
    bleu1: float
    cosine: float | None
    tier: TierName
    outcome: Outcome
    reason: str

    def metric(self, name: str) -> float | None:
        """A metric by name: f1, precision, recall, rouge1, bleu1 or cosine."""
        value = getattr(self, name)
        return None if value is None else float(value)

    @property
    def summary(self) -> str:
        """What the answer was read as, at most 50 characters (``response.parsed_answer``)."""
        if self.abstained:
            return "idk"
        m = self.match
        # A judge's verdict counts: judged incorrect is wrong, judged correct no longer unverified.
        wrong = len(m.wrong) + sum(e.judge == "incorrect" for e in m.judged)
        open_ = len(m.unverified) - len(m.judged)
        text = f"recalled {len(m.recalled)}/{len(m.recalled) + len(m.missed)}, wrong {wrong}"
        tail = "" if self.cosine is None else f", cos {self.cosine:.4f}"
        unverified = f", unverified {open_}" if open_ else ""
        if len(text) + len(unverified) + len(tail) <= 50:
            text += unverified
        return text + tail

    def as_json(self) -> dict[str, Any]:
        """Everything, for reports and the practice feedback."""
        m = self.match
        return {
            "answers": list(self.answers),
            "abstained": self.abstained,
            "recalled": list(m.recalled),
            "missed": list(m.missed),
            "vague": list(m.vague),
            "wrong": list(m.wrong),
            "extra_truths": list(m.extra),
            "unverified": list(m.unverified),
            "classes": dict(m.counts()),
            "entries": [e.as_json() for e in m.entries],
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "rouge1": self.rouge1,
            "bleu1": self.bleu1,
            "cosine": self.cosine,
            "tier": self.tier,
            "outcome": self.outcome.value,
        }


_COSINE_RE = re.compile(r", cos (-?\d+\.\d+)$")


def cosine_from_summary(summary: str | None) -> float | None:
    """The cosine a stored summary (``response.parsed_answer``) carries, if any."""
    found = _COSINE_RE.search(summary or "")
    return float(found.group(1)) if found else None


_COUNTS_RE = re.compile(r"^recalled (\d+)/(\d+), wrong (\d+)")


def counts_from_summary(summary: str | None) -> tuple[int, int, int] | None:
    """(recalled, gold, wrong) read back from a stored summary (``response.parsed_answer``, see
    :attr:`RecallScore.summary`): ``(0, 0, 0)`` for an abstention ("idk"), ``None`` when the
    text is no recall summary."""
    if summary == "idk":
        return 0, 0, 0
    found = _COUNTS_RE.match(summary or "")
    if found is None:
        return None
    recalled, gold, wrong = (int(g) for g in found.groups())
    return recalled, gold, wrong


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors (0 when either is all zeros)."""
    if len(a) != len(b):
        raise ValueError(f"vectors of different lengths: {len(a)} and {len(b)}")
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = (sum(x * x for x in a) ** 0.5) * (sum(y * y for y in b) ** 0.5)
    return dot / norm if norm else 0.0


def _short(names: Sequence[str], room: int) -> str:
    text = ", ".join(names)
    return text if len(text) <= room else text[: max(0, room - 3)] + "..."


def precision_of(found: Match) -> float:
    """Entries known right (matched, true but not in the list, judged correct) over entries
    whose truth is known (those and the known wrong and judged incorrect ones); unverified
    entries without a verdict count on neither side. 0 when no entry's truth is known."""
    right = len(found.correct) + len(found.vague) + len(found.extra)
    judged = found.judged
    right += sum(e.judge == "correct" for e in judged)
    known = right + len(found.wrong) + sum(e.judge == "incorrect" for e in judged)
    return right / known if known else 0.0


def has_truth_and_no_wrong(found: Match) -> bool:
    """Whether an answer lists something known true (an entry that recalls a gold, a truth not
    in the list, a judge's *correct*) and nothing known wrong (no known-wrong entry, no judge's
    *incorrect*): the tier floor "partially correct" (see the module docstring). A vague entry
    ("eye" for "retina") recalls nothing and says nothing specific: it does not count."""
    judged = found.judged
    if found.wrong or any(e.judge == "incorrect" for e in judged):
        return False
    return bool(found.correct or found.extra or any(e.judge == "correct" for e in judged))


def score_recall(
    item: RecallItem,
    text: str,
    *,
    tiers: Tiers = DEFAULT_TIERS,
    cosine: float | None = None,
    context: RecallContext | Literal["auto"] | None = "auto",
    verdicts: Mapping[str, Verdict] | None = None,
) -> RecallScore:
    """Read ``text`` as a list and score it against ``item`` (total: never raises on text).

    ``context`` and ``verdicts`` as for :func:`match`: without verdicts (no judge) the score is
    a function of the item and the text alone, offline and deterministic.
    """
    known = [n for g in item.answers for n in (g, *item.synonyms.get(g, ()))]
    found_context = context_for(item.kb) if context == "auto" else context
    if found_context is not None:
        known += found_context.separated_names
    listed, abstained = parse_entries(text or "", known)
    answers = [name for name, _note in listed]
    found = match(
        item,
        answers,
        context=found_context,
        verdicts=verdicts,
        notes={name: note for name, note in listed if note},
    )
    n_answers = len(answers)
    precision = precision_of(found) if n_answers else 0.0
    recall = len(found.recalled) / len(item.answers) if item.answers else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    reference = " ".join(item.answers)
    joined = " ".join(answers)
    r1 = rouge1(joined, reference) if answers else 0.0
    b1 = bleu1(joined, reference) if answers else 0.0
    values = {"f1": f1, "rouge1": r1, "bleu1": b1, "cosine": cosine}
    graded = values[tiers.metric]
    tier = tiers.grade(graded if graded is not None else f1)
    if tier == "completely wrong" and has_truth_and_no_wrong(found):
        tier = "partially correct"  # the floor: something true, nothing known wrong
    if abstained:
        outcome, reason = Outcome.ABSTAINED, "abstained"
        tier = "completely wrong"
    elif not answers:
        outcome, reason = Outcome.UNPARSED, "no list found"
        tier = "completely wrong"
    else:
        outcome = Outcome.CORRECT if tier == "basically correct" else Outcome.INCORRECT
        reason = (
            f"{tier}: F1 {f1:.2f} (P {precision:.2f}, R {recall:.2f}); "
            f"missed: {_short(found.missed, 50) or '-'}; wrong: {_short(found.wrong, 50) or '-'}"
            + (f"; unverified: {len(found.unverified)}" if found.unverified else "")
        )
    return RecallScore(
        answers=tuple(answers),
        abstained=abstained,
        match=found,
        precision=precision,
        recall=recall,
        f1=f1,
        rouge1=r1,
        bleu1=b1,
        cosine=cosine,
        tier=tier,
        outcome=outcome,
        reason=reason[:200],
    )
