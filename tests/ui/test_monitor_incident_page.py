"""The Monitor tab's incident page in Chromium: a link to an incident opens its page (events,
nights, flipped anchor items with the model's words), readable at 1280 px and as cards at
390 px with no cell cut, and an admin runs a chosen night with "Run now".

The incident is made the real way (tests/monitoring/test_incident_notifications.py's item set
and scripted model: 8 anchor items flip on night 4). Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from quizbot.generate.item_banks import import_item_set
from quizbot.monitoring.incidents import acknowledge
from quizbot.monitoring.nights import run_night
from schedules.config import MonitorSpec
from storage import open_database
from storage.incidents import list_incidents
from tests.monitoring.test_incident_notifications import _night, scripted, write_bank
from tests.ui.conftest import ADMIN_PASSWORD, ARTIFACTS, CHROMIUM
from tests.ui.test_metrics import serving

pytestmark = pytest.mark.slow

CUT = """(root) => [...document.querySelectorAll(root + ' td')]
  .filter(td => td.offsetParent !== null && td.scrollWidth > td.clientWidth + 1)
  .map(td => td.innerText.slice(0, 40))"""


def _seed(database_url: str, tmp_path: Path) -> int:
    db = open_database(database_url)
    try:
        info, _bank = import_item_set(db, write_bank(tmp_path / "bank.jsonl"), "medqa", "boards")
        positions = {item_id: i for i, item_id in enumerate(info.item_ids)}
        spec = MonitorSpec(name="boards", models=("gpt-x",), cron="0 2 * * *",
                           item_set="boards")  # fmt: skip
        factory = scripted(db, positions)
        for n in range(1, 6):
            run_night(db, spec, "gpt-x", _night(n), provider_factory=factory)
        (incident,) = list_incidents(db, monitor="boards")
        acknowledge(db, incident.id, by="ana", note="checking the new release")
        return incident.id
    finally:
        db.dispose()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_incident_link_opens_its_page_readable_at_1280_and_390(
    database_url: str, tmp_path: Path
) -> None:
    if not Path(CHROMIUM).exists():
        if os.environ.get("QUIZBOT_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is missing")
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    incident_id = _seed(database_url, tmp_path)
    schedules = tmp_path / "monitors.toml"
    schedules.write_text(
        '[[monitor]]\nname = "boards"\nmodels = ["gpt-x"]\ncron = "0 2 * * *"\n'
        'item_set = "boards"\n',
        encoding="utf-8",
    )
    app = serving(
        database_url, tmp_path, schedules_file=str(schedules),
        public_url="https://quizbot.example.org",
    )  # fmt: skip
    with app as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page: Any = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
        page.set_default_timeout(60_000)
        page.goto(f"{url}?tab=monitor&incident={incident_id}")
        page.get_by_role("tab", name="Monitor").click()
        shown = page.locator("#qb-monitor-incident-page")
        shown.get_by_text("Anchor items that flipped").wait_for()
        text = shown.inner_text()
        assert f"Incident #{incident_id}" in text and "acknowledged" in text
        assert "8 of 120" in text and "now wrong" in text
        assert "no (evidence only)" in text  # night 5 joined silently
        assert "checking the new release" in text
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shown.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "monitor-incident-1280.png"), full_page=True)

        page.set_viewport_size({"width": 390, "height": 844})
        shown.scroll_into_view_if_needed()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.evaluate(CUT, "#qb-monitor-incident-page") == []  # cards: nothing cut
        box = shown.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        page.screenshot(path=str(ARTIFACTS / "monitor-incident-390.png"), full_page=True)

        # Sorting the flipped items by item id reorders the rows.
        page.set_viewport_size({"width": 1280, "height": 1000})
        page.locator("#qb-monitor-flip-sort").get_by_text("item", exact=True).click()
        shown.get_by_text("Anchor items that flipped").wait_for()

        # An admin runs a chosen night from the tab.
        page.get_by_role("tab", name="Admin").click()
        page.locator("#qb-admin-password input").fill(ADMIN_PASSWORD)
        page.locator("#qb-admin-login").click()
        page.locator("#qb-admin-message").get_by_text("Logged in").wait_for()
        page.get_by_role("tab", name="Monitor").click()
        page.locator("#qb-monitor-run-date textarea").fill("2026-13-01")
        page.locator("#qb-monitor-run").click()
        page.locator("#qb-monitor-run-result").get_by_text("is not a date").wait_for()
        browser.close()
