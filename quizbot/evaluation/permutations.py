"""Permutation runs (EBMQA): each multiple-choice question asked in K option orders.

``quizbot eval --permutations K [--idk-both]`` asks every choice item in ``K`` orders of its
options; :func:`quizbot.evaluation.service.start` is the only caller of :func:`permute`.

Orders
    The content options (every option but "I do not know") are reordered; "I do not know", when
    offered, always stays last (it is the way out, not a content option). Order 0 is the item's
    own order. Orders 1..K-1 are distinct shuffles drawn from a generator seeded with the run's
    seed and the item id (:func:`option_orders`), so the same run settings ask the same orders.
    An item with fewer than K possible orders (n content options, n! < K) is asked in all n!.
"I do not know"
    Without ``idk_both`` each variant offers what the run offers without permutations (the
    item's own IDK option, or the one ``--idk`` adds). With ``idk_both`` every order is asked
    twice: once with "I do not know" (last) and once with no IDK option at all (EBMQA asks each
    question with and without it), and the run itself adds none (``idk`` is stored false).
Storage
    Each variant is an ordinary choice item of its own (content id, stored like any item), with
    its options in the asked order and its answer keys remapped to the letters they land on, so
    the parser and the scorer need nothing new. The run's config keeps the plan under
    ``"permutations"``: ``{"k", "idk_both", "variants": {variant id: {"of": original item id,
    "index": order number (0 = the original order), "idk": IDK offered, "order": original
    option numbers (0-based) in the asked order}}}``; reports group by ``"of"``
    (:mod:`quizbot.analysis.stability`). Items that are not multiple choice are asked once, as
    they are, and are not in the plan. No table changes: a resumed run reads the variants back
    from the run's stored item ids.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from quizbot.items import I_DO_NOT_KNOW, ChoiceItem, is_idk_option

__all__ = [
    "MAX_PERMUTATIONS",
    "PermutationPlan",
    "Variant",
    "option_orders",
    "permute",
    "permuted_item",
]

MAX_PERMUTATIONS = 24
_LETTERS = "ABCDEFGHIJ"
T = TypeVar("T")


@dataclass(frozen=True)
class Variant:
    """One asked version of an item: which original, which order, with or without IDK."""

    of: str  # the original item's id
    index: int  # 0 = the original order
    idk: bool  # "I do not know" offered
    order: tuple[int, ...]  # the original option numbers (0-based) in the asked order

    def as_json(self) -> dict[str, Any]:
        """The variant as stored in the run's config."""
        return {"of": self.of, "index": self.index, "idk": self.idk, "order": list(self.order)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Variant:
        """Read a variant back from a run's config."""
        return cls(str(data["of"]), int(data["index"]), bool(data["idk"]), tuple(data["order"]))


@dataclass(frozen=True)
class PermutationPlan:
    """The items to ask (variants and unpermuted items) and the plan stored with the run."""

    items: tuple[Any, ...]
    variants: dict[str, Variant]
    k: int
    idk_both: bool

    def as_json(self) -> dict[str, Any]:
        """``{"k", "idk_both", "variants": {id: variant}}`` for the run's config."""
        return {
            "k": self.k,
            "idk_both": self.idk_both,
            "variants": {item_id: v.as_json() for item_id, v in self.variants.items()},
        }


def _rng(seed: str, key: str) -> random.Random:
    digest = hashlib.sha256(f"permutations\x1f{seed}\x1f{key}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def option_orders(n: int, k: int, *, seed: str, key: str) -> list[tuple[int, ...]]:
    """Up to ``k`` distinct orders of ``n`` options, the identity first, then seeded shuffles.

    When ``n! <= k`` every order is returned (identity first, the rest in a seeded order).
    """
    if n < 1 or k < 1:
        raise ValueError(f"need n >= 1 and k >= 1, got n={n}, k={k}")
    identity = tuple(range(n))
    rng = _rng(seed, key)
    if math.factorial(n) <= k:
        rest = [p for p in itertools.permutations(range(n)) if p != identity]
        rng.shuffle(rest)
        return [identity, *rest]
    orders = [identity]
    seen = {identity}
    while len(orders) < k:
        shuffled = list(identity)
        rng.shuffle(shuffled)
        order = tuple(shuffled)
        if order not in seen:
            seen.add(order)
            orders.append(order)
    return orders


def _content(item: ChoiceItem) -> list[int]:
    """Positions of the options that are not an abstention (an IDK option that is a key stays)."""
    keys = {_LETTERS.index(key) for key in item.answer_keys}
    return [i for i, option in enumerate(item.options) if i in keys or not is_idk_option(option)]


def permuted_item(item: ChoiceItem, order: Sequence[int], *, idk: bool) -> ChoiceItem:
    """``item`` with its content options in ``order`` (original option numbers) and its keys
    remapped; "I do not know" last when ``idk``, else none. ``order`` must be a permutation of
    the item's content option numbers."""
    content = _content(item)
    if sorted(order) != content:
        raise ValueError(f"order {list(order)} is not a permutation of options {content}")
    options = [item.options[i] for i in order]
    if idk:
        own = [o for i, o in enumerate(item.options) if i not in content]
        options.append(own[0] if own else I_DO_NOT_KNOW)
    position = {original: new for new, original in enumerate(order)}
    keys = sorted(_LETTERS[position[_LETTERS.index(key)]] for key in item.answer_keys)
    return ChoiceItem(
        kb=item.kb,
        kb_version=item.kb_version,
        relation=item.relation,
        head=item.head,
        question=item.question,
        options=tuple(options),
        answer_keys=tuple(keys),
        subtype=item.subtype,
        knowledge_point_ids=item.knowledge_point_ids,
        meta=item.meta,
    )


def permute(items: Sequence[T], *, k: int, idk_both: bool, idk: bool, seed: str) -> PermutationPlan:
    """Every choice item of ``items`` in up to ``k`` orders (with and without IDK when
    ``idk_both``), other items once; see the module docstring."""
    if not 1 <= k <= MAX_PERMUTATIONS:
        raise ValueError(f"k must be 1 to {MAX_PERMUTATIONS}, not {k}")
    asked: list[Any] = []
    variants: dict[str, Variant] = {}
    for item in items:
        content = _content(item) if isinstance(item, ChoiceItem) else []
        if not isinstance(item, ChoiceItem) or len(content) < 2:
            asked.append(item)
            continue
        conditions = (True, False) if idk_both else (idk or len(content) < len(item.options),)
        for index, shuffle in enumerate(option_orders(len(content), k, seed=seed, key=item.id)):
            order = tuple(content[j] for j in shuffle)
            for with_idk in conditions:
                variant = permuted_item(item, order, idk=with_idk)
                if variant.id not in variants:
                    variants[variant.id] = Variant(item.id, index, with_idk, order)
                    asked.append(variant)
    return PermutationPlan(tuple(asked), variants, k, idk_both)
