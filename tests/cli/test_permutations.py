"""`quizbot eval --permutations K [--idk-both]` and the stability and sub-label parts of
`quizbot report`, end to end over real HTTP against tests/helpers/model_server.py, on SQLite and
PostgreSQL.

The expected figures are recomputed here from the item files, the stored plan's option orders
and the fixed answers, never read from the code under test: the oracle answers every order right
(so every order's accuracy is 1 and every item is consistent), and a respondent that always says
"A" is right exactly where the right option landed in first place.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner, Result
from scipy import stats

from quizbot.cli import cli
from quizbot.evaluation.permutations import MAX_PERMUTATIONS
from storage import open_database
from storage.repo import get_run
from tests.helpers.oracles import wilson
from tests.helpers.stub import stub_server

DATA = Path(__file__).resolve().parents[1] / "data" / "item_banks"
IDK_TEXTS = {"i do not know"}


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def _ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def _eval(runner: CliRunner, base: str, *args: str) -> dict[str, Any]:
    done = runner.invoke(cli, ["eval", "--model", "openai/stub", "--api-base", base,
                               "--concurrency", "4", "--json", *args])  # fmt: skip
    assert done.exit_code == 0, done.output
    return dict(json.loads(done.stdout))


def _import_and_export(runner: CliRunner, path: Path, name: str, out: Path) -> list[dict[str, Any]]:
    _ok(runner.invoke(cli, ["items", "import", "--format", "ebmqa", str(path), "--name", name]))
    _ok(runner.invoke(cli, ["items", "export", name, "--out", str(out)]))
    return [json.loads(line) for line in out.read_text().splitlines()]


def run_config(database_url: str, run_id: int) -> dict[str, Any]:
    """The run's stored config, read back from the database."""
    database = open_database(database_url)
    try:
        return dict(get_run(database, run_id).config)
    finally:
        database.dispose()


def _content(options: list[str]) -> list[int]:
    return [i for i, o in enumerate(options) if o.strip().lower() not in IDK_TEXTS]


def test_every_order_right_is_perfectly_stable(runner: CliRunner, tmp_path: Path) -> None:
    items = _import_and_export(runner, DATA / "ebmqa.jsonl", "ebm", tmp_path / "ebm.jsonl")
    with stub_server("--oracle", str(tmp_path / "ebm.jsonl"), "--policy", "correct") as base:
        report = _eval(runner, base, "--item-set", "ebm", "--permutations", "4", "--idk-both")
    # Every item has at least 3 content options (3! = 6 >= 4 orders), so 4 orders x 2 each.
    assert report["n_items"] == len(items) * 4 * 2
    assert report["metrics"]["average_accuracy"] == 1.0
    stability = report["stability"]
    assert stability["k"] == 4 and stability["idk_both"] is True
    assert set(stability["conditions"]) == {"with_idk", "without_idk"}
    for part in stability["conditions"].values():
        assert [row["index"] for row in part["by_order"]] == [0, 1, 2, 3]
        assert all(row["accuracy"] == 1.0 and row["n"] == len(items) for row in part["by_order"])
        assert part["spread"] == {"min": 1.0, "max": 1.0, "range": 0.0, "sd": 0.0}
        assert part["consistency"]["k"] == part["consistency"]["n"] == len(items)
    effect = stability["idk_effect"]
    assert effect["answer_rate_with_idk"] == effect["answer_rate_without_idk"] == 1.0
    assert effect["answer_rate_change"] == 0.0

    text = _ok(runner.invoke(cli, ["report", str(report["run_id"])])).output
    assert "Option orders (with idk, k = 4)" in text and "same answer in every order: 4/4" in text


def test_a_respondent_that_always_says_a_is_right_where_the_key_landed_first(
    runner: CliRunner, tmp_path: Path, database_url: str
) -> None:
    items = _import_and_export(runner, DATA / "ebmqa.jsonl", "ebm", tmp_path / "ebm.jsonl")
    with stub_server("--answer", "A") as base:
        report = _eval(runner, base, "--item-set", "ebm", "--permutations", "4", "--seed", "7")
    plan = run_config(database_url, report["run_id"])["permutations"]
    by_id = {item["id"]: item for item in items}
    right: dict[int, list[bool]] = defaultdict(list)
    orders_of: dict[str, list[tuple[int, ...]]] = defaultdict(list)
    for variant in plan["variants"].values():
        original = by_id[variant["of"]]
        order = list(variant["order"])
        # The asked order is a permutation of the original's content options ...
        assert sorted(order) == _content(original["options"])
        orders_of[variant["of"]].append(tuple(order))
        if variant["index"] == 0:
            assert order == _content(original["options"])  # ... the original order first
        keys = [ord(k) - ord("A") for k in original["answer_keys"]]
        landed = sorted(order.index(k) for k in keys)
        right[variant["index"]].append(landed == [0])
        assert variant["idk"] is True  # the ebmqa sample's items all have their own IDK option
    assert all(len(set(orders)) == 4 for orders in orders_of.values())  # distinct orders
    expected = {index: sum(flags) / len(flags) for index, flags in sorted(right.items())}
    part = report["stability"]["conditions"]["with_idk"]
    got = {row["index"]: row["accuracy"] for row in part["by_order"]}
    assert got == pytest.approx(expected)
    for row in part["by_order"]:
        k = sum(right[row["index"]])
        assert row["accuracy_interval"] == pytest.approx(list(wilson(k, len(right[row["index"]]))))
    values = list(expected.values())
    assert part["spread"]["min"] == pytest.approx(min(values))
    assert part["spread"]["max"] == pytest.approx(max(values))
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    assert part["spread"]["sd"] == pytest.approx(sd)
    # "A" is a different option text in different orders unless the first option never moves.
    consistent = sum(len({order[0] for order in orders}) == 1 for orders in orders_of.values())
    assert part["consistency"]["k"] == consistent
    assert "idk_effect" not in report["stability"]
    # The same settings ask the same orders (seeded): a second run stores the same plan.
    with stub_server("--answer", "A") as base:
        again = _eval(runner, base, "--item-set", "ebm", "--permutations", "4", "--seed", "7")
    assert run_config(database_url, again["run_id"])["permutations"] == plan


def test_permutation_flags_are_checked(runner: CliRunner, tmp_path: Path) -> None:
    _import_and_export(runner, DATA / "ebmqa.jsonl", "ebm", tmp_path / "ebm.jsonl")
    bad = runner.invoke(cli, ["eval", "--model", "baseline/random", "--item-set", "ebm",
                              "--permutations", "2", "--idk-both", "--idk"])  # fmt: skip
    assert bad.exit_code != 0 and "already asks every order" in bad.output
    assert "Traceback" not in bad.output
    too_many = runner.invoke(cli, ["eval", "--model", "baseline/random", "--item-set", "ebm",
                                   "--permutations", str(MAX_PERMUTATIONS + 1)])  # fmt: skip
    assert too_many.exit_code != 0
    resume = runner.invoke(cli, ["eval", "--resume", "1", "--permutations", "2"])
    assert resume.exit_code != 0 and "stored with the run" in resume.output


def _sub_label_items() -> list[dict[str, Any]]:
    """EBMQA-style items in four disciplines; answered "D" they abstain, hit or miss."""
    rows = [  # (discipline, number of content options, key)
        ("x", 3, "A"), ("x", 4, "D"),
        ("y", 4, "A"), ("y", 4, "D"),
        ("z", 3, "B"), ("z", 3, "C"), ("z", 4, "D"),
        ("w", 5, "E"),
    ]  # fmt: skip
    out = []
    for i, (discipline, n, key) in enumerate(rows):
        options = [f"option {i}-{j}" for j in range(n)] + ["I do not know"]
        out.append({
            "id": f"q{i}", "type": "semantic" if i % 2 else "numeric",
            "question": f"Question number {i} about {discipline}" + " in detail" * i,
            "options": options, "answer_keys": [key], "labels": {"discipline": discipline},
        })  # fmt: skip
    return out


def test_sub_labels_gap_spearman_and_guessing(runner: CliRunner, tmp_path: Path) -> None:
    rows = _sub_label_items()
    source = tmp_path / "sub.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = _import_and_export(runner, source, "sub", tmp_path / "sub-export.jsonl")
    with stub_server("--answer", "D") as base:
        report = _eval(runner, base, "--item-set", "sub")
    # Answered "D": the IDK option (abstained) when there are 3 content options, else a letter.
    outcome = {}
    for item in items:
        if item["options"][3] == "I do not know":
            outcome[item["id"]] = "abstained"
        else:
            outcome[item["id"]] = "correct" if item["answer_keys"] == ["D"] else "incorrect"
    discipline = {item["id"]: item["meta"]["labels"]["discipline"] for item in items}
    keys = Counter(",".join(item["answer_keys"]) for item in items)
    majority = sorted(keys.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    sub = report["sub_labels"]
    assert sub["majority_key"] == majority == "D"
    groups = sub["by_label"]["discipline"]["groups"]
    assert set(groups) == {"w", "x", "y", "z"}
    rates, accs = [], []
    for name, group in groups.items():
        ids = [i for i in outcome if discipline[i] == name]
        n = len(ids)
        correct = sum(outcome[i] == "correct" for i in ids)
        answered = sum(outcome[i] != "abstained" for i in ids)
        assert group["n"] == n
        assert group["average_accuracy"] == pytest.approx(correct / n)
        assert group["answer_rate"] == pytest.approx(answered / n)
        assert group["average_accuracy_interval"] == pytest.approx(list(wilson(correct, n)))
        # A uniform guess: one of n options; for a (semantic) multi-answer question one of the
        # 2^n - 1 non-empty sets of options.
        sizes = {i: len(by_id(items, i)["options"]) - 1 for i in ids}
        multi = {i: by_id(items, i)["meta"]["type"] == "semantic" for i in ids}
        chance = [1 / (2 ** sizes[i] - 1) if multi[i] else 1 / sizes[i] for i in ids]
        assert group["random_guess"] == pytest.approx(sum(chance) / n)
        assert group["majority_guess"] == pytest.approx(
            sum(by_id(items, i)["answer_keys"] == [majority] for i in ids) / n
        )
        if answered:
            rates.append(answered / n)
            accs.append(correct / answered)
    expected = stats.spearmanr(rates, accs)
    rho = sub["by_label"]["discipline"]["spearman"]
    assert rho["rho"] == pytest.approx(float(expected.statistic))
    assert rho["p_value"] == pytest.approx(float(expected.pvalue))
    assert rho["n_groups"] == len(rates)
    acc = {name: g["average_accuracy"] for name, g in groups.items()}
    gap = sub["by_label"]["discipline"]["gap"]
    assert gap["value"] == pytest.approx(max(acc.values()) - min(acc.values()))
    assert acc[gap["best"]] == max(acc.values()) and acc[gap["worst"]] == min(acc.values())
    # Question length tertiles (words of the text as shown), cut at numpy's 1/3 and 2/3
    # quantiles (linear interpolation, R's type 7).
    words = {item["id"]: len(item["text"].split()) for item in items}
    first, second = np.quantile(list(words.values()), [1 / 3, 2 / 3])
    tertile = Counter(
        0 if w <= first + 1e-9 else 1 if w <= second + 1e-9 else 2 for w in words.values()
    )
    length = sub["by_label"]["length"]["groups"]
    assert sorted(g["n"] for g in length.values()) == sorted(tertile.values())
    assert any(name.startswith("short") and g["n"] == tertile[0] for name, g in length.items())
    assert any(name.startswith("long") and g["n"] == tertile[2] for name, g in length.items())
    assert set(sub["by_label"]["question_type"]["groups"]) == {"numeric", "semantic"}
    text = _ok(runner.invoke(cli, ["report", str(report["run_id"])])).output
    assert "By discipline" in text and "Spearman answer rate vs accuracy on answered" in text


def by_id(items: list[dict[str, Any]], item_id: str) -> dict[str, Any]:
    """The exported item with ``item_id``."""
    return next(item for item in items if item["id"] == item_id)


def test_a_failed_permutation_run_resumes_with_its_plan(runner: CliRunner, tmp_path: Path) -> None:
    items = _import_and_export(runner, DATA / "ebmqa.jsonl", "ebm", tmp_path / "ebm.jsonl")
    with stub_server("--status", "401") as base:
        failed = runner.invoke(cli, ["eval", "--model", "openai/stub", "--api-base", base,
                                     "--concurrency", "1", "--item-set", "ebm",
                                     "--permutations", "3", "--idk-both", "--json"])  # fmt: skip
    assert failed.exit_code != 0 and "Traceback" not in failed.output
    runs = json.loads(_ok(runner.invoke(cli, ["runs", "list", "--json"])).stdout)["runs"]
    (run,) = runs
    assert run["status"] == "failed" and run["n_items"] == len(items) * 3 * 2
    with stub_server("--oracle", str(tmp_path / "ebm.jsonl"), "--policy", "correct") as base:
        report = _eval(runner, base, "--resume", str(run["run_id"]), "--retry-errors")
    assert report["status"] == "completed" and report["answered"] == len(items) * 3 * 2
    for part in report["stability"]["conditions"].values():
        assert [row["accuracy"] for row in part["by_order"]] == [1.0, 1.0, 1.0]
        assert part["consistency"]["k"] == len(items)
