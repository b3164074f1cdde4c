"""Nights that fail, die or are taken over; webhooks that refuse. Each test here catches a bug
that once passed the whole suite (see the architecture issue's list)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest
from tenacity import wait_none

from quizbot.config import Settings
from quizbot.domain import NightStatus, RunStatus
from quizbot.monitoring import alerts as alerts_module
from quizbot.monitoring.alerts import post_webhook
from quizbot.monitoring.nights import run_night
from quizbot.providers import Provider, ProviderError, Request
from quizbot.providers import retry as retry_module
from quizbot.providers.scripted import ScriptedProvider
from schedules.config import MonitorSpec
from storage import Database
from storage.monitoring import get_monitor, list_alerts, list_nights
from storage.repo import count_responses, get_run

SPEC = MonitorSpec(name="fragile", models=("scripted/m",), cron="0 2 * * *", points=2,
                   anchor_points=1)  # fmt: skip
NIGHT = date(2026, 3, 1)


@pytest.fixture(autouse=True)
def _no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry_module, "WAIT", wait_none())
    monkeypatch.setattr(alerts_module, "WEBHOOK_WAIT", wait_none())


def _night(db: Database) -> Any:
    monitor = get_monitor(db, SPEC.name)
    (night,) = list_nights(db, monitor.id)
    return night


def test_a_failed_night_rerun_asks_its_failed_items_again(db: Database) -> None:
    def broken(_n: int, _r: Request) -> ProviderError:
        return ProviderError("upstream 503", retryable=True, kind="server")

    failing = ScriptedProvider(["True"], fail=broken)
    first = run_night(db, SPEC, "scripted/m", NIGHT, provider_factory=lambda *_: failing)
    assert first.status == "failed" and "no usable answers" in first.message
    night = _night(db)
    assert night.status == NightStatus.FAILED and night.run_id is not None
    n_items = get_run(db, night.run_id).n_items
    assert count_responses(db, run_id=night.run_id, usable=True) == 0

    working = ScriptedProvider(["True"])
    again = run_night(db, SPEC, "scripted/m", NIGHT, provider_factory=lambda *_: working)
    assert again.status == "completed"
    assert working.calls == n_items  # every failed item asked again, none skipped
    assert count_responses(db, run_id=night.run_id, usable=True) == n_items
    assert _night(db).status == NightStatus.COMPLETED


def test_a_night_taken_over_resumes_its_run_instead_of_restarting(db: Database) -> None:
    answered = 5

    def dying(n: int, _r: Request) -> ProviderError | None:
        if n >= answered:
            raise KeyboardInterrupt  # the process is killed mid-night
        return None

    # A little latency lets the writer commit the answers before the "kill" (the runner's
    # contract: at most the answers not yet committed are lost).
    first = ScriptedProvider(["True"], fail=dying, max_concurrency=1, latency_s=0.05)
    started = datetime(2026, 3, 1, 2, 0, tzinfo=UTC)
    with pytest.raises(KeyboardInterrupt):
        run_night(db, SPEC, "scripted/m", NIGHT, provider_factory=lambda *_: first, now=started)
    night = _night(db)
    assert night.status == NightStatus.CLAIMED and night.run_id is not None
    run_id = night.run_id
    assert get_run(db, run_id).status == RunStatus.INTERRUPTED
    kept = count_responses(db, run_id=run_id)
    assert 0 < kept <= answered

    second = ScriptedProvider(["True"])

    def factory(_m: str, _s: Settings | None, _r: Mapping[str, Any]) -> Provider:
        return second

    later = started + timedelta(hours=7)  # past the staleness limit: the claim is taken over
    result = run_night(db, SPEC, "scripted/m", NIGHT, provider_factory=factory, now=later)
    assert result.status == "completed" and result.run_id == run_id
    n_items = get_run(db, run_id).n_items
    assert second.calls == n_items - kept  # only what the dead process had not stored
    assert count_responses(db, run_id=run_id) == n_items


class _Hook(BaseHTTPRequestHandler):
    status: ClassVar[int] = 200
    hits: ClassVar[int] = 0
    bodies: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        type(self).bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        type(self).hits += 1
        self.send_response(type(self).status)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hook() -> Iterator[str]:
    _Hook.hits, _Hook.bodies, _Hook.status = 0, [], 200
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    server.shutdown()


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_a_webhook_4xx_is_not_retried(hook: str, status: int) -> None:
    _Hook.status = status
    error = post_webhook(hook, {"x": 1}, attempts=4)
    assert error is not None and str(status) in error
    assert _Hook.hits == 1


@pytest.mark.parametrize("status", [429, 500, 503])
def test_a_webhook_5xx_or_429_is_retried_to_the_limit(hook: str, status: int) -> None:
    _Hook.status = status
    error = post_webhook(hook, {"x": 1}, attempts=4)
    assert error is not None and "gave up after 4 attempts" in error
    assert _Hook.hits == 4


def test_a_delivered_webhook_is_posted_once(hook: str) -> None:
    _Hook.status = 200
    assert post_webhook(hook, {"x": 1}) is None and _Hook.hits == 1


def test_a_failed_night_raises_an_operational_alert_once(db: Database, hook: str) -> None:
    spec = MonitorSpec(name="dead-model", models=("scripted/m",), cron="0 2 * * *", points=2,
                       anchor_points=1, webhook=hook, webhook_format="json")  # fmt: skip

    def refused(_n: int, _r: Request) -> ProviderError:
        return ProviderError("401 invalid key", retryable=False, kind="auth")

    failing = ScriptedProvider(["True"], fail=refused)
    result = run_night(db, spec, "scripted/m", NIGHT, provider_factory=lambda *_: failing)
    assert result.status == "failed"
    (alert,) = result.alerts
    assert alert["metric"] == "operational:night_failed" and alert["severity"] == "critical"
    assert "401 invalid key" in alert["message"]
    assert _Hook.hits == 1 and _Hook.bodies[0]["metric"] == "operational:night_failed"
    monitor = get_monitor(db, spec.name)
    ((stored, night),) = list_alerts(db, monitor.id)
    assert stored.delivered_at is not None and night.status == NightStatus.FAILED

    working = ScriptedProvider(["True"])
    again = run_night(db, spec, "scripted/m", NIGHT, provider_factory=lambda *_: working)
    assert again.status == "completed" and again.alerts == ()
    assert list_alerts(db, monitor.id) == []  # the night is fine now: its failure is replaced
