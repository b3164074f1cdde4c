"""The "Ask a model" tab in a real browser: two models side by side, then a batch logged as runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage import open_database
from storage.repo import list_responses, list_runs
from tests.helpers.oracles import wilson as oracle_wilson
from tests.ui.conftest import Served, screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Page

BASELINE = "baseline/always-true"
FIRST_CALL_MS = 120_000  # the server's first litellm call imports litellm (slow on a busy machine)


def _cell(page: Page, table: str, row: int, col: int) -> str:
    return page.locator(f"#{table} [data-testid='cell-{row}-{col}']").inner_text().strip()


def _wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson 95% interval from scipy, so the test does not trust the app's."""
    return oracle_wilson(k, n)


def test_two_models_answer_a_typed_statement_and_a_batch_is_logged_as_runs(
    page: Page, served: Served
) -> None:
    page.get_by_role("tab", name="Ask a model").click()
    # The configured stub is chosen by default; add the always-true baseline.
    page.locator("#qb-ask-models input").click()
    page.get_by_role("option", name=BASELINE).click()
    page.keyboard.press("Escape")

    # Nothing typed yet: a message with the fix, no table.
    page.locator("#qb-ask-custom").click()
    page.locator("#qb-ask-message").get_by_text("type a statement first").wait_for()
    assert page.locator("#qb-ask-results [data-testid='cell-0-0']").count() == 0

    page.locator("#qb-ask-statement textarea").fill("Insulin raises blood glucose.")
    page.locator("#qb-ask-truth").get_by_text("False", exact=True).click()
    page.locator("#qb-ask-custom").click()
    page.locator("#qb-ask-results [data-testid='cell-1-0']").wait_for(timeout=FIRST_CALL_MS)
    assert page.locator("#qb-ask-message").inner_text().strip() == ""
    rows = {_cell(page, "qb-ask-results", r, 0): r for r in range(2)}
    assert set(rows) == {served.model, BASELINE}
    for model, r in rows.items():
        raw, parsed, correct = (_cell(page, "qb-ask-results", r, c) for c in (1, 2, 3))
        assert (raw, parsed, correct) == ("True", "True", "no"), model
    assert _cell(page, "qb-ask-results", rows[served.model], 4) == "live"
    assert "Truth:" in page.locator("#qb-ask-item").inner_text()

    # The same question again: the stub's answer now comes from the call cache.
    page.locator("#qb-ask-custom").click()
    stub_source = page.locator(
        f"#qb-ask-results [data-testid='cell-{rows[served.model]}-4']"
    ).get_by_text("cached")
    stub_source.wait_for()

    # A one-point batch: one run per model, stored like `quizbot eval` runs.
    page.get_by_role("tab", name="Batch run").click()
    page.locator("#qb-ask-points input").fill("1")
    page.locator("#qb-ask-seed textarea").fill("7")
    page.locator("#qb-ask-batch").click()
    summary = page.locator("#qb-ask-batch-summary")
    summary.get_by_text("Finished 2 run(s)").wait_for(timeout=FIRST_CALL_MS)
    page.locator("#qb-ask-batch-table [data-testid='cell-1-0']").wait_for()
    shown = {
        _cell(page, "qb-ask-batch-table", r, 1): _cell(page, "qb-ask-batch-table", r, 5)
        for r in range(2)
    }
    screenshot(page, "ask")

    db = open_database(served.database_url)
    try:
        runs = {run.model_requested: (run, n) for run, n in list_runs(db)}
        assert set(runs) == {served.model, BASELINE}
        for model, (run, stored) in runs.items():
            assert run.id is not None
            assert run.status == "completed", model
            assert stored == run.n_items > 0, model
            responses = list_responses(db, run_id=run.id)
            assert {r.raw_text for r in responses} == {"True"}, model
            assert {r.parsed_answer for r in responses} == {"true"}, model
            assert not any(r.cached for r in responses), "batches never use the cache"
            # Accuracy in the table: correct answers over answers, with its interval.
            k = sum(r.outcome == "correct" for r in responses)
            n = len(responses)
            low, high = _wilson(k, n)
            assert shown[model] == f"{k / n:.3f} [{low:.3f}, {high:.3f}]", model
    finally:
        db.dispose()
