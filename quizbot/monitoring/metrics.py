"""Prometheus metrics: quizbot's figures for operators' own dashboards (``/metrics``).

Two kinds, so that several app processes sharing one database give one picture:

**From the database** (:class:`DatabaseCollector`, read at each scrape, the same from every
process; cached for :data:`CACHE_SECONDS` so several scrapers cost one read):

=================================================  =========================================
``quizbot_monitor_accuracy{monitor,model,part}``   last completed night's accuracy (part:
                                                   overall, anchor, rotating)
``quizbot_monitor_accuracy_low/high{...}``         its 95% Wilson interval
``quizbot_monitor_answer_rate{monitor,model}``     last night's share answered (not "I do not
                                                   know", not unreadable)
``quizbot_monitor_instruction_following{...}``     last night's instruction following (SDAK
                                                   nights: both verdicts of a pair first;
                                                   others: a readable answer)
``quizbot_monitor_recall_f1{monitor,model}``       open recall nights: mean F1
``quizbot_monitor_last_night_timestamp_seconds``   the last completed night (its date, 00:00 UTC)
``quizbot_monitor_night_duration_seconds``         the last finished night, claim to finish
``quizbot_monitor_nights_total{...,status}``       nights by status (completed, failed, ...)
``quizbot_monitor_incidents_open{...,severity,     active incidents (state open or acknowledged)
state}``
``quizbot_eval_runs_total{status}``                evaluation runs by status
``quizbot_model_calls_total{outcome}``             models' answers in runs by outcome
``quizbot_practice_answers_total{outcome}``        practice answers by outcome (never by
                                                   student: no names, cohorts or sessions)
=================================================  =========================================

**From the process**: ``quizbot_http_request_duration_seconds{route}``, a histogram of request
latency (routes grouped into a few names, :func:`route_of`). Each process counts its own; with
``PROMETHEUS_MULTIPROC_DIR`` set (prometheus-client's multi-process mode, the directory shared
and emptied before start) every process's figures are summed in each scrape.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from datetime import time as day_time
from typing import Any

from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from quizbot.domain import NightStatus
from storage import Database
from storage.metrics import counts, last_nights

__all__ = [
    "CACHE_SECONDS",
    "METRIC_NAMES",
    "REQUEST_LATENCY",
    "DatabaseCollector",
    "registry_for",
    "route_of",
]

CACHE_SECONDS = 10.0

REQUEST_LATENCY = Histogram(
    "quizbot_http_request_duration_seconds",
    "Time to answer an HTTP request, by route group.",
    ["route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
    registry=None,
)

# Every metric name /metrics can show (the Grafana dashboard's test checks against it).
METRIC_NAMES = frozenset({
    "quizbot_monitor_accuracy", "quizbot_monitor_accuracy_low", "quizbot_monitor_accuracy_high",
    "quizbot_monitor_answer_rate", "quizbot_monitor_instruction_following",
    "quizbot_monitor_recall_f1", "quizbot_monitor_last_night_timestamp_seconds",
    "quizbot_monitor_night_duration_seconds", "quizbot_monitor_nights_total",
    "quizbot_monitor_incidents_open", "quizbot_eval_runs_total", "quizbot_model_calls_total",
    "quizbot_practice_answers_total", "quizbot_http_request_duration_seconds_bucket",
    "quizbot_http_request_duration_seconds_count", "quizbot_http_request_duration_seconds_sum",
    "quizbot_http_request_duration_seconds_created",
})  # fmt: skip

_ROUTES = (
    # A page's event stream and heartbeat last as long as the page (quizbot.ui.event_stream):
    # groups of their own, so that the groups of requests answered at once mean what they say.
    ("/gradio_api/queue/data", "event_stream"),
    ("/gradio_api/heartbeat", "heartbeat"),
    ("/gradio_api/queue", "gradio_queue"),
    ("/gradio_api/upload", "upload"),
    ("/gradio_api/", "gradio_api"),
    ("/assets/", "static"),
    ("/static/", "static"),
    ("/login", "login"),
    ("/logout", "login"),
    ("/account", "account"),
    ("/metrics", "metrics"),
    ("/status", "status"),
)


def route_of(path: str) -> str:
    """A bounded route name for ``path`` (label values must not grow with the URLs asked)."""
    if path in ("", "/"):
        return "page"
    for prefix, name in _ROUTES:
        if path.startswith(prefix):
            return name
    return "other"


def _value(part: dict[str, Any] | None, key: str) -> float | None:
    figure = (part or {}).get(key) or {}
    value = figure.get("value") if isinstance(figure, dict) else None
    return None if value is None else float(value)


class DatabaseCollector(Collector):
    """The database's figures as Prometheus metrics, read at most every :data:`CACHE_SECONDS`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._cached: tuple[float, list[Metric]] | None = None

    def collect(self) -> Iterator[Metric]:
        """Yield every family (from the cache when it is fresh)."""
        with self._lock:
            now = time.monotonic()
            if self._cached is None or now - self._cached[0] > CACHE_SECONDS:
                self._cached = (now, self._read())
            metrics = self._cached[1]
        yield from metrics

    def _read(self) -> list[Metric]:
        labels = ["monitor", "model"]
        accuracy = GaugeMetricFamily(
            "quizbot_monitor_accuracy", "Last completed night's accuracy.", labels=[*labels, "part"]
        )
        low = GaugeMetricFamily(
            "quizbot_monitor_accuracy_low",
            "Lower end of its 95% interval.",
            labels=[*labels, "part"],
        )
        high = GaugeMetricFamily(
            "quizbot_monitor_accuracy_high",
            "Upper end of its 95% interval.",
            labels=[*labels, "part"],
        )
        answered = GaugeMetricFamily(
            "quizbot_monitor_answer_rate", "Last completed night's share answered.", labels=labels
        )
        following = GaugeMetricFamily(
            "quizbot_monitor_instruction_following",
            "Last completed night's instruction following.",
            labels=labels,
        )
        recall = GaugeMetricFamily(
            "quizbot_monitor_recall_f1",
            "Last completed open recall night's mean F1.",
            labels=labels,
        )
        when = GaugeMetricFamily(
            "quizbot_monitor_last_night_timestamp_seconds",
            "Date of the last completed night (00:00 UTC).",
            labels=labels,
        )
        duration = GaugeMetricFamily(
            "quizbot_monitor_night_duration_seconds",
            "The last finished night, claim to finish.",
            labels=labels,
        )
        for night in last_nights(self.db, (NightStatus.COMPLETED,)):
            key = [night.monitor, night.model]
            summary = night.summary or {}
            for part in ("overall", "anchor", "rotating"):
                figure = (summary.get(part) or {}).get("accuracy") or {}
                if figure.get("value") is None:
                    continue
                accuracy.add_metric([*key, part], float(figure["value"]))
                if figure.get("interval"):
                    low.add_metric([*key, part], float(figure["interval"][0]))
                    high.add_metric([*key, part], float(figure["interval"][1]))
            overall = summary.get("overall") or {}
            if (rate := _value(overall, "answer_rate")) is not None:
                answered.add_metric(key, rate)
            sdak = (summary.get("sdak") or {}).get("metrics") or {}
            follows = sdak.get("instruction_following", _value(overall, "instruction_following"))
            if follows is not None:
                following.add_metric(key, float(follows))
            f1 = (((summary.get("recall") or {}).get("overall") or {}).get("f1") or {}).get("mean")
            if f1 is not None:
                recall.add_metric(key, float(f1))
            midnight = datetime.combine(night.night, day_time(0), tzinfo=UTC)
            when.add_metric(key, midnight.timestamp())
        for night in last_nights(self.db, (NightStatus.COMPLETED, NightStatus.FAILED)):
            if night.finished_at is not None:
                seconds = (night.finished_at - night.claimed_at).total_seconds()
                duration.add_metric([night.monitor, night.model], max(0.0, seconds))
        found = counts(self.db)
        nights = CounterMetricFamily("quizbot_monitor_nights", "Monitor nights by status.",
                                     labels=[*labels, "status"])  # fmt: skip
        for (monitor, model, status), n in sorted(found.nights.items()):
            nights.add_metric([monitor, model, status], n)
        incidents = GaugeMetricFamily("quizbot_monitor_incidents_open",
                                      "Active incidents (open or acknowledged).",
                                      labels=[*labels, "severity", "state"])  # fmt: skip
        for (monitor, model, severity, state), n in sorted(found.incidents.items()):
            incidents.add_metric([monitor, model, severity, state], n)
        runs = CounterMetricFamily("quizbot_eval_runs", "Evaluation runs by status.",
                                   labels=["status"])  # fmt: skip
        for status, n in sorted(found.runs.items()):
            runs.add_metric([status], n)
        calls = CounterMetricFamily("quizbot_model_calls", "Models' answers in runs by outcome.",
                                    labels=["outcome"])  # fmt: skip
        for outcome, n in sorted(found.calls.items()):
            calls.add_metric([outcome], n)
        practice = CounterMetricFamily("quizbot_practice_answers",
                                       "Practice answers by outcome (people, counted only).",
                                       labels=["outcome"])  # fmt: skip
        for outcome, n in sorted(found.practice.items()):
            practice.add_metric([outcome], n)
        return [accuracy, low, high, answered, following, recall, when, duration, nights,
                incidents, runs, calls, practice]  # fmt: skip


def registry_for(db: Database) -> CollectorRegistry:
    """A registry of the database's figures and the request latency (every process's, in
    prometheus-client's multi-process mode)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DatabaseCollector(db))
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry.register(REQUEST_LATENCY)
    return registry
