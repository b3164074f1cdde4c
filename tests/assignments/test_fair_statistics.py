"""Humans and models like for like: a hand-computed example of the results' statistics.

Three students and two models on the 8 statements of one assignment. The students answer by a
fixed table (1 right, 0 wrong, ``i`` "I don't know"); the models are two baselines run through
``quizbot eval --assignment``. Every figure the results give is computed again here from the raw
0/1 table alone, with scipy and statsmodels or by the textbook formula, never by calling the code
under test: each model's percentile among the students with its Wilson interval and the
one-sample tests on per-student differences, the cluster-robust test of a model against the
students, each item's difficulty and corrected point-biserial discrimination, and KR-20.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
import statsmodels.api as sm
from click.testing import CliRunner
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from quizbot.cli import cli
from quizbot.generate.assignments import assignment_items
from quizbot.items import StatementItem
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.service import answer, next_question
from storage import open_database
from storage.sessions import load_session

# Per student, per item in the assignment's order; "cat" answers True to everything, exactly as
# the first model does, so the percentile has a tie to count half.
TABLE = {
    "ann": "11111101",
    "bob": "1101i010",
    "cat": "always-true",
}
MODELS = ("baseline/always-true", "baseline/random")


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


def _invoke(runner: CliRunner, *args: str) -> dict[str, Any]:
    done = runner.invoke(cli, list(args))
    assert done.exit_code == 0, done.output
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _reply(item: StatementItem, mark: str) -> str:
    if mark == "i":
        return "I don't know"
    right = mark == "1"
    return "true" if item.label == right else "false"


def _setup(runner: CliRunner, database_url: str) -> tuple[list[str], dict[str, list[int]]]:
    """Make the assignment, let the students answer by TABLE and the models run; return the
    item order and the raw 0/1 table of all five respondents (models' from their stored
    answers)."""
    _invoke(runner, "assignment", "create", "fair", "--kb", "clinical-core", "--points", "8",
            "--seed", "5", "--json")  # fmt: skip
    db = open_database(database_url)
    try:
        assignment, items = assignment_items(db, "fair")
        order = list(assignment.item_ids)
        assert len(order) == 8
        by_id = {i.id: i for i in items}
        TABLE["cat"] = "".join("1" if by_id[i].label else "0" for i in order)  # type: ignore[union-attr]
        for student, marks in TABLE.items():
            view = start_assignment_session(db, assignment="fair", student=student)
            entries = load_session(db, view.id).session.config["items"]
            while (question := next_question(db, view.id)) is not None:
                item_id = entries[question.position - 1]["id"]
                item = by_id[item_id]
                assert isinstance(item, StatementItem)
                answer(db, view.id, question.id, _reply(item, marks[order.index(item_id)]))
    finally:
        db.dispose()
    for model in MODELS:
        _invoke(runner, "eval", "--assignment", "fair", "--model", model, "--json")
    table = {s: [int(m == "1") for m in marks] for s, marks in TABLE.items()}
    stored = _invoke(runner, "answers", "--assignment", "fair", "--json")
    for model in MODELS:
        right = {
            item["id"]: int(a["outcome"] == "correct")
            for item in stored["items"]
            for a in item["answers"]
            if a["respondent"] == model
        }
        table[model] = [right[i] for i in order]
    return order, table


def _cluster(table: dict[str, list[int]], model: str) -> tuple[float, float]:
    """Difference model − students and its p by statsmodels, clustered by respondent and item."""
    y, group, who, what = [], [], [], []
    for r, name in enumerate([*TABLE, model]):
        for j, right in enumerate(table[name]):
            y.append(right)
            group.append(float(name == model))
            who.append(r)
            what.append(j)
    ols = sm.OLS(np.array(y, float), sm.add_constant(np.array(group)))
    both = np.column_stack([who, what])
    fit = ols.fit(cov_type="cluster", cov_kwds={"groups": both}, use_t=True)
    fits = [fit] + [
        ols.fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True) for g in (who, what)
    ]
    fit = max(fits, key=lambda f: f.bse[1] if np.isfinite(f.bse[1]) else -1.0)  # the largest
    assert np.isfinite(fit.pvalues[1])
    return float(fit.params[1]), float(fit.pvalues[1])


def test_results_statistics_equal_the_hand_figures(runner: CliRunner, database_url: str) -> None:
    order, table = _setup(runner, database_url)
    results = _invoke(runner, "assignment", "results", "fair", "--json")
    by_name = {r["name"]: r for r in results["respondents"]}
    assert set(by_name) == {*TABLE, *MODELS}
    students = np.array([table[s] for s in TABLE], float)

    assert table["cat"] == table["baseline/always-true"]  # a tie, counted half
    for model in MODELS:
        m = np.array(table[model], float)
        detail = by_name[model]["percentile_detail"]
        standing = detail["standing"]
        d = students.mean(axis=1) - m.mean()  # every student answered every item
        below, tied = int((d < 0).sum()), int((d == 0).sum())
        assert (standing["below"], standing["tied"]) == (below, tied)
        assert standing["percentile"] == pytest.approx(100 * (below + tied / 2) / 3)
        low, high = proportion_confint(below + tied / 2, 3, method="wilson")
        assert standing["percentile_interval"] == pytest.approx([100 * low, 100 * high])
        if np.any(d != d[0]):
            t = stats.ttest_1samp(d, 0.0)
            assert standing["t_test"]["t"] == pytest.approx(t.statistic)
            assert standing["t_test"]["p_value"] == pytest.approx(t.pvalue)
        if np.any(d != 0):
            assert standing["wilcoxon"]["p_value"] == pytest.approx(stats.wilcoxon(d).pvalue)
        (overall,) = [t for t in by_name[model]["tests"] if t["scope"] == "overall"]
        difference, p = _cluster(table, model)
        assert overall["test"] == "cluster_robust_t"
        assert overall["difference"] == pytest.approx(difference)
        assert overall["p_value"] == pytest.approx(p)
        assert overall["name"].startswith("difference in accuracy, clustered")

    # Item analysis over the five respondents (3 students, 2 models), all complete.
    everyone = np.array([table[r] for r in [*TABLE, *MODELS]], float)
    items = {row["id"]: row for row in results["items"]}
    assert list(items) == order
    assert all(set(row) == {"id", "difficulty", "discrimination", "idk_share", "options"}
               for row in results["items"])  # fmt: skip
    for j, item_id in enumerate(order):
        assert items[item_id]["difficulty"] == pytest.approx(everyone[:, j].mean())
        rest = everyone.sum(axis=1) - everyone[:, j]
        column = everyone[:, j]
        if column.std() == 0 or rest.std() == 0:
            assert items[item_id]["discrimination"] is None
        else:
            r = stats.pearsonr(column, rest).statistic
            assert items[item_id]["discrimination"] == pytest.approx(r)
        idk = sum(TABLE[s][j] == "i" for s in TABLE) / 5
        assert items[item_id]["idk_share"] == pytest.approx(idk)
    k = everyone.shape[1]
    p_j = everyone.mean(axis=0)
    kr20 = k / (k - 1) * (1 - (p_j * (1 - p_j)).sum() / everyone.sum(axis=1).var())
    assert results["reliability"]["kr20"] == pytest.approx(kr20)
    flagged = results["item_analysis"]["flagged"]
    hand_flagged = [
        order[j]
        for j in range(k)
        if everyone[:, j].std() > 0
        and stats.pearsonr(everyone[:, j], everyone.sum(axis=1) - everyone[:, j]).statistic < 0
    ]
    assert flagged == hand_flagged
    # The headline names every model, its accuracy and the students' median.
    median = float(np.median(students.mean(axis=1)))
    for model in MODELS:
        line = next(h for h in results["headline"] if h.startswith(model))
        assert f"{100 * np.mean(table[model]):.0f}%" in line
        assert f"median was {100 * median:.0f}%" in line
    # Every respondent answered under the assignment's protocol, "I do not know" offered.
    assert results["protocol"]["idk"] is True
    assert all(r["protocol"]["matches"] for r in results["respondents"])


def test_retiring_an_item_rescores_and_says_so(runner: CliRunner, database_url: str) -> None:
    order, table = _setup(runner, database_url)
    gone = order[0]
    done = runner.invoke(cli, ["assignment", "retire", "fair", gone, "--reason", "ambiguous"])
    assert done.exit_code == 0, done.output
    results = _invoke(runner, "assignment", "results", "fair", "--json")
    assert [r["item_id"] for r in results["retired"]] == [gone]
    assert any(f"retired from scoring: item {gone} (ambiguous)" in n for n in results["notes"])
    for r in results["respondents"]:
        right = sum(table[r["name"]][1:])
        assert (r["metrics"]["accuracy"]["k"], r["metrics"]["accuracy"]["n"]) == (right, 7)
    kept = np.array([table[r][1:] for r in [*TABLE, *MODELS]], float)
    p_j = kept.mean(axis=0)
    kr20 = 7 / 6 * (1 - (p_j * (1 - p_j)).sum() / kept.sum(axis=1).var())
    assert results["reliability"]["kr20"] == pytest.approx(kr20)
    (row,) = [r for r in results["item_analysis"]["items"] if r["id"] == gone]
    assert row["retired"] is True
    restored = runner.invoke(cli, ["assignment", "retire", "fair", gone, "--restore"])
    assert restored.exit_code == 0 and "counts again" in restored.output
    assert _invoke(runner, "assignment", "results", "fair", "--json")["retired"] == []
    unknown = runner.invoke(cli, ["assignment", "retire", "fair", "i1:nope"])
    assert unknown.exit_code == 66 and "not one of the assignment's items" in unknown.output
