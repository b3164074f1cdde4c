"""Incidents, not alerts: one behaviour change is one incident and one webhook post.

End to end on both databases with a real local HTTP receiver: a scripted model that answers by
hash (tests/monitoring/test_nights.py) steps from 80% to 65% on night 20; its alerts over the
following nights join one incident, the webhook hears of it once, and after "accept new
baseline" the nights at the new level raise no alert and post nothing. The rules of
:func:`~quizbot.monitoring.incidents.plan_night` (joining, resolving, failed nights) are checked
without a database below.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from tenacity import wait_none

from quizbot.config import Settings
from quizbot.domain import Alert
from quizbot.errors import InputError, NotFoundError
from quizbot.monitoring import alerts as alerts_module
from quizbot.monitoring.incidents import (
    RESOLVE_AFTER_NIGHTS,
    Active,
    accept_baseline,
    acknowledge,
    incident_metric,
    plan_night,
    resolve,
)
from quizbot.monitoring.nights import run_night
from quizbot.providers import ProviderError, Request
from quizbot.providers.scripted import ScriptedProvider
from schedules.config import MonitorSpec
from storage import Database
from storage.incidents import IncidentState, get_incident, list_incidents
from storage.monitoring import get_monitor
from tests.monitoring.test_nights import _night, stepping_model

STEP = 20  # the model falls from 80% to 65% on this night


class _Receiver(BaseHTTPRequestHandler):
    bodies: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        type(self).bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hook(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setattr(alerts_module, "WEBHOOK_WAIT", wait_none())
    _Receiver.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    server.shutdown()


def _spec(hook: str) -> MonitorSpec:
    return MonitorSpec(name="step", models=("scripted/step",), cron="0 2 * * *", webhook=hook,
                       webhook_format="json")  # fmt: skip


def declared(spec: MonitorSpec, tmp_path: Path) -> Settings:
    """Settings whose schedules file declares ``spec``: a person's action on an incident posts
    to the webhook declared there (the database keeps only its scheme and host)."""
    path = tmp_path / "monitors.toml"
    path.write_text(
        f'[[monitor]]\nname = "{spec.name}"\nmodels = {json.dumps(list(spec.models))}\n'
        f'cron = "{spec.cron}"\nwebhook = "{spec.webhook}"\n'
        f'webhook_format = "{spec.webhook_format}"\n',
        encoding="utf-8",
    )
    return Settings(schedules_file=path)


def _run(db: Database, spec: MonitorSpec, nights: range) -> list[Any]:
    factory = stepping_model(db, spec, lambda day: 0.8 if day < _night(STEP) else 0.65)
    results = []
    for n in nights:
        result = run_night(db, spec, spec.models[0], _night(n), provider_factory=factory)
        assert result.status == "completed", result.message
        results.append(result)
    return results


def test_a_step_change_is_one_incident_one_post_and_quiet_after_accepting(
    db: Database, hook: str, tmp_path: Path
) -> None:
    spec = _spec(hook)
    before = _run(db, spec, range(1, STEP))
    assert not any(r.alerts for r in before) and _Receiver.bodies == []

    after = _run(db, spec, range(STEP, STEP + 3))
    alerting = [r.date for r in after if r.alerts]
    assert len(alerting) >= 2, [r.alerts for r in after]  # several nights alert ...
    (incident,) = list_incidents(db, monitor="step")  # ... and form one incident
    assert incident.metric == "accuracy" and incident.kind == "drift"
    assert incident.state == "open" and incident.opened_on == alerting[0]
    assert sorted({e["night"] for e in incident.evidence}) == [d.isoformat() for d in alerting]
    tested = [e["p_value"] for e in incident.evidence if e["statistic"] != "rotating:accuracy"
              or "CUSUM" not in e["message"]]  # fmt: skip
    assert tested and all(p is not None and p < 0.01 for p in tested), incident.evidence
    assert len(_Receiver.bodies) == 1  # one webhook post, when it opened
    (opened,) = _Receiver.bodies
    assert opened["event"] == "opened" and opened["incident"]["id"] == incident.id
    assert opened["monitor"] == "step" and opened["date"] == alerting[0].isoformat()
    assert opened["severity"] == incident.severity == "critical"

    accepted = accept_baseline(db, incident.id, by="test", from_night=_night(STEP),
                               settings=declared(spec, tmp_path))  # fmt: skip
    assert accepted.state == "accepted" and accepted.baseline_from == _night(STEP)
    assert [b["event"] for b in _Receiver.bodies] == ["opened", "accepted"]

    later = _run(db, spec, range(STEP + 3, STEP + 8))
    assert [r.alerts for r in later] == [()] * 5
    assert len(_Receiver.bodies) == 2  # no post after accepting
    assert [i.id for i in list_incidents(db, monitor="step")] == [incident.id]
    assert later[-1].summary["notes"] == [
        f"{STEP - 1} nights before the baseline accepted from {_night(STEP)} "
        "left out of the comparisons"
    ]


def test_without_accepting_the_alerts_keep_joining_the_same_incident(
    db: Database, hook: str
) -> None:
    # The control of the test above: the same nights without "accept" keep alerting (the
    # window still holds the old level), and every alert joins the one open incident.
    spec = _spec(hook)
    _run(db, spec, range(1, STEP))
    later = _run(db, spec, range(STEP, STEP + 8))
    assert sum(bool(r.alerts) for r in later[3:]) >= 1, [r.alerts for r in later]
    (incident,) = list_incidents(db, monitor="step")
    assert incident.state == "open"
    assert [b["event"] for b in _Receiver.bodies] == ["opened"]


def test_a_failed_night_is_an_operational_incident_resolved_by_the_next_good_night(
    db: Database, hook: str
) -> None:
    spec = MonitorSpec(name="ops", models=("scripted/m",), cron="0 2 * * *", points=2,
                       anchor_points=1, webhook=hook, webhook_format="json")  # fmt: skip

    def refused(_n: int, _r: Request) -> ProviderError:
        return ProviderError("401 invalid key", retryable=False, kind="auth")

    failing = ScriptedProvider(["True"], fail=refused)
    for n in (1, 2):
        failed = run_night(db, spec, "scripted/m", _night(n), provider_factory=lambda *_: failing)
        assert failed.status == "failed"
    (incident,) = list_incidents(db, monitor="ops")
    assert incident.kind == "operational" and incident.metric == "night_failed"
    assert len(incident.evidence) == 2 and [b["event"] for b in _Receiver.bodies] == ["opened"]
    with pytest.raises(InputError, match="operational"):
        accept_baseline(db, incident.id, by="test")

    working = ScriptedProvider(["True"])
    good = run_night(db, spec, "scripted/m", _night(3), provider_factory=lambda *_: working)
    assert good.status == "completed"
    assert get_incident(db, incident.id).state == "resolved"
    assert [b["event"] for b in _Receiver.bodies] == ["opened", "resolved"]


def test_acknowledge_and_resolve_by_hand_post_once_each(
    db: Database, hook: str, tmp_path: Path
) -> None:
    spec = MonitorSpec(name="hand", models=("scripted/m",), cron="0 2 * * *", points=2,
                       anchor_points=1, webhook=hook, webhook_format="json")  # fmt: skip
    settings = declared(spec, tmp_path)
    failing = ScriptedProvider(
        ["True"], fail=lambda _n, _r: ProviderError("401 bad key", retryable=False, kind="auth")
    )
    run_night(db, spec, "scripted/m", _night(1), provider_factory=lambda *_: failing)
    (incident,) = list_incidents(db, monitor="hand")

    acked = acknowledge(db, incident.id, by="ana", note="looking", settings=settings)
    assert acked.state == "acknowledged" and acked.note == "looking"
    with pytest.raises(InputError, match="is acknowledged"):
        acknowledge(db, incident.id, by="ana", settings=settings)
    done = resolve(db, incident.id, by="ana", settings=settings)
    assert done.state == "resolved" and done.closed_on is not None
    with pytest.raises(InputError, match="is resolved"):
        resolve(db, incident.id, by="ana", settings=settings)
    with pytest.raises(NotFoundError):
        resolve(db, 999_999, by="ana", settings=settings)
    assert [b["event"] for b in _Receiver.bodies] == ["opened", "acknowledged", "resolved"]
    assert _Receiver.bodies[1]["message"].endswith("acknowledged by ana: looking")
    events = get_incident(db, incident.id).events
    assert [(e["event"], e["webhook"]) for e in events] == [
        ("opened", "delivered"), ("acknowledged", "delivered"), ("resolved", "delivered"),
    ]  # fmt: skip
    # a later failure opens a new incident: the resolved one stays closed
    run_night(db, spec, "scripted/m", _night(2), provider_factory=lambda *_: failing)
    assert [i.state for i in list_incidents(db, monitor="hand")] == ["open", "resolved"]
    assert list_incidents(db, states={IncidentState.OPEN})[0].opened_on == _night(2)


def test_accepting_a_night_after_the_last_one_run_is_refused(db: Database, hook: str) -> None:
    spec = MonitorSpec(name="acc", models=("scripted/m",), cron="0 2 * * *", points=2,
                       anchor_points=1, webhook=hook)  # fmt: skip
    reported = iter(["v1", "v2"])
    for n in (1, 2):
        provider = ScriptedProvider(["True"], reported_model=next(reported))
        run_night(db, spec, "scripted/m", _night(n), provider_factory=lambda *_, p=provider: p)
    (incident,) = list_incidents(db, monitor="acc")  # the model id changed on night 2
    assert incident.metric == "provider_model"
    with pytest.raises(InputError, match="after the last night"):
        accept_baseline(db, incident.id, by="t", from_night=_night(5))
    assert get_incident(db, incident.id).state == "open"  # nothing written
    monitor = get_monitor(db, "acc")
    # stored with its path masked (tokens live there); the night posts to the configured one
    assert monitor.definition["webhook"] == hook.removesuffix("/hook") + "/[redacted]"


# --------------------------------------------------------------------------------------------
# The rules, without a database


def _alert(metric: str, severity: str = "warning", alert_id: int = 1) -> Alert:
    now = datetime(2026, 1, 1)
    return Alert(alert_id, 1, None, severity, metric, -0.1, 0.001, "fell", [1], None, None, now)


def test_alerts_of_every_scope_of_one_metric_open_one_incident() -> None:
    alerts = [
        _alert("anchor:accuracy", "critical", 1),
        _alert("rotating:accuracy", "warning", 2),
        _alert("relation:treats:accuracy", "warning", 3),
        _alert("model_id:provider_model", "warning", 4),
    ]
    plan = plan_night([], alerts, date(2026, 1, 1), completed=True)
    assert sorted((o.metric, o.severity, len(o.evidence)) for o in plan.openings) == [
        ("accuracy", "critical", 3), ("provider_model", "warning", 1),
    ]  # fmt: skip
    assert incident_metric("operational:night_failed") == "night_failed"


def test_an_active_incident_absorbs_alerts_and_resolves_after_quiet_nights() -> None:
    # Two quiet nights already counted: a new alert starts the count again from zero.
    active = Active(7, "accuracy", "warning", 2)
    day = date(2026, 1, 5)
    joined = plan_night([active], [_alert("rotating:accuracy", "critical")], day, completed=True)
    assert joined.openings == ()
    (update,) = joined.updates
    assert (update.id, update.severity, update.quiet_nights, update.state) == (
        7, "critical", 0, None,
    )  # fmt: skip
    for quiet in range(RESOLVE_AFTER_NIGHTS):
        state = Active(7, "accuracy", "critical", quiet)
        (update,) = plan_night([state], [], day, completed=True).updates
        expected = IncidentState.RESOLVED if quiet + 1 == RESOLVE_AFTER_NIGHTS else None
        assert (update.quiet_nights, update.state) == (quiet + 1, expected)
    # a failed night says nothing about drift: no quiet night counted
    failed = plan_night([Active(7, "accuracy", "critical", 2)], [], day, completed=False)
    assert failed.updates == ()


def test_an_operational_incident_resolves_on_the_first_completed_night() -> None:
    active = Active(3, "night_failed", "critical", 0, kind="operational")
    (update,) = plan_night([active], [], date(2026, 1, 2), completed=True).updates
    assert update.state == IncidentState.RESOLVED
