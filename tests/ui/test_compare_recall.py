"""The "Humans vs models" tab in a real browser on open recall items: students' typed lists and
a model's run, mean F1 with its t interval and Welch's test shown, recall rows in the CSV."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from scipy import stats

from quizbot.evaluation.runner import RunConfig, execute, prepare_run
from quizbot.items import RecallItem
from quizbot.providers import Request
from quizbot.providers.scripted import ScriptedProvider
from storage import open_database
from tests.analysis.test_recall_comparison import _hand_f1, _items, _students
from tests.ui.conftest import Served

if TYPE_CHECKING:
    from playwright.sync_api import Page

MODEL = "scripted/first-only"


def _seed(database_url: str, folder: Path) -> list[RecallItem]:
    """Three students (cohort 2026) and a model that names only the first gold entity."""
    db = open_database(database_url)
    try:
        items = _items(db, folder / "recall.jsonl")
        _students(db, items)

        def first_only(request: Request) -> str:
            asked = max(items, key=lambda i: request.text.rfind(i.question))
            return asked.answers[0]

        run_id = prepare_run(db, items, RunConfig(model=MODEL))
        asyncio.run(execute(db, run_id, ScriptedProvider(first_only, name=MODEL)))
        return items
    finally:
        db.dispose()


def _cells(page: Page, table: str, columns: int) -> list[list[str]]:
    first = page.locator(f"#{table} [data-testid^='cell-'][data-testid$='-0']")
    return [
        [
            page.locator(f"#{table} [data-testid='cell-{r}-{c}']").inner_text().strip()
            for c in range(columns)
        ]
        for r in range(first.count())
    ]


def _estimate(values: list[float]) -> str:
    mean = sum(values) / len(values)
    low, high = stats.t.interval(0.95, len(values) - 1, loc=mean, scale=stats.sem(values))
    return f"{mean:.3f} [{max(0.0, low):.3f}, {min(1.0, high):.3f}]"


def test_recall_items_compared_in_the_browser(page: Page, served: Served, tmp_path: Path) -> None:
    with ThreadPoolExecutor(1) as pool:
        items = pool.submit(_seed, served.database_url, tmp_path).result()
    index = {item.id: k for k, item in enumerate(items)}
    pooled = [_hand_f1(s, i, index[i.id]) for s in ("s1", "s2", "s3") for i in items]
    model = [_hand_f1("s2", i, index[i.id]) for i in items]  # the first gold entity only

    page.get_by_role("tab", name="Humans vs models").click()
    page.locator("#qb-compare-refresh").click()
    page.locator("#qb-compare-run").click()
    page.locator("#qb-compare-recall [data-testid='cell-1-0']").wait_for()
    rows = {(r[0], r[3]): r for r in _cells(page, "qb-compare-recall", 10)}
    assert rows[("students", "(all)")][5] == "24"
    assert rows[("students", "(all)")][6] == _estimate(pooled)
    assert rows[(MODEL, "(all)")][6] == _estimate(model)
    assert {("s1", "(all)"), ("s2", "(all)"), ("s3", "(all)")} <= rows.keys()

    tests = {(r[1], r[2]): r for r in _cells(page, "qb-compare-recall-tests", 9)}
    overall = tests[(MODEL, "(all)")]
    welch = stats.ttest_ind(model, pooled, equal_var=False)
    assert overall[3] == "24 / 8"
    assert overall[6] == f"{float(welch.statistic):.2f}"
    p = float(welch.pvalue)
    assert overall[7] == ("<0.0001" if p < 1e-4 else f"{p:.4f}")
