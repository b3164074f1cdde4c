"""Telling people about drift: the one-line message, the webhook's body and its POST.

A webhook receives one body per incident event (an incident opened, got worse, reopened,
resolved, was acknowledged or accepted; see :mod:`quizbot.monitoring.incidents`), never one per
nightly alert. Every event has a **one-line message** a person can act on, written from the
:class:`Figures` behind it (:func:`headline`), e.g.

    gpt-x on clinical-core: accuracy 0.91 → 0.78 over 3 nights (−13 points, p < 0.001);
    21 of 120 anchor items flipped

and a link to the incident in the app when ``QUIZBOT_PUBLIC_URL`` is set (:func:`incident_url`).

Body formats (a monitor's ``webhook_format``; :func:`webhook_body`)
    ``slack`` (default)
        ``{"text": ...}``: the event and its message on the first line, the link on the
        second (Slack's ``<url|label>`` form). Slack, Mattermost, Rocket.Chat and most chat
        tools' incoming webhooks take it as it is.
    ``json``
        The raw object of :func:`incident_payload`: the fields of :func:`alert_payload` (the
        alert that opened the incident), ``event``, ``incident``, ``text``, ``url`` and
        ``figures`` (:meth:`Figures.as_json`), for receivers that parse it (PagerDuty through a
        router, a script).

Delivery is retried with backoff on connection errors, timeouts, 429 and 5xx; any other answer is
final. Delivery never raises: a failing webhook must not fail the night that found the drift (the
alert is stored and shown in the app either way, with the delivery error).
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any
from urllib.parse import urlencode

from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from quizbot import clock

__all__ = [
    "METRIC_LABELS",
    "WEBHOOK_FORMATS",
    "WEBHOOK_WAIT",
    "Figures",
    "alert_payload",
    "event_text",
    "headline",
    "incident_payload",
    "incident_url",
    "post_webhook",
    "webhook_body",
]

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
WEBHOOK_FORMATS = ("slack", "json")

# What an incident's metric is called in a message.
METRIC_LABELS = {
    "accuracy": "accuracy",
    "recall_f1": "open recall mean F1",
    "recall_tiers": "share basically correct (open recall)",
    "sdak_instruction_following": "SDAK instruction following",
    "provider_model": "reported model id",
    "night_failed": "nightly run",
}
_MINUS = "\u2212"  # a typographic minus: "−13 points"


@dataclass(frozen=True)
class Figures:
    """The figures behind one incident message (JSON in the webhook's ``figures``).

    ``before`` is the metric on the reference night (the last completed night before the
    incident opened), ``after`` tonight's, with its 95% ``interval``; ``nights`` counts the
    nights from the first alerting one to tonight. ``p_value`` is the smallest adjusted
    p-value of tonight's alerts of the metric; ``flipped`` of ``anchors`` anchor items changed
    their answer between the two nights (accuracy only). ``detail`` says what happened when
    there is no figure to compare (a new model id, a failed night).
    """

    monitor: str
    model: str
    source: str  # the knowledge base or "item set NAME"
    metric: str
    night: str
    severity: str
    before: float | None = None
    after: float | None = None
    interval: list[float] | None = None
    n: int | None = None
    nights: int = 1
    p_value: float | None = None
    flipped: int | None = None
    anchors: int | None = None
    reference_night: str | None = None
    detail: str | None = None

    @property
    def label(self) -> str:
        """The metric as people say it."""
        return METRIC_LABELS.get(self.metric, self.metric.replace("_", " "))

    @property
    def change_points(self) -> float | None:
        """after − before in percentage points."""
        if self.before is None or self.after is None:
            return None
        return (self.after - self.before) * 100

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict (the webhook's ``figures``)."""
        return {**asdict(self), "label": self.label, "change_points": self.change_points}


def _p_text(p: float | None) -> str | None:
    if p is None:
        return None
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _points_text(points: float) -> str:
    whole = round(points)
    if whole == 0:
        return f"{points:+.1f} points".replace("-", _MINUS)
    return f"{_MINUS if whole < 0 else '+'}{abs(whole)} point{'s' if abs(whole) != 1 else ''}"


def headline(f: Figures) -> str:
    """The one-line message of ``f``: who, where, what moved, how much, how sure, which items."""
    who = f"{f.model} on {f.source}"
    if f.after is None:
        return f"{who}: {f.detail or f.label + ' alert'}"
    span = f"over {f.nights} night{'s' if f.nights != 1 else ''}"
    if f.before is None or f.change_points is None:
        head = f"{who}: {f.label} {f.after:.2f}"
        extras = [x for x in (_p_text(f.p_value),) if x]
    else:
        head = f"{who}: {f.label} {f.before:.2f} → {f.after:.2f} {span}"
        extras = [x for x in (_points_text(f.change_points), _p_text(f.p_value)) if x]
    line = head + (f" ({', '.join(extras)})" if extras else "")
    if f.flipped is not None and f.anchors:
        line += f"; {f.flipped} of {f.anchors} anchor items flipped"
    return line


def incident_url(public_url: str | None, incident_id: int) -> str | None:
    """The incident's page in the app (the Monitor tab opens on it), or None without
    ``QUIZBOT_PUBLIC_URL``."""
    if not public_url:
        return None
    return f"{public_url.rstrip('/')}/?{urlencode({'tab': 'monitor', 'incident': incident_id})}"


_EVENT_WORDS = {
    "opened": "opened",
    "worsened": "got worse",
    "reopened": "reopened (it came back within the window)",
    "resolved": "resolved",
    "acknowledged": "acknowledged",
    "accepted": "accepted as the new baseline",
}


def event_text(event: str, incident: dict[str, Any], message: str, url: str | None) -> str:
    """The chat text of one event: ``[CRITICAL] incident #3 opened: <message>`` and the link
    (``<url|label>``) on a second line."""
    words = _EVENT_WORDS.get(event, event)
    tag = f"[{str(incident.get('severity', '')).upper()}] " if event != "resolved" else ""
    first = f"{tag}incident #{incident['id']} {words}: {message}"
    if url:
        return f"{first}\n<{url}|Open incident #{incident['id']} in quizbot>"
    return first


def incident_payload(
    incident: dict[str, Any],
    event: str,
    *,
    night: date | None = None,
    by: str | None = None,
    note: str | None = None,
    provider_model: str | None = None,
    figures: Figures | None = None,
    url: str | None = None,
) -> dict[str, Any]:
    """The raw JSON object of one incident event (the ``json`` body format).

    ``incident`` is :meth:`storage.incidents.Incident.as_json`. The alert fields describe the
    most severe alert of the incident's first night; ``message`` is the one-line message
    (:func:`headline` of ``figures`` for a night's event; who did what for a person's), ``text``
    the chat text with the link.
    """
    evidence = incident.get("evidence") or []
    first_night = evidence[0]["night"] if evidence else None
    first = [e for e in evidence if e["night"] == first_night]
    empty: dict[str, Any] = {}
    lead = max(first, key=lambda e: _SEVERITY_RANK.get(e["severity"], 0), default=empty)
    if figures is not None:
        message = headline(figures)
    else:
        what = {
            "opened": lead.get("message", "incident opened"),
            "resolved": "resolved",
            "acknowledged": "acknowledged",
            "accepted": f"new level accepted as the baseline from {incident.get('baseline_from')}",
        }.get(event, event)
        who = f" by {by}" if by else ""
        message = f"incident {incident['id']} ({incident['metric']}) {what}{who}" + (
            f": {note}" if note else ""
        )
    payload = alert_payload(
        monitor=incident["monitor"],
        model=incident["model"],
        night=(night or clock.now().astimezone().date()).isoformat(),
        severity=incident["severity"],
        metric=lead.get("statistic", incident["metric"]),
        effect=lead.get("effect"),
        p_value=lead.get("p_value"),
        message=message,
        run_ids=list(lead.get("run_ids", [])),
        provider_model=provider_model,
    )
    brief = {k: v for k, v in incident.items() if k not in ("events", "nights")}
    return {
        **payload,
        "event": event,
        "incident": brief,
        "text": event_text(event, incident, message, url),
        "url": url,
        "figures": figures.as_json() if figures is not None else None,
    }


def webhook_body(payload: dict[str, Any], body_format: str = "slack") -> dict[str, Any]:
    """What is POSTed: ``{"text": ...}`` (``slack``, the default) or the raw ``payload``
    (``json``)."""
    if body_format == "json":
        return payload
    return {"text": payload["text"]}


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
