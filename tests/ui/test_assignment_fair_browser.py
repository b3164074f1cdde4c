"""The instructor's results page in a real browser: headline, protocol, item analysis, retiring.

Five students (through the practice service) and one model (``quizbot eval --assignment``) take
an 8-statement assignment. The page must say in one sentence what the comparison found, show
the protocol every respondent answered under and the item analysis with KR-20; retiring an item
from scoring re-scores the results and says what was retired. Screenshots at 1280 and 390 px go
to /work/material/screens/fair/ (and tests/artifacts/) for a person to look at.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from quizbot.generate.assignments import assignment_items
from quizbot.items import StatementItem
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.service import answer, next_question
from storage import open_database
from storage.sessions import load_session
from tests.ui.conftest import ARTIFACTS, QUIZBOT, Served
from tests.ui.events import wait_layout

SCREENS = Path("/work/material/screens/fair")
# Per student, per item in the assignment's order: 1 right, 0 wrong, i "I don't know". Item 8 is
# answered right by the weakest students only: its discrimination is negative.
TABLE = {
    "Ann": "11111110",
    "Bea": "11110110",
    "Cal": "1101i100",
    "Dee": "10010001",
    "Eve": "0100i001",
}


def _cli(served: Served, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_")}
    env["DATABASE_URL"] = served.database_url
    done = subprocess.run(
        [QUIZBOT, *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _answers(served: Served) -> list[str]:
    _cli(served, "assignment", "create", "fair", "--kb", "clinical-core", "--points", "8",
         "--seed", "5", "--mode", "exam")  # fmt: skip
    db = open_database(served.database_url)
    try:
        assignment, items = assignment_items(db, "fair")
        order = list(assignment.item_ids)
        by_id = {i.id: i for i in items}
        for student, marks in TABLE.items():
            view = start_assignment_session(db, assignment="fair", student=student)
            entries = load_session(db, view.id).session.config["items"]
            while (question := next_question(db, view.id)) is not None:
                item = by_id[entries[question.position - 1]["id"]]
                assert isinstance(item, StatementItem)
                mark = marks[order.index(item.id)]
                text = (
                    "idk" if mark == "i" else ("true" if item.label == (mark == "1") else "false")
                )
                answer(db, view.id, question.id, text)
    finally:
        db.dispose()
    _cli(served, "eval", "--assignment", "fair", "--model", "baseline/always-true")
    return order


def _shot(tab: Any, name: str, width: int) -> None:
    tab.set_viewport_size({"width": width, "height": 900})
    wait_layout(tab)  # the layout after the resize
    for folder in (SCREENS, ARTIFACTS):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tab.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
        except OSError:
            continue  # /work/material may not exist on another machine


@pytest.mark.usefixtures("database_url")
def test_results_page_shows_headline_protocol_item_analysis_and_retiring_rescoring(
    page: Any, served: Served
) -> None:
    order = _answers(served)
    tab = page
    tab.get_by_role("tab", name="Admin").click()
    tab.locator("#qb-admin-password input").fill(served.admin_password)
    tab.locator("#qb-admin-password input").press("Enter")
    tab.locator("#qb-admin-message").get_by_text("Logged in").wait_for()
    tab.get_by_role("tab", name="Assignments").click()
    tab.locator("#qb-assign-panel").wait_for()
    tab.locator("#qb-assign-list-note").get_by_text("1 assignment(s)").wait_for()
    tab.locator("#qb-assign-show").click()
    results = tab.locator("#qb-assign-results")
    results.get_by_text("Item analysis").wait_for()
    text = results.inner_text()
    assert "baseline/always-true answered" in text and "of the 8 items right" in text
    assert "the 5 students' median was" in text and "scored above" in text
    assert "Protocol (fixed when the assignment was made)" in text
    assert 'True / False / "I do not know"' in text
    assert "KR-20 reliability" in text
    assert "negative discrimination" in text
    assert "clustered by respondent and item" in text
    _shot(tab, "results", 1280)
    _shot(tab, "results", 390)
    tab.set_viewport_size({"width": 1280, "height": 900})

    # Retire the flagged item (listed first) with one choice and one click.
    tab.locator("#qb-assign-retire-item input").click()
    flagged = tab.get_by_role("option").filter(has_text="negative discrimination").first
    position = int(flagged.inner_text().strip().split(".", 1)[0])
    retired_id = order[position - 1]
    flagged.click()
    tab.locator("#qb-assign-retire-reason textarea").fill("keyed the wrong way round?")
    tab.locator("#qb-assign-retire").click()
    tab.locator("#qb-assign-retire-note").get_by_text("Retired").wait_for()
    results.get_by_text("retired from scoring: item").wait_for()
    after = results.inner_text()
    assert f"retired from scoring: item {retired_id} (keyed the wrong way round?)" in after
    assert "of the 7 items right" in after  # re-scored without it
    _shot(tab, "retired", 1280)
