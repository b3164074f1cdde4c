"""The "Humans vs models" tab in a real browser, over practice answers and a baseline run."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from quizbot.evaluation.runner import RunConfig, execute, prepare_run
from quizbot.generate.service import load_items
from quizbot.items import StatementItem
from quizbot.practice.service import answer, next_question, start_session
from quizbot.providers.baselines import AlwaysTrue
from storage import open_database
from storage.cohorts import human_answers
from tests.helpers.oracles import wilson as oracle_wilson
from tests.ui.conftest import Served, screenshot
from tests.ui.events import wait_layout

if TYPE_CHECKING:
    from playwright.sync_api import Page

MODEL = "baseline/always-true"
COHORT = "2026"
LENGTH = 8
CSV_HEADER = "group,group_kind,run_id,scope,key,metric,value,low,high,k,n"


def _seed(database_url: str) -> list[StatementItem]:
    """Alice answers True to everything and Bob False (cohort 2026), Carol (2025) True; the
    always-true baseline answers their items. Returns the items the three were asked."""
    db = open_database(database_url)
    try:
        for name, cohort, reply in (
            ("alice", COHORT, "true"),
            ("bob", COHORT, "false"),
            ("carol", "2025", "true"),
        ):
            view = start_session(
                db, student=name, kb="clinical-core", length=LENGTH, cohort=cohort, seed="s1"
            )
            while (question := next_question(db, view.id)) is not None:
                feedback = answer(db, view.id, question.id, reply)
                assert feedback.outcome in {"correct", "incorrect"}
        ids = sorted({a.item_id for a in human_answers(db)})
        items = [i for i in load_items(db, ids) if isinstance(i, StatementItem)]
        assert len(items) == LENGTH, "one seed, no history: all three got the same items"
        run_id = prepare_run(db, items, RunConfig(model=MODEL))
        asyncio.run(execute(db, run_id, AlwaysTrue()))
        return items
    finally:
        db.dispose()


def _fmt(k: int, n: int) -> str:
    """``k/n [low, high]`` with the Wilson 95% interval from scipy (independent of quizbot)."""
    low, high = oracle_wilson(k, n)
    return f"{k / n:.3f} [{low:.3f}, {high:.3f}]"


def _rows(page: Page, table: str, columns: int) -> dict[str, list[str]]:
    cells = page.locator(f"#{table} [data-testid^='cell-'][data-testid$='-0']")
    out = {}
    for r in range(cells.count()):
        row = [
            page.locator(f"#{table} [data-testid='cell-{r}-{c}']").inner_text().strip()
            for c in range(columns)
        ]
        out[row[0]] = row
    return out


def test_students_and_a_model_side_by_side_with_plots_and_a_csv(
    page: Page, served: Served, tmp_path: Path
) -> None:
    # Playwright's sync API runs an event loop in this thread; seed from another one.
    with ThreadPoolExecutor(1) as pool:
        items = pool.submit(_seed, served.database_url).result()
    true_items = sum(item.label for item in items)

    page.get_by_role("tab", name="Humans vs models").click()
    page.locator("#qb-compare-refresh").click()
    page.locator("#qb-compare-cohort input").click()
    page.get_by_role("option", name=COHORT).click()
    page.locator("#qb-compare-run").click()
    page.locator("#qb-compare-groups [data-testid='cell-3-0']").wait_for()
    rows = _rows(page, "qb-compare-groups", 9)

    # Carol is in another cohort; the pooled row, the model and each 2026 student remain.
    assert set(rows) == {"students", MODEL, "alice", "bob"}
    assert rows["alice"][6] == _fmt(true_items, LENGTH)  # True to everything
    assert rows["bob"][6] == _fmt(LENGTH - true_items, LENGTH)  # False to everything
    assert rows["students"][6] == _fmt(LENGTH, 2 * LENGTH)
    assert rows["students"][3:6] == ["2", str(LENGTH), str(2 * LENGTH)]
    assert rows[MODEL][6] == _fmt(true_items, LENGTH)
    assert rows[MODEL][7] == _fmt(LENGTH, LENGTH)  # answer rate: it always answers

    # The plots: the bar chart (SVG) and the heat maps (tables) per relation and transform.
    chart = page.locator("#qb-compare-chart svg.qb-bars")
    chart.wait_for()
    assert chart.locator("rect title").count() >= 4
    heatmaps = page.locator("#qb-compare-heatmap table.qb-heatmap")
    assert heatmaps.count() == 2
    assert "alice" not in heatmaps.first.inner_text()  # groups only: pooled students, models
    assert MODEL in heatmaps.first.inner_text()
    percentile = _rows(page, "qb-compare-pct", 9)
    assert list(percentile) == [MODEL]
    assert percentile[MODEL][2] == "2"  # both 2026 students answered all 8 of its items
    assert "item(s) compared" in page.locator("#qb-compare-notes").inner_text()

    page.locator("#qb-compare-export").click()
    link = page.locator("#qb-compare-file a").first
    link.wait_for()
    with page.expect_download() as download:
        link.click()
    saved = tmp_path / "export.csv"
    download.value.save_as(saved)
    lines = saved.read_text(encoding="utf-8").splitlines()
    assert lines[0] == CSV_HEADER
    alice = next(line for line in lines if line.startswith("alice,student,,overall,,accuracy,"))
    assert alice.endswith(f",{true_items},{LENGTH}")
    screenshot(page, "compare")

    # On a phone the chart and the heat maps stack without overlapping, and the page does not
    # scroll sideways (wide tables scroll inside their own box).
    page.set_viewport_size({"width": 390, "height": 844})
    wait_layout(page)  # the layout after the resize
    chart_box = page.locator("#qb-compare-chart").bounding_box()
    heat_box = page.locator("#qb-compare-heatmap").bounding_box()
    assert chart_box is not None and heat_box is not None
    apart = (
        heat_box["y"] >= chart_box["y"] + chart_box["height"] - 1
        or chart_box["y"] >= heat_box["y"] + heat_box["height"] - 1
    )
    assert apart, (chart_box, heat_box)
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 391, f"the page is {wide} px wide at 390 px"
    screenshot(page, "compare-390")
