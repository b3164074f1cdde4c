"""Telling people about drift: the log line and the webhook POST.

A webhook receives one JSON object per incident event (:func:`incident_payload`: an incident
opened, acknowledged, resolved or accepted; see :mod:`quizbot.monitoring.incidents`), never one
per nightly alert. Its top-level fields are those of :func:`alert_payload` (the alert that opened
the incident), plus ``event`` and ``incident``. Delivery is retried with
backoff on connection errors, timeouts, 429 and 5xx; any other answer is final. Delivery never
raises: a failing webhook must not fail the night that found the drift (the alert is stored and
shown in the app either way, with the delivery error).
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from datetime import date
from typing import Any

from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

__all__ = ["WEBHOOK_WAIT", "alert_payload", "incident_payload", "post_webhook"]

log = logging.getLogger(__name__)

WEBHOOK_WAIT: Any = wait_random_exponential(multiplier=1, max=30)  # tests replace it
_RETRY_STATUS = frozenset({408, 425, 429})
_HTTP_SERVER_ERROR = 500


class _RetryableError(Exception):
    """A delivery failure worth another try."""


def alert_payload(
    *,
    monitor: str,
    model: str,
    night: str,
    severity: str,
    metric: str,
    effect: float | None,
    p_value: float | None,
    message: str,
    run_ids: list[int],
    provider_model: str | None,
) -> dict[str, Any]:
    """The JSON object a webhook receives for one alert."""
    return {
        "source": "quizbot",
        "monitor": monitor,
        "model": model,
        "provider_model": provider_model,
        "date": night,
        "severity": severity,
        "metric": metric,
        "effect": effect,
        "p_value": p_value,
        "message": message,
        "run_ids": run_ids,
    }


_SEVERITY_RANK = {"info": 0, "warning": 1, "critical": 2}


def incident_payload(
    incident: dict[str, Any],
    event: str,
    *,
    night: date | None = None,
    by: str | None = None,
    note: str | None = None,
    provider_model: str | None = None,
) -> dict[str, Any]:
    """The JSON object a webhook receives for one incident event.

    ``incident`` is :meth:`storage.incidents.Incident.as_json`. The alert fields describe the
    most severe alert of the incident's first night; ``message`` says what happened.
    """
    evidence = incident.get("evidence") or []
    first_night = evidence[0]["night"] if evidence else None
    first = [e for e in evidence if e["night"] == first_night]
    empty: dict[str, Any] = {}
    lead = max(first, key=lambda e: _SEVERITY_RANK.get(e["severity"], 0), default=empty)
    what = {
        "opened": lead.get("message", "incident opened"),
        "resolved": "resolved",
        "acknowledged": "acknowledged",
        "accepted": f"new level accepted as the baseline from {incident.get('baseline_from')}",
    }.get(event, event)
    who = f" by {by}" if by else ""
    message = (
        what
        if event == "opened"
        else f"incident {incident['id']} ({incident['metric']}) {what}{who}"
        + (f": {note}" if note else "")
    )
    payload = alert_payload(
        monitor=incident["monitor"],
        model=incident["model"],
        night=(night.isoformat() if night else date.today().isoformat()),
        severity=incident["severity"],
        metric=lead.get("statistic", incident["metric"]),
        effect=lead.get("effect"),
        p_value=lead.get("p_value"),
        message=message,
        run_ids=list(lead.get("run_ids", [])),
        provider_model=provider_model,
    )
    brief = {k: v for k, v in incident.items() if k not in ("events",)}
    return {**payload, "event": event, "incident": brief}


def _post_once(url: str, body: bytes, timeout: float) -> None:
    request = urllib.request.Request(  # noqa: S310 - the schedules file allows http(s) only
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "User-Agent": "quizbot-alerts"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - http(s) only
            response.read()
    except urllib.error.HTTPError as exc:
        reason = f"HTTP {exc.code} {exc.reason}"
        if exc.code >= _HTTP_SERVER_ERROR or exc.code in _RETRY_STATUS:
            raise _RetryableError(reason) from None
        raise RuntimeError(reason) from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        raise _RetryableError(str(getattr(exc, "reason", exc))) from None


def post_webhook(
    url: str, payload: dict[str, Any], *, attempts: int = 4, timeout: float = 10.0
) -> str | None:
    """POST ``payload`` as JSON; ``None`` when delivered, else why it was not. Never raises."""
    body = json.dumps(payload, allow_nan=False).encode()
    retrying = Retrying(
        retry=retry_if_exception(lambda exc: isinstance(exc, _RetryableError)),
        wait=WEBHOOK_WAIT,
        stop=stop_after_attempt(attempts),
    )
    try:
        retrying(_post_once, url, body, timeout)
    except RetryError as exc:
        error = f"gave up after {attempts} attempts: {exc.last_attempt.exception()}"
    except Exception as exc:
        error = str(exc) or type(exc).__name__
    else:
        return None
    log.warning("webhook %s: %s", url, error)
    return error
