"""Every tab at phone width (390 px): it opens, its first controls are on screen, and nothing
makes the page scroll sideways. Screenshots go to tests/artifacts/ (``narrow-<tab>.png``).

The Practice, Monitor and Assignments flows have their own 390 px checks with data in them
(test_practice.py, test_monitor_overview.py, test_assignment.py; the Practice tab's Recall section
in test_recall_practice.py, with feedback shown); Humans vs models is checked
with data at 390 px in test_compare.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import screenshot

WIDTH = 390

# tab name -> an element the tab shows at once
TABS = {
    "Practice": "#qb-practice-start",
    "Ask a model": "#qb-ask-custom",
    "Humans vs models": "#qb-compare-run",
    "Monitor": "#qb-monitor-overview-title",
    "Assignments": "#qb-assign-intro",
    "Admin": "#qb-admin-login",
    "Status": "#quizbot-status",
}


def _page_width(tab: Any) -> int:
    return int(tab.evaluate("document.documentElement.scrollWidth"))


@pytest.mark.parametrize("name", list(TABS))
def test_each_tab_fits_a_phone(shared_page: Any, name: str) -> None:
    tab = shared_page
    # Gradio folds tabs that do not fit into a "..." menu on a phone: open the tab, then narrow
    tab.get_by_role("tab", name=name).first.click()
    tab.set_viewport_size({"width": WIDTH, "height": 844})
    shown = tab.locator(TABS[name]).first
    shown.wait_for()
    assert shown.is_visible()
    box = shown.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH + 1, box
    screenshot(tab, f"narrow-{name.lower().replace(' ', '-')}")
    wide = _page_width(tab)
    assert wide <= WIDTH + 1, f"{name}: the page is {wide} px wide at {WIDTH} px"
