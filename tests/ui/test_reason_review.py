"""The Admin tab's reason review in a real browser, checked against the database.

An SDAK run is made over HTTP (the test model server answering the SDAK way); an admin logs in,
draws two reasons, marks the first sound and the second unsound; the marks are stored for the
answers shown, and the accuracy reliability shown is the one of those marks. Before logging in
the screen is not part of the page.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from quizbot.analysis.reasons import ReasonEntry
from quizbot.cli import cli
from quizbot.ui.admin_review import render_reason
from storage.reasons import run_reason_reviews
from tests.helpers.oracles import wilson
from tests.helpers.stub import stub_server
from tests.ui.conftest import Served, screenshot
from tests.ui.test_practice import database


def _sdak_run(served: Served, tmp_path: Path) -> int:
    """An SDAK run made by `quizbot eval`, in a thread of its own (Playwright's sync API holds
    an event loop in this one)."""
    made: list[int] = []
    worker = threading.Thread(target=lambda: made.append(_eval(served, tmp_path)))
    worker.start()
    worker.join(300)
    assert made, "the SDAK run was not made"
    return made[0]


def _eval(served: Served, tmp_path: Path) -> int:
    runner = CliRunner(env={"DATABASE_URL": served.database_url})
    items = tmp_path / "items.jsonl"
    made = runner.invoke(cli, ["generate", "--kb", "clinical-core", "--points", "2",
                               "--out", str(items)])  # fmt: skip
    assert made.exit_code == 0, made.output
    with stub_server("--oracle", str(items), "--policy", "sdak") as base:
        args = ["--items", str(items), "--prompt", "sdak", "--json"]
        done = runner.invoke(cli, ["eval", "--model", "openai/stub", "--api-base", base, *args])
    assert done.exit_code == 0, done.output
    return int(json.loads(done.stdout)["run_id"])


def test_an_admin_marks_sampled_reasons_and_sees_the_reliability(
    page: Any, served: Served, tmp_path: Path
) -> None:
    run_id = _sdak_run(served, tmp_path)
    tab = page
    tab.get_by_role("tab", name="Admin").click()
    assert tab.locator("#qb-admin-reasons-draw").count() == 0  # not on the page before login
    tab.locator("#qb-admin-password input").fill(served.admin_password)
    tab.locator("#qb-admin-password input").press("Enter")
    tab.locator("#qb-admin-message").get_by_text("Logged in").wait_for()

    tab.locator("#qb-admin-reasons-run input").fill(str(run_id))
    tab.locator("#qb-admin-reasons-n input").fill("2")
    tab.locator("#qb-admin-reasons-draw").click()
    view = tab.locator("#qb-admin-reasons-view")
    view.get_by_text("Reason 1 of 2").wait_for()
    first = int(re.search(r"answer (\d+)", view.inner_text()).group(1))  # type: ignore[union-attr]
    assert "Verdict:" in view.inner_text() and "Because" in view.inner_text()
    screenshot(tab, "admin-reason-review")
    tab.locator("#qb-admin-reasons-sound").click()
    view.get_by_text("Reason 2 of 2").wait_for()
    second = int(re.search(r"answer (\d+)", view.inner_text()).group(1))  # type: ignore[union-attr]
    tab.locator("#qb-admin-reasons-unsound").click()
    view.get_by_text("Nothing left to mark").wait_for()
    result = tab.locator("#qb-admin-reasons-result")
    result.get_by_text("1 of 2 marked reasons sound").wait_for()
    low, high = wilson(1, 2)
    assert f"0.500 [{low:.3f}, {high:.3f}]" in result.inner_text()
    with database(served.database_url) as db:
        marks = run_reason_reviews(db, run_id)
    assert {k: (m.sound, m.reviewer) for k, m in marks.items()} == {
        first: (True, "admin"),
        second: (False, "admin"),
    }


def test_a_reason_is_shown_escaped() -> None:
    entry = ReasonEntry(1, "i", "A *claim* with <b>tags</b>", True, "correct",
                        "[link](http://x) and `code` # head", None, None)  # fmt: skip
    shown = render_reason(entry, 1, 1)
    assert "<b>" not in shown and "\\<b\\>" in shown
    assert "\\[link\\](http://x)" in shown and "\\`code\\`" in shown and "\\# head" in shown
    assert "A \\*claim\\*" in shown


def test_the_admin_report_shows_the_sdak_part_and_the_repeats() -> None:
    from quizbot.ui.admin_report import render_report

    report = {
        "run_id": 3, "name": None, "model": "openai/m", "model_reported": "m", "status":
        "completed", "n_items": 4, "answered": 4, "metrics": {}, "intervals": {},
        "sdak": {"n_pairs": 2, "n_errors": 1,
                 "metrics": {"pair_accuracy": 0.5}, "intervals": {"pair_accuracy": [0.1, 0.9]},
                 "error_types": {"sycophancy": 1.0}, "error_type_intervals": {"sycophancy": None},
                 "accuracy_reliability": {"value": 0.75, "interval": [0.3, 0.95], "sound": 3,
                                          "reviewed": 4}},
        "repeats": {"runs": [3, 4], "metrics": {
            "average_accuracy": {"mean": 0.5, "sd": 0.1, "n": 2, "values": [0.4, 0.6]},
            "sdak.pair_accuracy": {"mean": None, "sd": None, "n": 0, "values": [None, None]}}},
    }  # fmt: skip
    text = render_report(report)
    assert "#### SDAK (paper's definitions): 2 pairs, 1 wrong" in text
    assert "| metric | n | value \\[95% CI\\] |" in text
    assert "| pair accuracy | 0/2 | 0.500 \\[0.100, 0.900\\] |" in text
    assert "| error: sycophancy (both supported) | 0/1 | 1.000 |" in text
    assert "| accuracy reliability (sound reasons) | 3/4 | 0.750 \\[0.300, 0.950\\] |" in text
    assert "#### Repeats: mean ± SD over 2 completed runs (3, 4)" in text
    assert "| average accuracy | 0.500 ± 0.100 | 2 | 0.400, 0.600 |" in text
    assert "| SDAK pair accuracy | - | 0 | -, - |" in text
