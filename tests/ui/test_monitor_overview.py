"""The Monitor tab's first screen in a real browser: the overview, the chart, incident actions.

Seeded before the server starts (both databases): monitor "watch" with two scripted models over
six nights. ``scripted/b`` says "True" to everything for four nights, then "I do not know":
its accuracy falls from 0.5 to 0 and the alerts of nights 5 and 6 form one open accuracy
incident. ``scripted/a`` fails on night 4 (an operational incident) and recovers on night 5,
which resolves it. The chart must open on ``scripted/b``, the model that needs attention.
Screenshots at 1280 and 390 px go to tests/artifacts/.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest

from quizbot.monitoring.nights import run_night
from quizbot.providers import ProviderError
from quizbot.providers.scripted import ScriptedProvider
from schedules.config import MonitorSpec
from storage import open_database
from storage.incidents import list_incidents
from tests.ui.conftest import Served, screenshot

pytestmark = pytest.mark.slow

SPEC = MonitorSpec(name="watch", models=("scripted/a", "scripted/b"), cron="0 2 * * *",
                   points=4, anchor_points=2)  # fmt: skip
FIRST = date(2026, 3, 1)


@pytest.fixture
def seeded(database_url: str) -> Iterator[None]:
    db = open_database(database_url)
    try:
        for n in range(6):
            night = FIRST + timedelta(days=n)
            if n == 3:
                a = ScriptedProvider(
                    ["True"],
                    fail=lambda _i, _r: ProviderError("refused", retryable=False, kind="auth"),
                )
            else:
                a = ScriptedProvider(["True"], reported_model="a-v1")
            b = ScriptedProvider(["True" if n < 4 else "I do not know"], reported_model="b-v1")
            run_night(db, SPEC, "scripted/a", night, provider_factory=lambda *_, p=a: p)
            run_night(db, SPEC, "scripted/b", night, provider_factory=lambda *_, p=b: p)
        states = sorted((i.model, i.metric, i.state) for i in list_incidents(db))
        assert states == [
            ("scripted/a", "night_failed", "resolved"),
            ("scripted/b", "accuracy", "open"),
        ]
    finally:
        db.dispose()
    yield None


def _states(database_url: str) -> dict[str, str]:
    db = open_database(database_url)
    try:
        return {i.model: i.state for i in list_incidents(db)}
    finally:
        db.dispose()


def test_overview_first_then_the_chart_and_accepting_a_baseline(
    seeded: None, page: Any, served: Served
) -> None:
    tab = page
    tab.set_viewport_size({"width": 1280, "height": 900})
    tab.get_by_role("tab", name="Monitor").click()
    overview = tab.locator("#qb-monitor-overview")
    overview.locator("table.qb-overview").wait_for()
    rows = overview.locator("tbody tr")
    assert rows.count() == 2
    row_b = rows.filter(has_text="scripted/b")
    assert "accuracy · critical · open" in row_b.inner_text()
    assert "2026-03-06" in row_b.inner_text()
    assert "none" in rows.filter(has_text="scripted/a").inner_text()  # resolved: not shown
    # the overview is the first thing on the tab: above the chart
    assert overview.bounding_box()["y"] < tab.locator("#qb-monitor-plot").bounding_box()["y"]

    # The chart opened on the model with the open incident, with bands and alert markers.
    tab.locator("#qb-monitor-plot svg").first.wait_for()
    assert tab.locator("#qb-monitor-model input").input_value() == "scripted/b"
    assert tab.locator("#qb-monitor-plot .qb-band").count() == 2
    assert tab.locator("#qb-monitor-plot .qb-alert-marker").count() == 2
    assert tab.locator("#qb-monitor-plot .qb-incident-span").count() == 1
    incidents = tab.locator("#qb-monitor-incidents").inner_text()
    assert "night_failed" in incidents and "resolved" in incidents

    assert tab.locator("#qb-monitor-incident-actions").is_hidden()  # students cannot act
    screenshot(tab, "monitor-overview-1280")

    tab.set_viewport_size({"width": 390, "height": 844})
    box = overview.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390  # cards, no sideways page
    assert tab.locator("#qb-monitor-plot svg").first.bounding_box()["width"] <= 390
    # the tables scroll sideways inside their box instead of squeezing to one-letter columns
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    first_cell = tab.locator("#qb-monitor-nights th").first.bounding_box()
    assert first_cell["width"] >= 60, first_cell
    screenshot(tab, "monitor-overview-390")
    tab.set_viewport_size({"width": 1280, "height": 900})

    # An admin accepts the new level as the baseline from the overview's actions.
    tab.get_by_role("tab", name="Admin").click()
    tab.locator("#qb-admin-password input").fill(served.admin_password)
    tab.locator("#qb-admin-login").click()
    tab.locator("#qb-admin-message").get_by_text("Logged in").wait_for()
    tab.get_by_role("tab", name="Monitor").click()
    actions = tab.locator("#qb-monitor-incident-actions")
    actions.wait_for()
    assert "scripted/b / accuracy" in tab.locator("#qb-monitor-incident input").input_value()
    tab.locator("#qb-monitor-from-night textarea").fill("2026-03-05")
    tab.locator("#qb-monitor-accept").click()
    result = tab.locator("#qb-monitor-action-result")
    result.get_by_text("accepted").wait_for()
    assert "start on 2026-03-05" in result.inner_text()
    rows.filter(has_text="scripted/b").get_by_text("none").wait_for()
    assert _states(served.database_url)["scripted/b"] == "accepted"
    screenshot(tab, "monitor-overview-admin-1280")
