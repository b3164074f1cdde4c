"""The Monitor tab's overview and incident actions without a browser.

The overview is checked on histories written by hand (expected figures worked out from them);
the actions run against real incidents made by running nights on both databases.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from quizbot.config import Settings
from quizbot.monitoring.nights import history, run_night
from quizbot.providers import ProviderError
from quizbot.providers.scripted import ScriptedProvider
from quizbot.ui.context import UiContext
from quizbot.ui.monitor import NOT_ADMIN, incident_action
from quizbot.ui.monitor_views import default_model, incident_rows, overview_html, overview_rows
from schedules.config import MonitorSpec
from storage import Database
from storage.incidents import get_incident, list_incidents


def _night(day: int, value: float | None, status: str = "completed") -> dict[str, Any]:
    accuracy = {"value": value, "interval": [0.0, 1.0]} if value is not None else {}
    return {"date": f"2026-02-{day:02d}", "status": status, "metrics": {"accuracy": accuracy},
            "anchor": {}, "rotating": {}, "provider_model": "m", "run_id": day}  # fmt: skip


def _series(model: str, values: list[float | None], alerts: tuple[str, ...] = ()) -> dict[str, Any]:
    nights = [_night(d, v, "failed" if v is None else "completed") for d, v in enumerate(values, 1)]
    flagged = [{"date": a, "severity": "warning", "message": "x"} for a in alerts]
    return {"monitor": "w", "model": model, "nights": nights, "alerts": flagged}


class _Incident:
    def __init__(self, id_: int, model: str, severity: str, state: str = "open") -> None:
        self.id, self.model, self.severity, self.state = id_, model, severity, state
        self.monitor, self.metric = "w", "accuracy"
        self.last_alert_on = date(2026, 2, 3)

    @property
    def active(self) -> bool:
        return self.state in ("open", "acknowledged")


def test_overview_rows_show_last_night_change_and_active_incidents() -> None:
    stable = _series("a", [0.8] * 8)
    falling = _series("b", [0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.6])
    broken = _series("c", [0.8, None])
    incidents = [
        _Incident(1, "b", "warning"),
        _Incident(2, "b", "critical"),
        _Incident(3, "b", "critical", "resolved"),
    ]
    rows = overview_rows({"w": [stable, falling, broken]}, incidents)
    assert [(r.model, r.last_night, r.last_status) for r in rows] == [
        ("a", "2026-02-08", "completed"),
        ("b", "2026-02-08", "completed"),
        ("c", "2026-02-02", "failed"),
    ]
    assert rows[0].change == pytest.approx(0.0)
    assert rows[1].change == pytest.approx(0.6 - 0.8)  # last minus the 7 nights before
    assert rows[2].change is None and rows[2].accuracy.startswith("0.800")
    assert [i.id for i in rows[1].incidents] == [2, 1]  # active only, most severe first
    html = overview_html(rows)
    assert html.count("<tr>") == 4  # header + one per monitor x model
    assert "#2 accuracy · critical · open" in html and "#3" not in html
    assert "▼ -20.0 pts" in html and "<b>failed</b>" in html
    assert "No monitor" in overview_html([])


def test_the_chart_opens_on_the_model_that_needs_attention() -> None:
    quiet = _series("a", [0.8, 0.8])
    alerting = _series("b", [0.8, 0.8], alerts=("2026-02-02",))
    failed = _series("c", [0.8, None])
    assert default_model([quiet, alerting], []) == "b"  # its last night alerted
    assert default_model([quiet, failed], []) == "c"
    assert default_model([quiet, alerting, failed], [_Incident(9, "c", "critical")]) == "c"
    assert default_model([quiet], [_Incident(9, "a", "info", "resolved")]) == "a"
    assert default_model([], []) is None


SPEC = MonitorSpec(name="ui-watch", models=("scripted/a", "scripted/b"), cron="0 2 * * *",
                   points=2, anchor_points=1)  # fmt: skip


def _incidents(db: Database) -> dict[str, Any]:
    refused = ScriptedProvider(
        ["True"], fail=lambda _n, _r: ProviderError("401 no", retryable=False, kind="auth")
    )
    run_night(db, SPEC, "scripted/a", date(2026, 5, 1), provider_factory=lambda *_: refused)
    for day, version in ((1, "v1"), (2, "v2")):
        provider = ScriptedProvider(["True"], reported_model=version)
        run_night(db, SPEC, "scripted/b", date(2026, 5, day),
                  provider_factory=lambda *_, p=provider: p)  # fmt: skip
    return {i.model: i for i in list_incidents(db)}


def test_incident_actions_are_for_admins_and_say_what_changed(db: Database, tmp_path: Path) -> None:
    ctx = UiContext(Settings(home=tmp_path / "home"), db)
    made = _incidents(db)
    ops, drift = made["scripted/a"], made["scripted/b"]

    assert incident_action(ctx, False, "acknowledge", ops.id) == NOT_ADMIN
    assert get_incident(db, ops.id).state == "open"  # a student changes nothing
    text = incident_action(ctx, True, "acknowledge", ops.id, "on it")
    assert f"Incident #{ops.id}" in text and "**acknowledged**" in text
    assert "Webhook: not set" in text
    again = incident_action(ctx, True, "acknowledge", ops.id)
    assert "is acknowledged" in again and "Traceback" not in again
    bad = incident_action(ctx, True, "accept", drift.id, None, "May 2nd")
    assert "is not a date" in bad and get_incident(db, drift.id).state == "open"
    done = incident_action(ctx, True, "accept", drift.id, None, "2026-05-02")
    assert "**accepted**" in done and "start on 2026-05-02" in done
    assert get_incident(db, drift.id).baseline_from == date(2026, 5, 2)
    assert "Choose an incident" in incident_action(ctx, True, "resolve", None)

    rows = incident_rows(list_incidents(db, monitor="ui-watch"))
    by_id = {r[0]: r for r in rows}
    assert by_id[drift.id][4] == "accepted (baseline from 2026-05-02)"
    assert by_id[ops.id][4] == "acknowledged" and by_id[ops.id][10] == "on it"
    # the series the overview reads is the stored history
    assert {s["model"] for s in history(db, "ui-watch")} == {"scripted/a", "scripted/b"}
