"""Numeric (EBMQA) questions from HPO phenotype frequencies: cut points at median ± one MAD.

The cut points are recomputed here independently (numpy, our own parsing of the ratios) and
compared with what the generator put on its items; a small knowledge base gives hand-computed
keys.
"""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np
import pytest

from quizbot.generate.numeric import numeric_questions
from quizbot.items import I_DO_NOT_KNOW
from quizbot.kb.model import KnowledgeBaseData, Relation, Triplet

PHENOTYPE = Relation("has_phenotype", "has phenotype", "rare disease", "phenotype")


def _kb(rows: list[tuple[str, str, str]]) -> KnowledgeBaseData:
    triplets = tuple(
        Triplet(head, "has_phenotype", tail, meta={"frequency": freq}) for head, tail, freq in rows
    )
    return KnowledgeBaseData(
        name="tiny", version="1", source="test", relations={"has_phenotype": PHENOTYPE},
        triplets=triplets,
    )  # fmt: skip


def test_hand_computed_cut_points_ranges_and_keys() -> None:
    rows = [
        ("d1", "p1", "1/5"),  # 0.2
        ("d2", "p2", "2/5"),  # 0.4
        ("d3", "p3", "3/5"),  # 0.6
        ("d4", "p4", "4/5"),  # 0.8
        ("d5", "p5", "2/5"),  # two annotations of one pair, pooled: 5/10 = 0.5
        ("d5", "p5", "3/5"),
        ("d6", "p6", "1/3"),  # too few patients: no question, not among the values
        ("d7", "p7", "HP:0040281"),  # a frequency term: no number
        ("d8", "p8", "4/5"),  # with a term annotation too: left out
        ("d8", "p8", "HP:0040282"),
    ]
    kb = _kb(rows)
    items = numeric_questions(kb, kb.triplets)
    # Values 0.2, 0.4, 0.6, 0.8, 0.5: median 0.5; deviations 0.3, 0.1, 0.1, 0.3, 0: MAD 0.1.
    assert {i.head for i in items} == {"d1", "d2", "d3", "d4", "d5"}
    first = items[0]
    assert first.meta["cut_points"] == pytest.approx([0.4, 0.6])
    assert first.meta["median"] == 0.5 and first.meta["mad"] == pytest.approx(0.1)
    assert first.meta["n_values"] == 5
    assert first.options == (
        "Less than 40% of patients",
        "40% to 60% of patients",
        "More than 60% of patients",
        I_DO_NOT_KNOW,
    )
    keys = {i.head: i.answer_keys for i in items}
    # 0.2 below; 0.4 and 0.6 on the cuts count as between; 0.5 between; 0.8 above.
    assert keys == {"d1": ("A",), "d2": ("B",), "d3": ("B",), "d4": ("C",), "d5": ("B",)}
    assert {i.head: i.meta["patients"] for i in items}["d5"] == "5/10 patients"
    assert all(i.subtype == "numeric" for i in items)
    assert "40% to 60%" in first.text  # the cut points are shown with the item


def test_a_range_outside_zero_to_one_is_left_out() -> None:
    kb = _kb([("a", "x", "5/5"), ("b", "y", "4/5"), ("c", "z", "3/5"), ("d", "w", "5/5")])
    # Values 1, 0.8, 0.6, 1: median 0.9; deviations 0.1, 0.1, 0.3, 0.1: MAD 0.1; cuts 0.8, 1.0.
    items = numeric_questions(kb, kb.triplets)
    assert items[0].options == (
        "Less than 80% of patients",
        "80% to 100% of patients",
        I_DO_NOT_KNOW,
    )
    assert {i.head: i.answer_keys for i in items} == {
        "a": ("B",), "b": ("B",), "c": ("A",), "d": ("B",),
    }  # fmt: skip


def test_no_spread_no_questions() -> None:
    kb = _kb([("a", "x", "3/5"), ("b", "y", "6/10"), ("c", "z", "3/5")])
    assert numeric_questions(kb, kb.triplets) == []


@pytest.mark.slow
def test_hpo_cut_points_match_an_independent_recomputation() -> None:
    from quizbot.kb.registry import load_builtin

    kb = load_builtin("hpo")
    counts: dict[tuple[str, str], list[tuple[int, int] | None]] = defaultdict(list)
    for t in kb.triplets:
        if t.relation != "has_phenotype":
            continue
        found = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(t.meta.get("frequency", "")))
        ok = found is not None and 5 <= int(found.group(2)) >= int(found.group(1))
        counts[(t.head, t.tail)].append(
            (int(found.group(1)), int(found.group(2))) if ok and found else None
        )
    pooled = [[p for p in pairs if p is not None] for pairs in counts.values()]
    values = np.array(
        [
            sum(n for n, _ in kept) / sum(m for _, m in kept)
            for kept, pairs in zip(pooled, counts.values(), strict=True)
            if len(kept) == len(pairs)
        ]
    )
    median = float(np.median(values))
    mad = float(np.median(np.abs(values - median)))
    facts = [
        t for t in kb.triplets if t.relation == "has_phenotype" and "/" in t.meta["frequency"]
    ][:400]
    items = numeric_questions(kb, facts)
    assert items, "HPO has phenotype frequencies on enough patients"
    meta = items[0].meta
    assert meta["n_values"] == len(values)
    assert meta["median"] == pytest.approx(median) and meta["mad"] == pytest.approx(mad)
    assert meta["cut_points"] == pytest.approx([median - mad, median + mad])
    for item in items:  # every key agrees with the value and the recomputed cuts
        value, low, high = item.meta["value"], median - mad, median + mad
        expected = "A" if value < low else "B" if value <= high or high >= 1 else "C"
        assert item.answer_keys == (expected,), item.meta


def test_generate_numeric_needs_numbers(
    monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: object
) -> None:
    from pathlib import Path

    from click.testing import CliRunner

    from quizbot.cli import cli

    monkeypatch.setenv("DATABASE_URL", database_url)
    out = Path(str(tmp_path)) / "n.jsonl"
    done = CliRunner().invoke(
        cli, ["generate", "--kb", "clinical-core", "--format", "numeric", "--out", str(out)]
    )
    assert done.exit_code == 65 and "holds no numbers" in done.stderr
    assert not out.exists()
