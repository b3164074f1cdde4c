"""The "Ask a model" tab's SDAK prompt in a real browser: a typed statement shows the verdict,
that it came first and the reason; an SDAK batch is stored as an SDAK run and its pair metrics
are shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from storage import open_database
from storage.repo import list_runs
from tests.helpers.oracles import wilson
from tests.helpers.served_models import replies_by_pair
from tests.ui.conftest import Served, screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Page

REPLY = "Correct. Because the sources agree."
FIRST_CALL_MS = 120_000  # the server's first litellm call imports litellm (slow on a busy machine)


@pytest.fixture
def stub_answer() -> str:
    """The stub model answers every question with this SDAK reply."""
    return REPLY


def _cell(page: Page, table: str, row: int, col: int) -> str:
    return page.locator(f"#{table} [data-testid='cell-{row}-{col}']").inner_text().strip()


def test_a_statement_and_a_batch_asked_the_sdak_way(page: Page, served: Served) -> None:
    page.get_by_role("tab", name="Ask a model").click()
    page.locator("#qb-ask-prompt").get_by_text("SDAK (verdict first, then the reason)").click()
    page.locator("#qb-ask-statement textarea").fill("Insulin lowers blood glucose.")
    page.locator("#qb-ask-truth").get_by_text("True", exact=True).click()
    page.locator("#qb-ask-custom").click()
    page.locator("#qb-ask-results [data-testid='cell-0-0']").wait_for(timeout=FIRST_CALL_MS)
    headers = page.locator("#qb-ask-results thead").inner_text()
    assert "verdict at the start" in headers and "reason" in headers
    assert _cell(page, "qb-ask-results", 0, 0) == served.model
    verdict, first, reason = (_cell(page, "qb-ask-results", 0, c) for c in (1, 2, 3))
    assert (verdict, first) == ("Correct", "yes")
    assert reason == REPLY.removeprefix("Correct. ")
    assert _cell(page, "qb-ask-results", 0, 4) == "yes"  # the statement is true

    # An SDAK batch of one knowledge point: its pair metrics appear under the runs.
    page.get_by_role("tab", name="Batch run").click()
    page.locator("#qb-ask-points input").fill("1")
    page.locator("#qb-ask-seed textarea").fill("11")
    page.locator("#qb-ask-batch").click()
    page.locator("#qb-ask-batch-summary").get_by_text("Finished 1 run(s)").wait_for(
        timeout=FIRST_CALL_MS
    )
    page.locator("#qb-ask-batch-sdak [data-testid='cell-0-0']").wait_for()
    shown_pairs = _cell(page, "qb-ask-batch-sdak", 0, 2)
    shown_following = _cell(page, "qb-ask-batch-sdak", 0, 3)
    shown_pair_accuracy = _cell(page, "qb-ask-batch-sdak", 0, 6)
    screenshot(page, "ask-sdak")

    db = open_database(served.database_url)
    try:
        ((run, _),) = list_runs(db)
        assert run.id is not None and run.config["prompt"] == "sdak"
        pairs = replies_by_pair(db, run.id)
    finally:
        db.dispose()
    n = len(pairs)
    following = sum(all(t.startswith("Correct.") for t in p.values()) for p in pairs.values())
    right = sum(p[True].startswith("Correct.") and p[False].startswith("Incorrect.")
                for p in pairs.values())  # fmt: skip
    assert shown_pairs == str(n)
    low, high = wilson(following, n)
    assert shown_following == f"{following / n:.3f} [{low:.3f}, {high:.3f}]"
    low, high = wilson(right, n)
    assert shown_pair_accuracy == f"{right / n:.3f} [{low:.3f}, {high:.3f}]"
