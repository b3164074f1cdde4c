"""Option orders for permutation runs: seeded, distinct, the original first, keys remapped."""

from __future__ import annotations

import math
from itertools import permutations

import pytest

from quizbot.cli.evaluate import eval_cmd
from quizbot.domain import Outcome
from quizbot.evaluation.parse import parse_and_score
from quizbot.evaluation.permutations import MAX_PERMUTATIONS, option_orders, permute
from quizbot.items import I_DO_NOT_KNOW, ChoiceItem, StatementItem


def choice(options: tuple[str, ...], keys: tuple[str, ...], question: str = "Q?") -> ChoiceItem:
    return ChoiceItem(
        kb="kb", kb_version="1", relation="r", head="h", question=question,
        options=options, answer_keys=keys, subtype="semantic", knowledge_point_ids=("p",),
    )  # fmt: skip


def right_texts(item: ChoiceItem) -> set[str]:
    return {item.options["ABCDEFGHIJ".index(k)] for k in item.answer_keys}


@pytest.mark.parametrize(("n", "k"), [(2, 4), (3, 4), (3, 6), (4, 4), (5, 24), (10, 24)])
def test_orders_are_distinct_permutations_with_the_identity_first(n: int, k: int) -> None:
    orders = option_orders(n, k, seed="s", key="item")
    assert orders[0] == tuple(range(n))
    assert len(orders) == min(k, math.factorial(n))
    assert len(set(orders)) == len(orders)
    assert all(sorted(order) == list(range(n)) for order in orders)
    assert option_orders(n, k, seed="s", key="item") == orders  # seeded: the same again
    if math.factorial(n) <= k:
        assert set(orders) == set(permutations(range(n)))


def test_other_seeds_give_other_orders() -> None:
    a = option_orders(6, 4, seed="1", key="item")
    b = option_orders(6, 4, seed="2", key="item")
    assert a[0] == b[0] and a != b


def test_variants_keep_the_right_option_texts_and_idk_last() -> None:
    item = choice(("w", "x", "y", "z", I_DO_NOT_KNOW), ("B", "D"))
    plan = permute([item], k=4, idk_both=True, idk=False, seed="0")
    assert len(plan.items) == 4 * 2
    seen: set[tuple[int, bool]] = set()
    for variant in plan.items:
        assert isinstance(variant, ChoiceItem)
        info = plan.variants[variant.id]
        assert info.of == item.id
        seen.add((info.index, info.idk))
        assert right_texts(variant) == {"x", "z"}
        assert list(variant.options[:4]) == [item.options[i] for i in info.order]
        assert (variant.options[-1] == I_DO_NOT_KNOW) is info.idk
        assert len(variant.options) == (5 if info.idk else 4)
        # The parser scores the letters of the asked order.
        letters = ", ".join(variant.answer_keys)
        assert parse_and_score(letters, variant, idk_offered=False)[1] is Outcome.CORRECT
        if info.index == 0:
            assert variant.options[:4] == item.options[:4]
    assert seen == {(i, idk) for i in range(4) for idk in (True, False)}
    json_plan = plan.as_json()
    assert json_plan["k"] == 4 and json_plan["idk_both"] is True
    assert len(json_plan["variants"]) == 8


def test_without_idk_both_the_run_offers_what_it_would_offer_anyway() -> None:
    with_own = choice(("a", "b", "c", I_DO_NOT_KNOW), ("C",), "one")
    without = choice(("a", "b", "c"), ("A",), "two")
    statement_like = choice(("only", I_DO_NOT_KNOW), ("A",), "three")  # one content option
    plan = permute([with_own, without, statement_like], k=3, idk_both=False, idk=False, seed="0")
    idk_of = {v.of: v.idk for v in plan.variants.values()}
    assert idk_of == {with_own.id: True, without.id: False}
    assert statement_like in plan.items  # asked once, as it is, not in the plan
    plan = permute([without], k=2, idk_both=False, idk=True, seed="0")
    assert all(v.idk for v in plan.variants.values())
    assert all(item.options[-1] == I_DO_NOT_KNOW for item in plan.items)


def test_non_choice_items_pass_through_once() -> None:
    from quizbot.items import StatementSide
    from quizbot.transforms import Polarity, Transform

    side = StatementSide("kb", "1", "r", "h", "t", Polarity.POSITIVE, "p")
    statement = StatementItem(side, Transform.NONE, True, "h r t.", "proto")
    plan = permute([statement], k=4, idk_both=True, idk=False, seed="0")
    assert plan.items == (statement,) and plan.variants == {}


def test_the_cli_limit_is_the_module_limit() -> None:
    option = next(p for p in eval_cmd.params if p.name == "permutations")
    assert option.type.max == MAX_PERMUTATIONS  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="k must be"):
        permute([], k=MAX_PERMUTATIONS + 1, idk_both=False, idk=False, seed="0")
