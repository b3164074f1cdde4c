"""Items: the questions quizbot asks, frozen, with their answer key and full lineage.

An item's id is a versioned content hash, ``i1:<sha256 hex>`` over what defines the question
(kind, KB, relation, head, tail, polarity, transform, text, answer). Regenerating the same question
gives the same id; changing a word gives a new one. Bump ``ITEM_ID_VERSION`` if the hashed fields
change (docs/knowledge.md).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple

from orjson import OPT_SORT_KEYS, dumps

from quizbot.kb.model import point_id
from quizbot.transforms import Polarity, Transform

__all__ = [
    "GENERATOR_VERSION",
    "ITEM_ID_VERSION",
    "I_DO_NOT_KNOW",
    "AnyItem",
    "ChoiceItem",
    "RecallItem",
    "StatementEncoder",
    "StatementIds",
    "StatementItem",
    "StatementSide",
    "any_item_from_json",
    "is_idk_option",
    "item_from_json",
    "recall_item_from_json",
]

ITEM_ID_VERSION = "i1"
# g2: negatives and distractors from the knowledge model and clinical reviews (tiers recorded),
# prototypes in the recognised/standard wording, MC stems that never reveal the answer count.
GENERATOR_VERSION = "g2"

# The abstention option generated questions end with; imported ones may lack it.
I_DO_NOT_KNOW = "I do not know"
_IDK_OPTION_TEXTS = frozenset({"i do not know", "i don't know", "i dont know", "idk"})


def is_idk_option(option: str) -> bool:
    """True for an "I do not know" option (any case, straight or curly apostrophe)."""
    return " ".join(option.replace("\u2019", "'").split()).casefold() in _IDK_OPTION_TEXTS


def _hash(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


class StatementSide(NamedTuple):
    """What the eight statements about one triplet share (one side: the fact or its negative).

    Immutable; a NamedTuple because bulk generation builds one per triplet side and a frozen
    dataclass costs ten times more to construct.
    """

    kb: str
    kb_version: str
    relation: str
    head: str
    tail: str
    polarity: Polarity
    prototype_set: str
    positive_tail: str | None = None  # for negatives: the true tail it replaced
    meta: Mapping[str, Any] = MappingProxyType({})

    @property
    def knowledge_point_id(self) -> str:
        """The triplet asked about (a negative triplet is its own point)."""
        return point_id(self.kb, self.relation, self.head, self.tail)

    @property
    def fact_id(self) -> str:
        """The KB fact this side comes from (the point itself for a positive)."""
        return point_id(self.kb, self.relation, self.head, self.positive_tail or self.tail)


class StatementItem(NamedTuple):
    """A true/false statement about one triplet under one transform.

    Immutable. The eight statements of a triplet side share one :class:`StatementSide`, so an
    item is a 6-field tuple: about four times cheaper to build than a dataclass of all fields,
    which matters when a KB yields hundreds of thousands of statements. ``id`` and ``pair_id``
    are computed when asked for.
    """

    side: StatementSide
    transform: Transform
    label: bool
    text: str
    prototype: str
    rephrase_model: str | None = None

    @property
    def kb(self) -> str:
        """KB name."""
        return self.side.kb

    @property
    def kb_version(self) -> str:
        """KB version."""
        return self.side.kb_version

    @property
    def relation(self) -> str:
        """Relation."""
        return self.side.relation

    @property
    def head(self) -> str:
        """Head entity."""
        return self.side.head

    @property
    def tail(self) -> str:
        """Tail entity (the false one, for a negative)."""
        return self.side.tail

    @property
    def polarity(self) -> Polarity:
        """The fact itself or its negative."""
        return self.side.polarity

    @property
    def prototype_set(self) -> str:
        """Prototype set name and digest."""
        return self.side.prototype_set

    @property
    def knowledge_point_id(self) -> str:
        """The triplet asked about."""
        return self.side.knowledge_point_id

    @property
    def fact_id(self) -> str:
        """The KB fact it comes from."""
        return self.side.fact_id

    @property
    def positive_tail(self) -> str | None:
        """For a negative: the true tail it replaced."""
        return self.side.positive_tail

    @property
    def meta(self) -> Mapping[str, Any]:
        """Extra facts about the point (e.g. an HPO frequency)."""
        return self.side.meta

    @property
    def kind(self) -> str:
        """Always ``statement``."""
        return "statement"

    @property
    def id(self) -> str:
        """Versioned content hash."""
        side = self.side
        digest = _hash(
            "statement",
            side.kb,
            side.relation,
            side.head,
            side.tail,
            side.polarity.value,
            self.transform.value,
            self.text,
            "T" if self.label else "F",
        )
        return f"{ITEM_ID_VERSION}:{digest}"

    @property
    def pair_id(self) -> str:
        """Shared with its double-negation partner (the SDAK factual/counterfactual pair)."""
        return f"pr1:{_hash(self.side.knowledge_point_id, _PAIR_BASE[self.transform])[:24]}"

    def to_json(self) -> dict[str, Any]:
        """One JSONL record."""
        side = self.side
        return {
            "id": self.id,
            "kind": "statement",
            "kb": side.kb,
            "kb_version": side.kb_version,
            "relation": side.relation,
            "head": side.head,
            "tail": side.tail,
            "polarity": side.polarity.value,
            "transform": self.transform.value,
            "label": self.label,
            "text": self.text,
            "prototype": self.prototype,
            "prototype_set": side.prototype_set,
            "knowledge_point_id": side.knowledge_point_id,
            "fact_id": side.fact_id,
            "pair_id": self.pair_id,
            "positive_tail": side.positive_tail,
            "rephrase_model": self.rephrase_model,
            "generator_version": GENERATOR_VERSION,
            "meta": dict(side.meta),
        }


# The transform whose value names a statement's pair: itself, or its partner for a negated one.
_PAIR_BASE: dict[Transform, str] = {t: (t.partner if t.negated else t).value for t in Transform}
_PAIR_BASES = frozenset(_PAIR_BASE.values())


class StatementIds(NamedTuple):
    """The ids of one statement, as its properties give them."""

    id: str
    pair_id: str
    knowledge_point_id: str
    fact_id: str


# The fields of a statement's record that differ between the statements of one side, in the
# record's (sorted) key order; see StatementEncoder.
_PER_STATEMENT = ("id", "label", "pair_id", "prototype", "rephrase_model", "text", "transform")
_PLACEHOLDER = re.compile(
    rb'"\\u0000(' + b"|".join(k.encode() for k in _PER_STATEMENT) + rb')\\u0000"'
)
_PLACEHOLDERS = {key: f"\x00{key}\x00" for key in _PER_STATEMENT}
_PER_STATEMENT_BYTES = [key.encode() for key in _PER_STATEMENT]


class _SideState(NamedTuple):
    """What :class:`StatementEncoder` computes once per statement side."""

    side: StatementSide
    knowledge_point_id: str
    fact_id: str
    pair_ids: dict[Transform, str]
    pair_id_bytes: dict[Transform, bytes]  # the same, encoded
    digest: Any  # a sha256 object fed with the part of the id's content the side fixes
    # The record around the per-statement values, each value's quotes or "i1:" prefix folded in.
    fragments: tuple[bytes, ...] | None


class StatementEncoder:
    """Ids and JSONL records of many statements, computed fast and exactly as one at a time.

    For every statement, :meth:`encode` returns the same ids as the item's properties and the
    same bytes as ``orjson.dumps(item.to_json(), option=OPT_SORT_KEYS)`` (:meth:`record` the
    bytes alone); what the statements of one side share (the point and fact ids, the pair ids,
    the start of the id's hash and the record around the per-statement values) is computed
    once per side. Statements arrive grouped by side, as
    :func:`quizbot.generate.statements.statements` yields them, so the last side is remembered
    (by identity); any other order is still right, only slower.
    """

    def __init__(self) -> None:
        self._state: _SideState | None = None
        self._hex = ""  # the hash of the last statement :meth:`record` encoded
        self._quoted: dict[str, bytes] = {}  # prototypes and transform values, JSON-encoded

    def _side_state(self, side: StatementSide) -> _SideState:
        kp = point_id(side.kb, side.relation, side.head, side.tail)
        fact_tail = side.positive_tail or side.tail
        fact = (
            kp if fact_tail == side.tail else point_id(side.kb, side.relation, side.head, fact_tail)
        )
        by_base = {base: f"pr1:{_hash(kp, base)[:24]}" for base in _PAIR_BASES}
        pair_ids = {t: by_base[base] for t, base in _PAIR_BASE.items()}
        as_bytes = {base: pair_id.encode() for base, pair_id in by_base.items()}
        pair_id_bytes = {t: as_bytes[base] for t, base in _PAIR_BASE.items()}
        prefix = "\x1f".join(
            ("statement", side.kb, side.relation, side.head, side.tail, side.polarity)
        )
        digest = hashlib.sha256(f"{prefix}\x1f".encode())
        record = {
            "kind": "statement",
            "kb": side.kb,
            "kb_version": side.kb_version,
            "relation": side.relation,
            "head": side.head,
            "tail": side.tail,
            "polarity": side.polarity.value,
            "prototype_set": side.prototype_set,
            "knowledge_point_id": kp,
            "fact_id": fact,
            "positive_tail": side.positive_tail,
            "generator_version": GENERATOR_VERSION,
            "meta": dict(side.meta),
            **_PLACEHOLDERS,
        }
        pieces = _PLACEHOLDER.split(dumps(record, option=OPT_SORT_KEYS))
        fragments: tuple[bytes, ...] | None = None
        if pieces[1::2] == _PER_STATEMENT_BYTES:
            f = pieces[0::2]
            # id, label, pair_id, prototype, rephrase_model, text, transform: the quotes around
            # the id (with its "i1:" prefix: only its hash varies) and the pair id folded in.
            fragments = (
                f[0] + f'"{ITEM_ID_VERSION}:'.encode(),
                b'"' + f[1],
                f[2] + b'"',
                b'"' + f[3],
                *f[4:],
            )
        # else: not the expected layout: encode such statements one by one
        state = self._state = _SideState(side, kp, fact, pair_ids, pair_id_bytes, digest, fragments)
        return state

    def _quote(self, text: str) -> bytes:
        quoted = self._quoted[text] = dumps(text)
        return quoted

    def ids(self, item: StatementItem) -> StatementIds:
        """The statement's ids (``item.id``, ``item.pair_id``, ...)."""
        return self.encode(item)[0]

    def encode(self, item: StatementItem) -> tuple[StatementIds, bytes]:
        """The statement's ids and its JSONL record (without the newline)."""
        line = self.record(item)
        state = self._state
        assert state is not None  # set by record
        ids = StatementIds(
            f"{ITEM_ID_VERSION}:{self._hex}",
            state.pair_ids[item.transform],
            state.knowledge_point_id,
            state.fact_id,
        )
        return ids, line

    def record(self, item: StatementItem) -> bytes:
        """The statement's JSONL record (without the newline), as :meth:`encode` gives it."""
        state = self._state
        side = item.side
        if state is None or state.side is not side:
            state = self._side_state(side)
        transform, label, text = item.transform, item.label, item.text
        digest = state.digest.copy()
        digest.update(f"{transform}\x1f{text}\x1f{'T' if label else 'F'}".encode())
        hexed = self._hex = digest.hexdigest()
        f = state.fragments
        if f is None or type(label) is not bool:
            return dumps(item.to_json(), option=OPT_SORT_KEYS)
        model = item.rephrase_model
        quoted = self._quoted
        prototype = item.prototype
        return b"".join(
            (
                f[0], hexed.encode(),
                f[1], b"true" if label else b"false",
                f[2], state.pair_id_bytes[transform],
                f[3], quoted.get(prototype) or self._quote(prototype),
                f[4], b"null" if model is None else dumps(model),
                f[5], dumps(text),
                f[6], quoted.get(transform) or self._quote(transform),
                f[7],
            )
        )  # fmt: skip


@dataclass(frozen=True)
class ChoiceItem:
    """A multiple-choice question with one or more right options (``answer_keys``).

    Generated questions end with "I do not know"; imported ones (item banks such as
    MultifacetEval or MedQA) may have no such option: :meth:`offered_options` says what is put
    to a respondent.
    """

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
    def has_idk(self) -> bool:
        """True when one of the item's own options is "I do not know"."""
        return any(is_idk_option(option) for option in self.options)

    def offered_options(self, idk: bool) -> tuple[str, ...]:
        """The options as asked: the item's own, plus "I do not know" when ``idk`` asks for it
        and the item has none (an IDK option the item has is always offered)."""
        if idk and not self.has_idk:
            return (*self.options, I_DO_NOT_KNOW)
        return self.options

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


MAX_OPTIONS = 10  # options are lettered A-J


def _choice_shape(record: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The options and answer keys of a choice record, checked (ValueError naming the fault)."""
    options, keys = record["options"], record["answer_keys"]
    if not isinstance(options, list) or not all(isinstance(o, str) and o.strip() for o in options):
        raise ValueError("options must be a list of non-empty strings")
    if not 2 <= len(options) <= MAX_OPTIONS:
        raise ValueError(f"a choice item needs 2 to {MAX_OPTIONS} options, not {len(options)}")
    letters = "ABCDEFGHIJ"[: len(options)]
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        raise ValueError("answer_keys must be a non-empty list of option letters")
    if any(k not in letters for k in keys) or len(set(keys)) != len(keys):
        raise ValueError(f"answer_keys {keys!r} must be distinct letters among {letters}")
    return tuple(options), tuple(keys)


def item_from_json(record: Mapping[str, Any]) -> StatementItem | ChoiceItem:
    """Rebuild an item from its JSONL record (KeyError/ValueError on malformed input).

    The shape is checked, so a file quizbot did not write cannot make an item that fails later:
    a choice item needs 2-10 non-empty options and distinct answer letters among them; a
    statement's ``label`` must be a JSON boolean.
    """
    if record["kind"] == "choice":
        options, keys = _choice_shape(record)
        return ChoiceItem(
            kb=record["kb"],
            kb_version=record["kb_version"],
            relation=record["relation"],
            head=record["head"],
            question=record["question"],
            options=options,
            answer_keys=keys,
            subtype=record["subtype"],
            knowledge_point_ids=tuple(record["knowledge_point_ids"]),
            meta=record.get("meta", {}),
        )
    if record["kind"] == "recall":
        raise ValueError("a recall item where a statement or choice item is expected")
    if record["kind"] != "statement":
        raise ValueError(f"unknown item kind {record['kind']!r}")
    side = StatementSide(
        kb=record["kb"],
        kb_version=record["kb_version"],
        relation=record["relation"],
        head=record["head"],
        tail=record["tail"],
        polarity=Polarity(record["polarity"]),
        prototype_set=record["prototype_set"],
        positive_tail=record.get("positive_tail"),
        meta=record.get("meta", {}),
    )
    if not isinstance(record["label"], bool):
        raise ValueError(f"label must be true or false, not {record['label']!r}")
    return StatementItem(
        side,
        Transform(record["transform"]),
        record["label"],
        record["text"],
        record["prototype"],
        record.get("rephrase_model"),
    )


@dataclass(frozen=True)
class RecallItem:
    """An open recall question (MedDisKEval): list what you know of one aspect of a disease.

    ``answers`` is the gold list (the KB's tails of ``relation`` for ``head``). ``synonyms``,
    ``broader`` and ``narrower`` give, per gold entity, its other names and its lineage in the
    KB's hierarchy (up to two levels each way), so the scorer needs nothing but the item.
    """

    kind: ClassVar[str] = "recall"

    kb: str
    kb_version: str
    relation: str
    aspect: str  # e.g. "symptoms", "phenotypes"
    head: str
    question: str
    answers: tuple[str, ...]
    synonyms: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    broader: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    narrower: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    knowledge_point_ids: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @cached_property
    def id(self) -> str:
        """Versioned content hash (question and gold list)."""
        digest = _hash(self.kind, self.kb, self.relation, self.head, self.question, *self.answers)
        return f"{ITEM_ID_VERSION}:{digest}"

    @property
    def text(self) -> str:
        """The question as shown to a person."""
        return self.question

    def to_json(self) -> dict[str, Any]:
        """One JSONL record: the gold list under ``answers``, the question under ``question``."""
        return {
            "id": self.id,
            "kind": self.kind,
            "kb": self.kb,
            "kb_version": self.kb_version,
            "relation": self.relation,
            "aspect": self.aspect,
            "head": self.head,
            "question": self.question,
            "answers": list(self.answers),
            "synonyms": {k: list(v) for k, v in self.synonyms.items()},
            "broader": {k: list(v) for k, v in self.broader.items()},
            "narrower": {k: list(v) for k, v in self.narrower.items()},
            "knowledge_point_ids": list(self.knowledge_point_ids),
            "generator_version": GENERATOR_VERSION,
            "meta": dict(self.meta),
        }


def _name_lists(value: Any, where: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where} must be an object of name -> list of names")
    out: dict[str, tuple[str, ...]] = {}
    for key, names in value.items():
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError(f"{where}[{key!r}] must be a list of names")
        out[str(key)] = tuple(names)
    return out


def recall_item_from_json(record: Mapping[str, Any]) -> RecallItem:
    """Rebuild a recall item from its JSONL record (KeyError/ValueError on malformed input)."""
    if record["kind"] != "recall":
        raise ValueError(f"not a recall item: kind {record['kind']!r}")
    answers = record["answers"]
    if not isinstance(answers, list) or not answers:
        raise ValueError("answers must be a non-empty list of names")
    if not all(isinstance(a, str) and a.strip() for a in answers):
        raise ValueError("answers must be non-empty names")
    question = record["question"]
    if not isinstance(question, str) or not question.strip():
        raise ValueError("question must be non-empty text")
    return RecallItem(
        kb=record["kb"],
        kb_version=record.get("kb_version", ""),
        relation=record["relation"],
        aspect=record.get("aspect") or record["relation"],
        head=record["head"],
        question=question,
        answers=tuple(answers),
        synonyms=_name_lists(record.get("synonyms", {}), "synonyms"),
        broader=_name_lists(record.get("broader", {}), "broader"),
        narrower=_name_lists(record.get("narrower", {}), "narrower"),
        knowledge_point_ids=tuple(record.get("knowledge_point_ids", ())),
        meta=record.get("meta", {}),
    )


AnyItem = StatementItem | ChoiceItem | RecallItem


def any_item_from_json(record: Mapping[str, Any]) -> AnyItem:
    """Rebuild any item (statement, choice or recall) from its JSONL record."""
    if record["kind"] == "recall":
        return recall_item_from_json(record)
    return item_from_json(record)
