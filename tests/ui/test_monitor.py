"""The Monitor and Admin tabs in a real browser, over a database seeded with four past nights.

The seed runs the shipped "baselines" monitor (smaller: 4 points, 2 anchors) for the four nights
before today (UTC, the monitor's zone). On the last two nights baseline/always-true is replaced by
a scripted model that says "I do not know" to everything and reports the model id
"always-true-v2": its accuracy falls from 0.5 to 0, and the monitor records a model-id change and
alerts. "Run now" in the app uses the shipped file, so it runs tonight at full size.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from quizbot.monitoring.nights import run_monitor
from quizbot.providers.scripted import ScriptedProvider
from schedules.config import default_schedules_file, find_monitor, load_monitors
from storage import open_database
from storage.monitoring import get_monitor, list_nights
from storage.repo import list_knowledge_bases
from tests.ui.conftest import Served, screenshot

pytestmark = pytest.mark.slow

NEW_ID = "always-true-v2"


@dataclass(frozen=True)
class Seeded:
    """The seeded nights, oldest first."""

    nights: tuple[date, ...]


def _idk_model(model: str, _settings: Any, _run: Any) -> ScriptedProvider:
    return ScriptedProvider(["I do not know"], name=model, reported_model=NEW_ID)


@pytest.fixture
def seeded(database_url: str) -> Iterator[Seeded]:
    """Four past nights of the "baselines" monitor, written before the server starts."""
    today = datetime.now(UTC).date()
    nights = tuple(today - timedelta(days=back) for back in (4, 3, 2, 1))
    db = open_database(database_url)
    try:
        spec = replace(find_monitor(load_monitors(), "baselines"), points=4, anchor_points=2)
        random_only = replace(spec, models=("baseline/random",))
        always_true = replace(spec, models=("baseline/always-true",))
        for n, night in enumerate(nights):
            if n < 2:
                results = run_monitor(db, spec, when=night)
            else:
                results = run_monitor(db, random_only, when=night)
                results += run_monitor(db, always_true, when=night, provider_factory=_idk_model)
            assert [r.status for r in results] == ["completed", "completed"]
    finally:
        db.dispose()
    yield Seeded(nights)


def _knowledge_bases(database_url: str) -> dict[str, int]:
    db = open_database(database_url)
    try:
        return {entry.kb.name: entry.n_points for entry in list_knowledge_bases(db)}
    finally:
        db.dispose()


def _nights_in_db(database_url: str) -> list[tuple[date, str, str]]:
    db = open_database(database_url)
    try:
        monitor = get_monitor(db, "baselines")
        assert monitor.id is not None
        return [(n.scheduled_date, n.model, n.status) for n in list_nights(db, monitor.id)]
    finally:
        db.dispose()


def test_monitor_history_then_admin_login_runs_imports_and_run_now(
    seeded: Seeded, page: Any, served: Served, tmp_path: Path
) -> None:
    tab = page
    tab.get_by_role("tab", name="Monitor").click()
    summary = tab.locator("#qb-monitor-summary")
    summary.get_by_text("4 night(s)").wait_for()
    text = summary.inner_text()
    assert f"from {seeded.nights[0]} to {seeded.nights[-1]}" in text
    assert "baseline/always-true" in text and "baseline/random" in text

    # The chart of the first model: drawn as SVG, with the anchor/rotating legend and the
    # model-id change named after the new id.
    tab.locator("#qb-monitor-plot svg").first.wait_for()
    drawn = tab.locator("#qb-monitor-plot").inner_text()
    assert "anchor" in drawn and "rotating" in drawn
    assert f"id → {NEW_ID}" in drawn

    nights = tab.locator("#qb-monitor-nights").inner_text()
    for night in seeded.nights:
        assert str(night) in nights
    assert "baseline/random" in nights and NEW_ID in nights
    assert "0.000 [0.00–0.11]" in nights  # the scripted nights: 0 of 32 anchor statements
    changes = tab.locator("#qb-monitor-changes").inner_text()
    assert str(seeded.nights[2]) in changes and NEW_ID in changes
    alerts = tab.locator("#qb-monitor-alerts").inner_text()
    assert "critical" in alerts and "anchor accuracy fell" in alerts

    # Students get no "Run now", and a wrong password changes nothing.
    assert tab.locator("#qb-monitor-run").is_hidden()
    screenshot(tab, "monitor")
    tab.get_by_role("tab", name="Admin").click()
    assert tab.locator("#qb-admin-panel").is_hidden()
    tab.locator("#qb-admin-password input").fill("not the password")
    tab.locator("#qb-admin-login").click()
    tab.locator("#qb-admin-message").get_by_text("Wrong password").wait_for()
    assert tab.locator("#qb-admin-panel").is_hidden()
    tab.get_by_role("tab", name="Monitor").click()
    assert tab.locator("#qb-monitor-run").is_hidden()

    tab.get_by_role("tab", name="Admin").click()
    tab.locator("#qb-admin-password input").fill(served.admin_password)
    tab.locator("#qb-admin-password input").press("Enter")
    tab.locator("#qb-admin-message").get_by_text("Logged in").wait_for()
    tab.locator("#qb-admin-panel").wait_for()
    assert tab.locator("#qb-admin-password").is_hidden()
    runs = tab.locator("#qb-admin-runs")
    latest = runs.get_by_text(f"monitor baselines {seeded.nights[-1]}").filter(visible=True)
    latest.first.wait_for()
    assert runs.get_by_text("monitor baselines").filter(visible=True).count() == 8
    schedules = tab.locator("#qb-admin-schedules")
    schedules.get_by_text("Schedules file in force").wait_for()
    assert str(default_schedules_file()) in schedules.inner_text()
    assert "baselines" in tab.locator("#qb-admin-monitors").inner_text()
    screenshot(tab, "admin")

    # A run's report on selection.
    latest.first.click()
    report = tab.locator("#qb-admin-report")
    report.get_by_role("cell", name="average accuracy", exact=True).wait_for()
    assert "Run " in report.inner_text() and "baseline/" in report.inner_text()

    # A schedules file with a bad value is refused, naming the monitor and the key.
    bad = tmp_path / "monitors.toml"
    bad.write_text(
        '[[monitor]]\nname = "night"\nmodels = ["baseline/random"]\ncron = "0 2 * * *"\n'
        "points = 0\n",
        encoding="utf-8",
    )
    tab.locator("#qb-admin-schedules-file input[type=file]").set_input_files(str(bad))
    tab.locator("#qb-admin-schedules-text").get_by_text("points = 0").wait_for()
    tab.locator("#qb-admin-schedules-check").click()
    verdict = tab.locator("#qb-admin-schedules-result")
    verdict.get_by_text("Problems").wait_for()
    assert "monitor 'night', key 'points': must be a whole number from 1" in verdict.inner_text()

    # A triplets file with an empty tail is refused naming file, line and field; a good one
    # is imported and lands in the database.
    broken = tmp_path / "broken.csv"
    broken.write_text("head,relation,tail\nasthma,has_symptom,wheeze\nflu,has_symptom,\n")
    good = tmp_path / "good.csv"
    good.write_text(
        "head,relation,tail\nasthma,has_symptom,wheeze\ninfluenza,has_symptom,fever\n"
        "gout,has_symptom,joint pain\n"
    )
    files = tab.locator("#qb-admin-kb-file input[type=file]")
    files.set_input_files(str(broken))
    tab.locator("#qb-admin-kb-name textarea").fill("ward-notes")
    tab.locator("#qb-admin-kb-import").click()
    kb_result = tab.locator("#qb-admin-kb-result")
    kb_result.get_by_text("broken.csv, line 3, field 'tail'").wait_for()
    assert "ward-notes" not in _knowledge_bases(served.database_url)
    tab.locator("#qb-admin-kb-file button[aria-label='Clear']").click()
    files.set_input_files(str(good))
    tab.locator("#qb-admin-kb-import").click()
    kb_result.get_by_text("Imported").wait_for()
    assert "3 triplets" in kb_result.inner_text()
    assert _knowledge_bases(served.database_url)["ward-notes"] == 3

    # Run now, visible to the admin, runs tonight for both models.
    tab.get_by_role("tab", name="Monitor").click()
    run_now = tab.locator("#qb-monitor-run")
    run_now.wait_for()
    run_now.click()
    result = tab.locator("#qb-monitor-run-result")
    result.get_by_text("completed").first.wait_for(timeout=120_000)
    assert result.inner_text().count("completed") == 2
    summary.get_by_text("5 night(s)").wait_for()
    today = datetime.now(UTC).date()
    tonight = [(m, s) for d, m, s in _nights_in_db(served.database_url) if d == today]
    assert sorted(tonight) == [
        ("baseline/always-true", "completed"),
        ("baseline/random", "completed"),
    ]
