"""The Monitor tab's incidents table at phone width (390 px) and on a desktop: its headers wrap
between words, never inside one. Checked in Chromium word by word (a word whose text spans two
lines has client rectangles on two lines); screenshots of the table, scrolled sideways in steps,
go to tests/artifacts/ (``monitor-incidents-390-*.png``) for a person to look at.

The database is the one of test_monitor_overview.py (two incidents over six nights).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.ui.conftest import ARTIFACTS, Served
from tests.ui.test_monitor_overview import seeded  # noqa: F401 - the fixture, used below

pytestmark = pytest.mark.slow

# For an element: [word, how many lines its text is on] over the text it shows.
WORD_LINES = """element => {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const out = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.textContent.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      out.push([m[0], tops.size]);
    }
  }
  return out;
}"""


def _split_words(tab: Any) -> list[str]:
    headers = tab.locator("#qb-monitor-incidents thead th .header-content").filter(visible=True)
    words = [word for th in headers.all() for word in th.evaluate(WORD_LINES)]
    assert len(words) >= 12, words  # every header was read ("last alert": two words)
    return [word for word, lines in words if lines > 1]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_incident_headers_never_break_inside_a_word(
    seeded: None,  # noqa: F811 - the imported fixture
    page: Any,
    served: Served,
) -> None:
    tab = page
    tab.get_by_role("tab", name="Monitor").click()
    table = tab.locator("#qb-monitor-incidents")
    table.get_by_text("night_failed").filter(visible=True).first.wait_for()
    for width in (1280, 390):
        tab.set_viewport_size({"width": width, "height": 844})
        table.scroll_into_view_if_needed()
        assert _split_words(tab) == [], width
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390  # the table scrolls
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    # Scroll every box around the table that scrolls sideways, about a screen at a time.
    scroll = """([selector, x]) => {
      for (let n = document.querySelector(selector); n; n = n.parentElement) {
        if (n.scrollWidth > n.clientWidth + 1) n.scrollLeft = x;
      }
    }"""
    table.scroll_into_view_if_needed()
    for step in range(5):
        tab.evaluate(scroll, ["#qb-monitor-incidents thead th", step * 200])
        tab.screenshot(path=str(ARTIFACTS / f"monitor-incidents-390-{step}.png"))
