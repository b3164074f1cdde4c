"""Items: the questions quizbot asks, frozen, with their answer key and full lineage.

An item's id is a versioned content hash, ``i1:<sha256 hex>`` over what defines the question
(kind, KB, relation, head, tail, polarity, transform, text, answer). Regenerating the same question
gives the same id; changing a word gives a new one. Bump ``ITEM_ID_VERSION`` if the hashed fields
change (docs/knowledge.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple

from quizbot.generate.transforms import Polarity, Transform

__all__ = [
    "GENERATOR_VERSION",
    "ITEM_ID_VERSION",
    "ChoiceItem",
    "StatementItem",
    "item_from_json",
]

ITEM_ID_VERSION = "i1"
GENERATOR_VERSION = "g1"


_NO_META: Mapping[str, Any] = MappingProxyType({})


def _hash(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


class StatementItem(NamedTuple):
    """A true/false statement about one triplet under one transform.

    A NamedTuple rather than a dataclass: immutable like one, but about four times cheaper to
    build, which matters when a KB yields hundreds of thousands of statements. ``id`` and
    ``pair_id`` are computed when asked for.
    """

    kb: str
    kb_version: str
    relation: str
    head: str
    tail: str
    polarity: Polarity
    transform: Transform
    label: bool
    text: str
    prototype: str
    prototype_set: str
    knowledge_point_id: str  # the triplet asked about (a negative triplet has its own)
    fact_id: str  # the KB fact it comes from (same as knowledge_point_id for positives)
    positive_tail: str | None = None  # for negatives: the true tail it replaced
    rephrase_model: str | None = None
    meta: Mapping[str, Any] = _NO_META

    @property
    def kind(self) -> str:
        """Always ``statement``."""
        return "statement"

    @property
    def id(self) -> str:
        """Versioned content hash."""
        digest = _hash(
            "statement",
            self.kb,
            self.relation,
            self.head,
            self.tail,
            self.polarity.value,
            self.transform.value,
            self.text,
            "T" if self.label else "F",
        )
        return f"{ITEM_ID_VERSION}:{digest}"

    @property
    def pair_id(self) -> str:
        """Shared with its double-negation partner (the SDAK factual/counterfactual pair)."""
        base = self.transform if not self.transform.negated else self.transform.partner
        return f"pr1:{_hash(self.knowledge_point_id, base.value)[:24]}"

    def to_json(self) -> dict[str, Any]:
        """One JSONL record."""
        return {
            "id": self.id,
            "kind": "statement",
            "kb": self.kb,
            "kb_version": self.kb_version,
            "relation": self.relation,
            "head": self.head,
            "tail": self.tail,
            "polarity": self.polarity.value,
            "transform": self.transform.value,
            "label": self.label,
            "text": self.text,
            "prototype": self.prototype,
            "prototype_set": self.prototype_set,
            "knowledge_point_id": self.knowledge_point_id,
            "fact_id": self.fact_id,
            "pair_id": self.pair_id,
            "positive_tail": self.positive_tail,
            "rephrase_model": self.rephrase_model,
            "generator_version": GENERATOR_VERSION,
            "meta": dict(self.meta),
        }


@dataclass(frozen=True)
class ChoiceItem:
    """A multiple-choice question; ``options`` always end with "I do not know"."""

    kind: ClassVar[str] = "choice"

    kb: str
    kb_version: str
    relation: str
    head: str
    question: str
    options: tuple[str, ...]
    answer_keys: tuple[str, ...]  # letters, e.g. ("A", "C")
    subtype: str  # "semantic" or "frequency"
    knowledge_point_ids: tuple[str, ...]
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @cached_property
    def id(self) -> str:
        """Versioned content hash."""
        digest = _hash(
            self.kind,
            self.kb,
            self.relation,
            self.head,
            self.question,
            *self.options,
            "|".join(self.answer_keys),
        )
        return f"{ITEM_ID_VERSION}:{digest}"

    @property
    def text(self) -> str:
        """The question with lettered options, as shown to a person."""
        letters = "ABCDEFGHIJ"
        lines = [self.question, *(f"{letters[i]}. {o}" for i, o in enumerate(self.options))]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """One JSONL record."""
        return {
            "id": self.id,
            "kind": self.kind,
            "kb": self.kb,
            "kb_version": self.kb_version,
            "relation": self.relation,
            "head": self.head,
            "question": self.question,
            "options": list(self.options),
            "answer_keys": list(self.answer_keys),
            "subtype": self.subtype,
            "knowledge_point_ids": list(self.knowledge_point_ids),
            "text": self.text,
            "generator_version": GENERATOR_VERSION,
            "meta": dict(self.meta),
        }


def item_from_json(record: Mapping[str, Any]) -> StatementItem | ChoiceItem:
    """Rebuild an item from its JSONL record (KeyError/ValueError on malformed input)."""
    if record["kind"] == "choice":
        return ChoiceItem(
            kb=record["kb"],
            kb_version=record["kb_version"],
            relation=record["relation"],
            head=record["head"],
            question=record["question"],
            options=tuple(record["options"]),
            answer_keys=tuple(record["answer_keys"]),
            subtype=record["subtype"],
            knowledge_point_ids=tuple(record["knowledge_point_ids"]),
            meta=record.get("meta", {}),
        )
    if record["kind"] != "statement":
        raise ValueError(f"unknown item kind {record['kind']!r}")
    return StatementItem(
        kb=record["kb"],
        kb_version=record["kb_version"],
        relation=record["relation"],
        head=record["head"],
        tail=record["tail"],
        polarity=Polarity(record["polarity"]),
        transform=Transform(record["transform"]),
        label=bool(record["label"]),
        text=record["text"],
        prototype=record["prototype"],
        prototype_set=record["prototype_set"],
        knowledge_point_id=record["knowledge_point_id"],
        fact_id=record["fact_id"],
        positive_tail=record.get("positive_tail"),
        rephrase_model=record.get("rephrase_model"),
        meta=record.get("meta", {}),
    )
