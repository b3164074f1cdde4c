"""What a KB knows about a listed name beyond the gold list: the context open recall is scored in.

An open recall item carries its gold list with each entity's synonyms and lineage
(:class:`~quizbot.items.RecallItem`), which is enough to tell which gold entities an answer names.
It is not enough to tell whether an entry that names none of them is *true but not in the list*,
*known wrong* or simply *unknown*. :class:`RecallContext` answers that from the KB the item came
from (its triplets under every relation, its lexicon, its extra truths and its reviewed-false
facts), through :class:`~quizbot.kb.knowledge.Knowledge`, the truth check generation uses:

* :meth:`RecallContext.form` folds a name into words (:func:`quizbot.evaluation.recall_terms.words`)
  and then rewrites every lexicon name inside it that has other names to one spelling of the
  group ("premature coronary artery disease" and "premature coronary heart disease" come out
  equal, because "coronary artery disease" and "coronary heart disease" are synonyms);
* :meth:`RecallContext.concepts` finds the KB entities a name is (same words, maybe in another
  order, or the same test without its specimen word), never a looser guess;
* :meth:`RecallContext.true_of` says why a name is true of a disease: the truth check's reasons
  (listed under another aspect, a part or kind or a whole or class of a true entity, the same drug
  class as a true drug, a generic name, an extra truth), or that it is a shortened or longer name
  of something true of it;
* :meth:`RecallContext.wrong_for` says why a name is known wrong for a disease and aspect: a
  reviewer found it false (``reviewed false``), or it is an entity the KB lists only for diseases
  of other organ systems (``another organ system's entity``; a drug: ``an unrelated drug``).
  An entity many diseases or systems share (listed for :data:`COMMON_HEADS` diseases or in
  :data:`COMMON_SYSTEMS` systems, like paracetamol or fever) is never wrong by its system alone.

:func:`context_for` gives the context of a built-in KB that is read without a database
(clinical-core), built once per process; other KBs have none, and their unmatched entries stay
unverified (docs/recall.md).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable

from quizbot.evaluation.recall_terms import (
    content,
    folded_generic,
    folded_specimens,
    plain_words,
    separated,
    split,
    words,
)
from quizbot.kb.knowledge import Knowledge
from quizbot.kb.model import KnowledgeBaseData

__all__ = [
    "COMMON_HEADS",
    "COMMON_SYSTEMS",
    "RecallContext",
    "context_for",
    "same_name",
    "shortened",
    "without_specimen",
]

COMMON_HEADS = 6
COMMON_SYSTEMS = 4
_LONGEST_PHRASE = 10
_DRUG_RELATIONS = frozenset({"treated_with_drug", "treated_with_drug_class"})


def without_specimen(words_of: frozenset[str]) -> frozenset[str]:
    """A name's content words without its specimen words ("serum", "level", "test" ...)."""
    return words_of - folded_specimens()


def same_name(a: tuple[str, ...], b: tuple[str, ...]) -> str | None:
    """Whether two folded names name the same thing: ``"name"`` (same words in the same order),
    ``"other wording"`` (the same content words, another order or other small words) or
    ``"specimen"`` (the same test, one of them without its specimen word); else ``None``."""
    if a == b:
        return "name"
    ca, cb = content(a), content(b)
    if not ca or not cb:
        return None
    if ca == cb:
        return "other wording"
    sa, sb = without_specimen(ca), without_specimen(cb)
    # One side names the specimen, the other does not: "urine culture" is no "blood culture".
    if sa and sa == sb and (sa == ca or sb == cb):
        return "specimen"
    return None


class RecallContext:
    """A KB's knowledge arranged to class the entries of open recall answers (see module doc)."""

    def __init__(self, kb: KnowledgeBaseData) -> None:
        self.kb = kb
        self.knowledge = Knowledge(kb)
        known = self.knowledge
        self._names: dict[str, str] = {}  # concept key -> a name of it (the first seen)
        groups: dict[str, set[str]] = defaultdict(set)
        for key, listed in known.names().items():
            groups[key].update(listed)
        for head in {t.head for t in kb.triplets}:
            groups[known.key(head)].add(head)
        for key, group in groups.items():
            self._names[key] = min(group)
        self._all_names = frozenset(n for group in groups.values() for n in group)
        # Phrases a lexicon synonym group spells in several ways, each rewritten to one spelling.
        # An abbreviation the lexicon gives another meaning than the general table ("SLT": the
        # laser, not speech therapy) means what the lexicon says, as a whole name.
        self._phrases: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._whole: dict[tuple[str, ...], tuple[str, ...]] = {}
        for group in groups.values():
            first = {n: words(n) for n in group}
            spelled = dict(first)
            for name in group:
                others = {first[m] for m in group if m != name}
                if first[name] != plain_words(name) and others and first[name] not in others:
                    self._whole[split(name)] = min(others, key=lambda s: (len(s), s))
                    del spelled[name]
            spellings = set(spelled.values()) - {()}
            if len(spellings) > 1:
                target = min(spellings, key=lambda s: (len(s), s))
                for spelling in spellings:
                    if spelling != target and len(spelling) <= _LONGEST_PHRASE:
                        self._phrases[spelling] = target
        self._by_form: dict[tuple[str, ...], set[str]] = defaultdict(set)
        self._by_content: dict[frozenset[str], set[str]] = defaultdict(set)
        self._by_base: dict[frozenset[str], set[str]] = defaultdict(set)
        for key, group in groups.items():
            for name in group:
                form = self.form(name)
                if not form:
                    continue
                self._by_form[form].add(key)
                words_of = content(form)
                if words_of:
                    self._by_content[words_of].add(key)
                    base = without_specimen(words_of)
                    if base:
                        self._by_base[base].add(key)
        # Which concepts' words each word occurs in, to find the names an entry contains.
        self._by_word: dict[str, list[tuple[frozenset[str], str]]] = defaultdict(list)
        generic = folded_generic()
        for words_of, keys in self._by_content.items():
            if words_of - generic:
                for key in keys:
                    self._by_word[min(words_of)].append((words_of, key))
        # Which organ systems list an entity, and how many diseases.
        self._systems: dict[str, set[str]] = defaultdict(set)
        heads_of: dict[str, set[str]] = defaultdict(set)
        self._tails: dict[str, list[str]] = defaultdict(list)
        for t in kb.triplets:
            key = known.key(t.tail)
            self._systems[key] |= self.systems(t.head)
            heads_of[key].add(t.head)
            self._tails[t.head].append(t.tail)
        for head in {t.head for t in kb.triplets}:
            self._systems[known.key(head)] |= self.systems(head)
        for head, _relation, tail in kb.extra_truths:
            self._tails[head].append(tail)
        self._n_heads = {key: len(heads) for key, heads in heads_of.items()}
        drugs = {known.key(t.tail) for t in kb.triplets if t.relation in _DRUG_RELATIONS}
        for drug, classes in kb.lexicon.classes.items():
            drugs.add(known.key(drug))
            drugs.update(known.key(c) for c in classes)
        self._drugs = frozenset(drugs)
        # Truths of an aspect beyond its list (reviews, the lexicon's also_true): "listed" by the
        # truth check like any tail, told apart from other aspects' tails in the reason.
        self._extra: dict[tuple[str, str], set[str]] = defaultdict(set)
        for head, relation, tail in kb.extra_truths:
            self._extra[(head, relation)].add(known.key(tail))
        self._reviewed_false: dict[tuple[str, str], set[str]] = defaultdict(set)
        for head, relation, tail in kb.reviewed_false:
            self._reviewed_false[(head, relation)].add(known.key(tail))

    # -- names -----------------------------------------------------------------------------

    @functools.cached_property
    def separated_names(self) -> tuple[str, ...]:
        """Every name of the KB a list reader would cut apart ("nausea and vomiting"): kept
        whole when an answer writes it."""
        return tuple(sorted(set(separated(sorted(self._all_names)))))

    @functools.lru_cache(maxsize=65536)  # noqa: B019 - one context per KB, kept for the process
    def form(self, name: str) -> tuple[str, ...]:
        """``name`` folded into words, lexicon synonyms inside it spelled one way."""
        whole = self._whole.get(split(name))
        folded = whole if whole is not None else words(name)
        if not self._phrases or not folded:
            return folded
        out: list[str] = []
        i = 0
        while i < len(folded):
            for size in range(min(_LONGEST_PHRASE, len(folded) - i), 0, -1):
                found = self._phrases.get(folded[i : i + size])
                if found is not None:
                    out.extend(found)
                    i += size
                    break
            else:
                out.append(folded[i])
                i += 1
        return tuple(out)

    def name_of(self, key: str) -> str:
        """A name of the concept ``key`` (the KB's spelling)."""
        return self._names.get(key, key)

    def key(self, name: str) -> str:
        """The concept key of ``name`` as the truth check folds it."""
        return self.knowledge.key(name)

    @functools.lru_cache(maxsize=65536)  # noqa: B019
    def concepts(self, name: str) -> frozenset[str]:
        """The KB entities ``name`` names: its key, else the same words (any order), else the same
        test with or without its specimen word. Empty when it names none."""
        direct = self.key(name)
        if direct in self._names:
            return frozenset({direct})
        form = self.form(name)
        found = self._by_form.get(form)
        if found:
            return frozenset(found)
        words_of = content(form)
        found = self._by_content.get(words_of)
        if found:
            return frozenset(found)
        base = without_specimen(words_of)
        if base and (base == words_of or base in self._by_content):
            found = self._by_base.get(base)
            if found:
                return frozenset(found)
        return frozenset()

    @functools.lru_cache(maxsize=65536)  # noqa: B019
    def contained(self, name: str) -> frozenset[str]:
        """The KB entities whose whole name is inside ``name`` ("broad-spectrum antibiotics"
        holds "antibiotic"), not counting names made only of generic words."""
        words_of = content(self.form(name))
        found: set[str] = set()
        for word in words_of:
            for needed, key in self._by_word.get(word, ()):
                if needed <= words_of:
                    found.add(key)
        return frozenset(found)

    def ancestors(self, key: str) -> frozenset[str]:
        """Every broader concept of ``key`` (wholes, kinds, classes), transitively."""
        return self.knowledge.ancestors(key)

    def is_drug(self, key: str) -> bool:
        """Whether ``key`` is a drug or a drug class of the KB."""
        return key in self._drugs or any(a in self._drugs for a in self.ancestors(key))

    # -- systems ---------------------------------------------------------------------------

    def systems(self, head: str) -> set[str]:
        """Every organ system of a disease (its facts' group and the lexicon's)."""
        return set(self.knowledge.groups(head))

    def entity_systems(self, key: str) -> frozenset[str]:
        """The organ systems of the diseases that list ``key`` (or that it is)."""
        return frozenset(self._systems.get(key, ()))

    def common(self, key: str) -> bool:
        """Whether many diseases or systems share ``key`` (never wrong by its system alone)."""
        return (
            self._n_heads.get(key, 0) >= COMMON_HEADS
            or len(self._systems.get(key, ())) >= COMMON_SYSTEMS
        )

    # -- truth -----------------------------------------------------------------------------

    def true_tails(self, head: str) -> list[str]:
        """Every tail true of ``head`` under any relation (listed and extra truths)."""
        return self._tails.get(head, [])

    def classify(self, head: str, relation: str, name: str) -> tuple[str, str] | None:
        """``("extra_truth", why)``, ``("known_wrong", why)`` or ``None`` (unverified) for an
        entry that names no gold entity. In order: listed for it under another aspect (or a
        generic name); reviewed false; true by the truth check's lineage rules; a shorter or
        longer name of something true; another organ system's entity. A reviewer's verdict
        outranks a rule that only says it *may* be true (a part of a true site)."""
        truth = self.listed_truth(head, relation, name)
        if truth is not None and truth in _FIRM_TRUTHS:
            return "extra_truth", truth
        if self.reviewed_false(head, relation, name):
            return "known_wrong", "reviewed false"
        if truth is not None:
            return "extra_truth", truth
        truth = self.true_of(head, relation, name)
        if truth is not None:
            return "extra_truth", truth
        wrong = self.wrong_for(head, relation, name)
        return ("known_wrong", wrong) if wrong is not None else None

    def reviewed_false(self, head: str, relation: str, name: str) -> bool:
        """Whether a reviewer found an entity ``name`` names false for ``head``'s ``relation``."""
        return bool(self.concepts(name) & self._reviewed_false.get((head, relation), set()))

    def listed_truth(self, head: str, relation: str, name: str) -> str | None:
        """Why the truth check calls ``name`` true of ``head`` (the entities it names), or None."""
        for key in sorted(self.concepts(name)):
            reason = self.knowledge.conflict(head, relation, self.name_of(key))
            if reason == "listed" and key in self._extra.get((head, relation), ()):
                return _REVIEWED_TRUTH
            if reason is not None:
                return _TRUTH_REASONS.get(reason, reason)
        return None

    def true_of(self, head: str, relation: str, name: str) -> str | None:
        """Why ``name`` is true of ``head`` beyond the gold list, or ``None`` (see module doc)."""
        listed = self.listed_truth(head, relation, name)
        if listed is not None:
            return listed
        form = self.form(name)
        words_of = content(form)
        if not words_of:
            return None
        for tail in self.true_tails(head):
            tail_form = self.form(tail)
            if same_name(form, tail_form):
                return "true of it in the KB"
            tail_words = content(tail_form)
            if tail_words and tail_words <= words_of:
                return f"names {tail!r}, true of it"
            if shortened(words_of, tail_words):
                return f"a shorter name of {tail!r}, true of it"
        return None

    def wrong_for(self, head: str, relation: str, name: str) -> str | None:
        """Why ``name`` is known wrong for ``head``'s ``relation``, or ``None`` (see module doc)."""
        found = self.concepts(name)
        if not found:
            return None
        reviewed = self._reviewed_false.get((head, relation), set())
        if found & reviewed:
            return "reviewed false"
        mine = self.systems(head)
        if not mine:
            return None
        for key in found:
            # A drug is judged with its whole family (every drug of its classes' classes): an
            # opioid listed only for opioid dependence is still an analgesic like NSAIDs.
            family = self.family(key) if self.is_drug(key) else frozenset({key})
            theirs = frozenset().union(*(self.entity_systems(k) for k in family))
            if not theirs or any(self.common(k) for k in family) or theirs & mine:
                return None
        key = min(found)
        return "an unrelated drug" if self.is_drug(key) else "another organ system's entity"

    @functools.lru_cache(maxsize=8192)  # noqa: B019
    def family(self, key: str) -> frozenset[str]:
        """``key``, its broader concepts and everything under them (a drug's relatives)."""
        tops = self.with_lineage([key])
        found: set[str] = set(tops)
        stack = list(tops)
        while stack:
            for child in self.knowledge.children(stack.pop()):
                if child not in found:
                    found.add(child)
                    stack.append(child)
        return frozenset(found)

    def with_lineage(self, keys: Iterable[str]) -> frozenset[str]:
        """``keys`` and all their broader concepts."""
        out: set[str] = set()
        for key in keys:
            out.add(key)
            out |= self.ancestors(key)
        return frozenset(out)


_REVIEWED_TRUTH = "an extra truth of the KB: true of it, not in the list"
_FIRM_TRUTHS = frozenset(
    {
        "listed for it under another aspect",
        _REVIEWED_TRUTH,
        "a generic name, true of nearly anything",
    }
)
_TRUTH_REASONS = {
    "listed": "listed for it under another aspect",
    "part or kind of a true tail": "a part or kind of something true of it",
    "whole or class of a true tail": "a whole or class of something true of it",
    "same drug class": "the same drug class as one of its drugs",
    "generic": "a generic name, true of nearly anything",
    "oracle": "true of it by the KB's ontology",
}


def shortened(short: frozenset[str], long: frozenset[str]) -> bool:
    """Whether ``short`` is a shorter name of ``long``: some of its content words, at least one
    of them specific (see :data:`~quizbot.evaluation.recall_words.GENERIC_WORDS`)."""
    return bool(short) and short < long and bool(short - folded_generic())


@functools.cache
def _builtin(name: str) -> RecallContext | None:
    if name == "clinical-core":
        from quizbot.kb.clinical import load_clinical_core  # noqa: PLC0415

        return RecallContext(load_clinical_core())
    return None


def context_for(kb_name: str) -> RecallContext | None:
    """The context of a KB read without a database (clinical-core), built once; else ``None``."""
    return _builtin(kb_name)
