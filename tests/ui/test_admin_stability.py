"""The Admin tab's run report in a real browser: an admin picks a permutation run and sees its
stability tables, with the figures ``run_report`` gives (read from the database here).

The run is made before the server starts, through the real evaluation entry point with a
scripted model (tests/ui/test_admin_report.py, ``_permutation_run``), in the served database:
a SQLite file and a PostgreSQL database, like every database test (``database_url``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from quizbot.analysis.reporting import run_report
from storage import open_database
from tests.ui.conftest import Served, screenshot
from tests.ui.test_admin_report import _permutation_run, assert_figure
from tests.ui.test_monitor_headers import WORD_LINES

pytestmark = pytest.mark.slow


@pytest.fixture
def permutation_report(database_url: str) -> Iterator[dict[str, Any]]:
    """A permutation run (3 orders, with and without "I do not know") and its report."""
    db = open_database(database_url)
    try:
        report = run_report(db, _permutation_run(db))
    finally:
        db.dispose()
    yield report


def test_an_admin_picks_a_permutation_run_and_sees_its_stability(
    permutation_report: dict[str, Any], page: Any, served: Served
) -> None:
    tab = page
    tab.get_by_role("tab", name="Admin").click()
    tab.locator("#qb-admin-password input").fill(served.admin_password)
    tab.locator("#qb-admin-password input").press("Enter")
    tab.locator("#qb-admin-message").get_by_text("Logged in").wait_for()
    runs = tab.locator("#qb-admin-runs")
    name = runs.get_by_text(permutation_report["name"], exact=True).filter(visible=True)
    name.first.wait_for()
    name.first.click()

    report = tab.locator("#qb-admin-report")
    stability = permutation_report["stability"]
    title = f"Stability over option orders (k = {stability['k']})"
    # Gradio fills the report after a round trip: wait for the section
    report.get_by_role("heading", name=title).wait_for()
    part = stability["conditions"]["without_idk"]
    heading = report.get_by_role("heading", name=re.compile('^Option orders, without "I do not'))
    assert heading.count() == 1
    # The table right after the heading: one row per order, figures with their intervals.
    table = heading.locator("xpath=following::table[1]")
    header = [c.strip() for c in table.locator("thead th").all_inner_texts()]
    assert header == ["order", "n", "accuracy [95% CI]", "answer rate [95% CI]"]
    rows = table.locator("tbody tr")
    assert rows.count() == len(part["by_order"]) == stability["k"]
    for i, order in enumerate(part["by_order"]):
        cells = [c.strip() for c in rows.nth(i).locator("td").all_inner_texts()]
        assert cells[0].split()[0] == str(order["index"]) and int(cells[1]) == order["n"]
        assert_figure(cells[2], order["accuracy"], order["accuracy_interval"])
        assert_figure(cells[3], order["answer_rate"], order["answer_rate_interval"])
    spread = heading.locator("xpath=following::table[2]")
    same = part["consistency"]
    cell = (
        spread.get_by_role(
            "row",
            name=re.compile(f"same answer in every order \\({same['k']} of {same['n']} items"),
        )
        .locator("td")
        .nth(1)
    )
    assert_figure(cell.inner_text().strip(), same["value"], same["interval"])
    effect = report.get_by_role("heading", name='Effect of offering "I do not know"')
    assert effect.count() == 1
    heading.scroll_into_view_if_needed()
    screenshot(tab, "admin-report-stability")

    # On a phone the wide tables scroll inside the report (the page does not), and no word of
    # a table breaks inside (Gradio squeezed them to a letter or two a line).
    tab.set_viewport_size({"width": 390, "height": 844})
    heading.scroll_into_view_if_needed()
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    cells = report.locator("th, td")
    assert cells.count() > 100  # every table of the report
    split = [w for cell in cells.all() for w, lines in cell.evaluate(WORD_LINES) if lines > 1]
    assert split == []
    screenshot(tab, "admin-report-stability-390")
