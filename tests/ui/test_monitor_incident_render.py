"""The incident page's HTML and "Run now"'s date, without a browser (the browser test is
tests/ui/test_monitor_incident_page.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from quizbot.errors import InputError
from quizbot.monitoring.flips import Flip, FlipReport
from quizbot.ui.monitor import night_date, run_now
from quizbot.ui.monitor_incident import cards_table, incident_page_html
from storage.incidents import Incident

NOW = datetime(2026, 3, 5, tzinfo=UTC)


def _incident() -> Incident:
    return Incident(
        id=3, monitor_id=1, monitor="boards", model="gpt-x", metric="accuracy", kind="drift",
        state="acknowledged", severity="warning", opened_on=date(2026, 3, 4),
        last_alert_on=date(2026, 3, 5), quiet_nights=0, closed_on=None, baseline_from=None,
        evidence=[], note="on it",
        events=[{"event": "opened", "at": "2026-03-04T02:10:00", "by": None, "webhook": "delivered",
                 "message": "gpt-x on item set boards: accuracy 0.95 → 0.88 over 1 night"},
                {"event": "acknowledged", "at": "2026-03-04T09:00:00", "by": "ana <b>",
                 "webhook": "delivered", "note": "on it"}],
        created_at=NOW, updated_at=NOW,
        nights=[{"night": "2026-03-04", "alerts": 2, "worst": "warning", "notified": "opened",
                 "figure": {"value": 0.883, "interval": [0.81, 0.93], "flipped": 8,
                            "anchors": 120}},
                {"night": "2026-03-05", "alerts": 1, "worst": "warning", "notified": None}],
    )  # fmt: skip


def test_the_page_shows_events_nights_and_flips_escaped() -> None:
    flip = Flip("i1:x", "step1", "Question <1>?", "correct", "incorrect", "A", "B",
                "A. The answer", "B, surely")  # fmt: skip
    report = FlipReport(date(2026, 3, 3), date(2026, 3, 5), 120, (flip,))
    html = incident_page_html(_incident(), report, "https://q.example.org/?incident=3")
    assert "Incident #3" in html and "acknowledged" in html
    assert "accuracy 0.95 → 0.88" in html  # the latest message people were told
    assert "ana &lt;b&gt;" in html and "Question &lt;1&gt;?" in html  # escaped, never markup
    assert "0.883 [0.81–0.93]; 8 of 120 anchors flipped" in html
    assert "no (evidence only)" in html  # the silent night
    assert "2026-03-03 → 2026-03-05: 1 of 120" in html
    assert "A. The answer" in html and "B, surely" in html
    assert 'href="https://q.example.org/?incident=3"' in html
    assert html.count('data-label="relation"') == 1  # cards carry their headers


def test_cards_keep_each_cell_with_its_header() -> None:
    table = cards_table(["a", "b"], [["1", "2"]])
    assert '<td data-label="a">1</td><td data-label="b">2</td>' in table
    with pytest.raises(ValueError):
        cards_table(["a", "b"], [["only one"]])


def test_run_now_reads_a_night_and_refuses_a_bad_one() -> None:
    assert night_date(" 2026-03-07 ") == date(2026, 3, 7)
    assert night_date("") is None and night_date(None) is None
    with pytest.raises(InputError, match="not a date"):
        night_date("2026-13-01")
    assert "admin" in run_now(None, False, "boards", "2026-03-07")  # type: ignore[arg-type]
