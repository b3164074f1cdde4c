"""What is true of a head, in every name and at every level: the one truth check for generation.

A negative ("X is not a recognised feature of Y"), a multiple-choice distractor and the open-recall
items (their gold entities' synonyms and lineage, :mod:`quizbot.generate.recall`) all ask the same
question: *could this candidate be true of this head?* The KB's
triplets alone answer it badly, because they compare exact strings. :class:`Knowledge` answers it
with the KB's :class:`~quizbot.kb.model.Lexicon`:

* **names**: a candidate is the same entity as a true tail when their :func:`entity_key` match
  (case, hyphens, a leading article and a final plural ``s`` ignored) or a synonym links them;
* **hierarchy**: a candidate that is a part or a kind of a true tail (glomeruli of the kidneys), or
  a whole or a class of one (kidneys, when the glomeruli are affected), may be true;
* **drug classes and combination products**: a drug sharing a specific class with a true drug
  (lisinopril when ramipril is listed), an ingredient of a true combination product, or a product
  containing a true drug may be true;
* **generic names** ("surgical excision") are never false of anything;
* **extra truths** (authored, or an admin's override) and the KB's oracle (HPO) veto as well.

:meth:`Knowledge.conflict` returns *why* a candidate is unsafe (or ``None``): the reason is what
``quizbot kb review`` and the tests show.
"""

from __future__ import annotations

import re
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Mapping

from quizbot.kb.model import KnowledgeBaseData

__all__ = ["Knowledge", "entity_key"]

_SEPARATORS = re.compile(r"[\s\-_\u2010-\u2015/]+")
_ARTICLE = re.compile(r"^(?:the|a|an) ")
_DROP = re.compile(r"[.,;:'\"()\u2018\u2019\u201c\u201d]")
# A final "s" that is no plural: "abscess", "uterus", "stenosis". (Dropping the "s" of "mumps" or
# "ascites" is harmless: both sides of a comparison are folded the same way.)
_NOT_PLURAL = re.compile(r"(?:ss|us|is)$")
_HEAD_CACHE = 2048


def entity_key(name: str) -> str:
    """``name`` folded for comparison: case, separators, a leading article, a plain plural ``s``.

    "The Kidneys" and "kidney", "Crohn's disease" and "crohns disease", "beta-blocker" and
    "beta blockers" share a key. Only a final plain ``s`` of the last word is dropped (not of
    "ss", "us" or "is", so "abscess", "uterus" and "stenosis" keep theirs); irregular plurals
    ("bronchi") are the lexicon's business (synonyms).
    """
    text = _DROP.sub("", name.casefold())
    text = _SEPARATORS.sub(" ", text).strip()
    text = _ARTICLE.sub("", text)
    if len(text) > 3 and text.endswith("s") and not _NOT_PLURAL.search(text):
        text = text[:-1]
    return text


class Knowledge:
    """An index over one KB and its lexicon answering "could this be true of that head?"."""

    def __init__(self, kb: KnowledgeBaseData) -> None:
        self.kb = kb
        lexicon = kb.lexicon
        self._canonical: dict[str, str] = {}
        self._keys: dict[str, str] = {}
        self._link_synonyms(lexicon.synonyms)
        self._up: dict[str, set[str]] = defaultdict(set)  # entity -> direct broader entities
        self._classes: dict[str, set[str]] = defaultdict(set)  # drug -> its class keys
        for child, parents in lexicon.parents.items():
            self._up[self.key(child)].update(self.key(p) for p in parents)
        for drug, classes in lexicon.classes.items():
            keys = {self.key(c) for c in classes}
            self._classes[self.key(drug)].update(keys)
            self._up[self.key(drug)].update(keys)
        for product, parts in lexicon.components.items():
            self._up[self.key(product)].update(self.key(p) for p in parts)
        self._generic = {self.key(g) for g in lexicon.generic}
        # head -> its tails (listed and extra) and groups; folded into keys on first use, so
        # a generation that asks about 30 heads of HPO's 12,000 does not fold 140,000 names.
        self._tails_of: dict[str, list[str]] = defaultdict(list)
        self._groups: dict[str, set[str]] = defaultdict(set)
        for t in kb.triplets:
            self._tails_of[t.head].append(t.tail)
            if t.group is not None:
                self._groups[t.head].add(t.group)
        for head, _relation, tail in kb.extra_truths:
            self._tails_of[head].append(tail)
        for head, groups in lexicon.head_groups.items():
            self._groups[head].update(groups)
        self._down: dict[str, set[str]] | None = None  # built on first use (open recall)
        self._true: dict[str, frozenset[str]] = {}
        self._ancestors: dict[str, frozenset[str]] = {}
        self._head_cache: OrderedDict[str, tuple[frozenset[str], frozenset[str]]] = OrderedDict()

    def _link_synonyms(self, synonyms: Mapping[str, Iterable[str]]) -> None:
        """Union the synonym groups so every name of one entity maps to one canonical key."""
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for name, others in synonyms.items():
            a = find(entity_key(name))
            for other in others:
                b = find(entity_key(other))
                if a != b:
                    parent[max(a, b)] = min(a, b)  # the smaller key is canonical: deterministic
                    a = find(a)
        self._canonical = {x: find(x) for x in parent}

    def key(self, name: str) -> str:
        """The canonical key of ``name``: its :func:`entity_key`, through synonyms (cached)."""
        known = self._keys.get(name)
        if known is None:
            folded = entity_key(name)
            known = self._keys[name] = self._canonical.get(folded, folded)
        return known

    def same(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` name the same entity (folding and synonyms)."""
        return self.key(a) == self.key(b)

    def ancestors(self, key: str) -> frozenset[str]:
        """Every broader entity of ``key`` (wholes, kinds, classes, ingredients), transitively."""
        known = self._ancestors.get(key)
        if known is not None:
            return known
        seen: set[str] = set()
        stack = list(self._up.get(key, ()))
        while stack:
            node = stack.pop()
            if node not in seen and node != key:
                seen.add(node)
                stack.extend(self._up.get(node, ()))
        result = self._ancestors[key] = frozenset(seen)
        return result

    def parents(self, key: str) -> frozenset[str]:
        """The direct broader entities of ``key`` (wholes, kinds, classes, ingredients)."""
        return frozenset(self._up.get(key, ()))

    def children(self, key: str) -> frozenset[str]:
        """The direct narrower entities of ``key`` (the inverse of :meth:`parents`)."""
        if self._down is None:
            down: dict[str, set[str]] = defaultdict(set)
            for child, parents in self._up.items():
                for parent in parents:
                    down[parent].add(child)
            self._down = down
        return frozenset(self._down.get(key, ()))

    def names(self) -> dict[str, list[str]]:
        """Every name the lexicon and triplets know, grouped by canonical key (first seen first)."""
        lexicon = self.kb.lexicon
        grouped: dict[str, list[str]] = defaultdict(list)
        seen: set[str] = set()

        def add(name: str) -> None:
            if name not in seen:
                seen.add(name)
                grouped[self.key(name)].append(name)

        for t in self.kb.triplets:
            add(t.tail)
        for mapping in (lexicon.synonyms, lexicon.parents, lexicon.classes, lexicon.components):
            for name, others in mapping.items():
                add(name)
                for other in others:
                    add(other)
        return dict(grouped)

    def drug_classes(self, key: str) -> frozenset[str]:
        """The classes of a drug ``key``, including those of a combination product's ingredients."""
        classes = set(self._classes.get(key, ()))
        for ancestor in self.ancestors(key):
            classes.update(self._classes.get(ancestor, ()))
        return frozenset(classes)

    def groups(self, head: str) -> frozenset[str]:
        """Every group (organ system) ``head`` involves: its triplets' groups and the lexicon's."""
        return frozenset(self._groups.get(head, ()))

    def true_keys(self, head: str) -> frozenset[str]:
        """Keys of every tail true of ``head`` under any relation (listed or extra)."""
        known = self._true.get(head)
        if known is None:
            known = self._true[head] = frozenset(self.key(t) for t in self._tails_of.get(head, ()))
        return known

    def _head_sets(self, head: str) -> tuple[frozenset[str], frozenset[str]]:
        """(every ancestor of a true tail, every class of a true drug) for ``head``, cached."""
        cached = self._head_cache.get(head)
        if cached is not None:
            self._head_cache.move_to_end(head)
            return cached
        above: set[str] = set()
        classes: set[str] = set()
        for key in self.true_keys(head):
            above.update(self.ancestors(key))
            classes.update(self.drug_classes(key))
        result = (frozenset(above), frozenset(classes))
        self._head_cache[head] = result
        if len(self._head_cache) > _HEAD_CACHE:
            self._head_cache.popitem(last=False)
        return result

    def conflict(self, head: str, relation: str, candidate: str) -> str | None:
        """Why ``candidate`` may be true of ``head`` (so it is no safe negative), or ``None``.

        Reasons: ``generic``, ``listed`` (the same entity as a true tail, by name or synonym),
        ``part or kind of a true tail``, ``whole or class of a true tail``, ``same drug class``,
        ``oracle`` (the KB's oracle, e.g. HPO's hierarchy, calls it plausibly true).
        """
        key = self.key(candidate)
        if key in self._generic:
            return "generic"
        true = self.true_keys(head)
        if true:
            if key in true:
                return "listed"
            if not true.isdisjoint(self.ancestors(key)):
                return "part or kind of a true tail"
            above, classes = self._head_sets(head)
            if key in above:
                return "whole or class of a true tail"
            if classes and not classes.isdisjoint(self.drug_classes(key)):
                return "same drug class"
        oracle = self.kb.oracle
        if oracle is not None and oracle.plausibly_true(head, relation, candidate):
            return "oracle"
        return None

    def safe(self, head: str, relation: str, candidate: str) -> bool:
        """Whether ``candidate`` is known false enough of ``head`` to serve as a negative."""
        return self.conflict(head, relation, candidate) is None
