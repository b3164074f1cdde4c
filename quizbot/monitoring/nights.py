"""Nightly monitors: claim a night, generate its subset, run every model, test for drift, alert.

One night of one monitor x model goes like this (:func:`run_night`):

1. **Claim** the (monitor, model, date) row. The insert is unique, so two schedulers, or a
   scheduler and a person typing ``quizbot monitor run``, never run the same night twice; a
   failed night, or one whose process died, is taken over and its run resumed.
2. **Generate** the night's items: the fixed anchor set (the same statements every night, for
   paired comparison; negatives seeded by the monitor only) and the rotating slice (points and
   negatives seeded by the date, against contamination). A given date always gives the same
   items, so a past night can be reproduced. With ``rephrase``, only the rotating slice is
   rephrased: anchors must stay word for word the same to be paired.
3. **Run** the model through the ordinary runner with caching off (a drift run served from a
   cache would be a lie), recording the model id the provider reports. A monitor of
   ``prompt = "sdak"`` asks its statements the SDAK way through the same entry point
   (``EvalSpec.prompt``); its nights add the SDAK pair metrics and a drift test on instruction
   following, and are compared only with nights asked the same way.
4. **Test** against history (:mod:`quizbot.monitoring.drift`), store the night's summary, every
   drift result and the alerts, and fold the alerts into incidents
   (:mod:`quizbot.monitoring.incidents`), which post the webhook when one opens or changes
   state, never once per alert. After "accept new baseline" the history compared starts at the
   accepted night (the summary's ``notes`` say how many nights were left out). Items a
   reviewer retired are not asked, and their past answers are left out of the comparisons (the
   summary's ``notes`` say how many); stored answers and past summaries are never changed.

A date is the date in the monitor's time zone. Nothing here reads the wall clock except through
the ``now`` arguments, so tests travel in time.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections import OrderedDict
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from quizbot import clock
from quizbot.analysis.metrics import Scored
from quizbot.analysis.recall import recall_records
from quizbot.analysis.reporting import run_records
from quizbot.analysis.sdak import SdakAnswer
from quizbot.config import Settings
from quizbot.domain import Alert, NightRecord, NightStatus, Outcome, RunStatus, Severity
from quizbot.errors import InputError, QuizbotError, RunFailedError
from quizbot.evaluation.runner import RunSummary
from quizbot.evaluation.service import EvalSpec, ProviderFactory, ReadyRun, RunRequest, run
from quizbot.generate.item_banks import item_set_items
from quizbot.generate.points import select
from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.recall import plan_recall, recall_items
from quizbot.generate.service import load_any_items, rephrased, resolve_rephraser, store_items
from quizbot.generate.statements import plan_points, statements
from quizbot.items import GENERATOR_VERSION, AnyItem, StatementItem
from quizbot.kb.registry import get_kb
from quizbot.monitoring.alerts import alert_payload
from quizbot.monitoring.describe import describe_monitor
from quizbot.monitoring.drift import (
    DriftPolicy,
    Finding,
    Night,
    detect,
    night_summary,
    without_items,
)
from quizbot.monitoring.incidents import Tonight, track_night
from schedules.config import MonitorSpec
from storage import Database
from storage.incidents import baseline_from
from storage.monitoring import (
    NewFinding,
    claim_night,
    finish_night,
    get_monitor,
    list_alerts,
    list_nights,
    night_series,
    save_findings,
    set_night_run,
    upsert_monitor,
)
from storage.repo import get_run, list_responses
from storage.review import retired_item_ids

__all__ = [
    "NightResult",
    "ProviderFactory",
    "history",
    "night_items",
    "run_monitor",
    "run_night",
    "sync_monitors",
    "tonight",
]

log = logging.getLogger(__name__)

HISTORY_NIGHTS = 60  # nights of history given to the drift tests (window + the CUSUM's memory)


def claimant() -> str:
    """Who is claiming: host and process id (shown with the night)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def tonight(spec: MonitorSpec, now: datetime) -> date:
    """The night's date for ``now``: the date in the monitor's time zone."""
    return now.astimezone(spec.tz).date()


@dataclass(frozen=True)
class NightResult:
    """What one monitor x model x night did."""

    monitor: str
    model: str
    date: date
    status: str  # "completed", "skipped" (someone else has it), "failed"
    run_id: int | None = None
    provider_model: str | None = None
    alerts: tuple[dict[str, Any], ...] = ()
    message: str = ""
    summary: dict[str, Any] = field(default_factory=dict)
    incidents: tuple[dict[str, Any], ...] = ()  # incident events (opened, resolved) tonight

    def line(self) -> str:
        """One line for people: the night's status, its accuracy (or mean F1) with its 95%
        interval, how many items were asked and how many failed, what it left out."""
        head = f"{self.monitor} {self.date} {self.model}: {self.status}"
        if self.run_id:
            head += f" (run {self.run_id})"
        if self.status == "skipped":
            return f"{head}: already claimed or completed"
        if self.status != "completed":
            return f"{head}: {self.message}"
        overall = self.summary.get("overall") or {}
        recall = (self.summary.get("recall") or {}).get("overall") or {}
        if recall:
            figure = recall.get("f1") or {}
            what, value = "mean F1", figure.get("mean")
        else:
            figure = overall.get("accuracy") or {}
            what, value = "accuracy", figure.get("value")
        interval = figure.get("interval")
        shown = "-" if value is None else f"{value:.3f}"
        if value is not None and interval:
            shown += f" [{interval[0]:.2f}–{interval[1]:.2f}]"
        n = recall.get("n", 0) if recall else overall.get("n_items", 0)
        failed = overall.get("n_errors", 0)
        alerts = f"{len(self.alerts)} alert{'s' if len(self.alerts) != 1 else ''}"
        parts = [f"{what} {shown}", f"{n} items", f"{failed} failed", alerts]
        return (
            f"{head}: "
            + ", ".join(parts)
            + "".join(f"; {note}" for note in self.summary.get("notes", []))
        )

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "monitor": self.monitor,
            "model": self.model,
            "date": self.date.isoformat(),
            "status": self.status,
            "run_id": self.run_id,
            "provider_model": self.provider_model,
            "alerts": list(self.alerts),
            "incidents": [
                {
                    "event": e["event"],
                    "id": e["incident"]["id"],
                    "metric": e["incident"]["metric"],
                    "message": e.get("message"),
                    "url": e.get("url"),
                }
                for e in self.incidents
            ],
            "message": self.message,
        }


def sync_monitors(db: Database, specs: Sequence[MonitorSpec], source: Path | None) -> None:
    """Store each monitor's current definition (the app and history read it from there)."""
    for spec in specs:
        upsert_monitor(
            db,
            spec.name,
            spec.as_json(),
            source_file=str(source) if source else None,
            enabled=spec.enabled,
        )


def _recall_night_items(
    db: Database, spec: MonitorSpec, when: date
) -> tuple[list[AnyItem], frozenset[str]]:
    """A recall monitor's night: ``anchor_points`` fixed (disease, aspect) questions chosen by
    the monitor's name, then fresh ones chosen by the date, ``points`` in all."""
    kb, kb_id = get_kb(db, spec.kb)
    relations = list(spec.relations) if spec.relations else None
    anchors = (
        list(
            recall_items(
                kb,
                plan_recall(
                    kb, relations=relations, limit=spec.anchor_points,
                    seed=f"monitor\x1f{spec.name}",
                ),
            )
        )
        if spec.anchor_points
        else []
    )  # fmt: skip
    anchor_ids = {i.id for i in anchors}
    fresh = plan_recall(
        kb, relations=relations, limit=spec.points, seed=f"monitor\x1f{spec.name}\x1f{when}"
    )
    rotating = [i for i in recall_items(kb, fresh) if i.id not in anchor_ids]
    rotating = rotating[: max(0, spec.points - len(anchors))]
    retired = retired_item_ids(db, [i.id for i in (*anchors, *rotating)])
    items: list[AnyItem] = [i for i in (*anchors, *rotating) if i.id not in retired]
    if not items:
        raise InputError(f"monitor {spec.name!r}: no recall questions left to ask")
    store_items(db, kb, kb_id, items)
    return items, frozenset(i.id for i in anchors if i.id not in retired)


def night_items(
    db: Database, spec: MonitorSpec, when: date, settings: Settings | None = None
) -> tuple[list[AnyItem], frozenset[str]]:
    """The night's items (anchors first) and the ids of the anchor items.

    Items a reviewer retired are left out (an anchor set shrinks by its retired statements).
    A monitor of an imported item set (``item_set``) asks the whole set every night, all of it
    anchors, so every night is paired with the last on the same items. A monitor of
    ``format = "recall"`` asks open recall questions (:func:`_recall_night_items`).
    """
    if spec.format == "recall":
        return _recall_night_items(db, spec, when)
    if spec.item_set:
        _, fixed = item_set_items(db, spec.item_set)
        retired_set = retired_item_ids(db, [i.id for i in fixed])
        fixed = [i for i in fixed if i.id not in retired_set]
        if not fixed:
            raise InputError(f"monitor {spec.name!r}: item set {spec.item_set!r} has no items left")
        return list(fixed), frozenset(i.id for i in fixed)
    kb, kb_id = get_kb(db, spec.kb)
    prototypes = default_prototypes()
    relations = (
        list(spec.relations)
        if spec.relations
        else sorted(r for r in kb.relations if prototypes.covers(r))
    )
    unknown = sorted(set(relations) - set(kb.relations))
    if unknown:
        raise InputError(
            f"monitor {spec.name!r}: knowledge base {spec.kb!r} has no relation "
            + ", ".join(map(repr, unknown)),
            hint=f"relations: {', '.join(sorted(kb.relations))}",
        )
    missing = prototypes.missing(relations)
    if missing:
        raise InputError(
            f"monitor {spec.name!r}: no prototypes for {', '.join(missing)}",
            hint="list relations the prototypes cover in the monitor's `relations`",
        )
    subset = select(kb, when, spec.points, spec.anchor_points, relations)
    anchors = list(
        statements(kb, plan_points(kb, subset.anchors, f"monitor\x1f{spec.name}"), prototypes)
    )
    rotating_plans = plan_points(kb, subset.rotating, f"monitor\x1f{spec.name}\x1f{when}")
    rotating = list(statements(kb, rotating_plans, prototypes))
    if spec.rephrase:
        rephraser = resolve_rephraser(db, spec.rephrase, settings)
        if rephraser is not None:
            rotating = list(rephrased(rephraser, rotating))
    retired = retired_item_ids(db, [i.id for i in (*anchors, *rotating)])
    if retired:
        anchors = [i for i in anchors if i.id not in retired]
        rotating = [i for i in rotating if i.id not in retired]
    anchor_ids = frozenset(i.id for i in anchors)
    # A rotating fact may share its false tail with an anchor fact of the same head: that
    # negative point is an anchor, asked once.
    items: list[AnyItem] = [
        *anchors,
        *(i for i in rotating if i.id not in anchor_ids),
    ]
    store_items(db, kb, kb_id, items)
    return items, anchor_ids


# Scored answers of finished nights, reused across nights by a long-running scheduler: every
# night's tests read up to HISTORY_NIGHTS earlier runs. The key holds the run's finish time, so
# a run resumed or retried since is read afresh.
_NIGHT_CACHE: OrderedDict[tuple[str, int, object], Night] = OrderedDict()
_NIGHT_CACHE_SIZE = 4 * HISTORY_NIGHTS


def _sdak_answers(db: Database, run_id: int) -> list[SdakAnswer]:
    """The statement replies of a night asked the SDAK way, with their raw text."""
    responses = list_responses(db, run_id=run_id)
    items = {item.id: item for item in load_any_items(db, [r.item_id for r in responses])}
    return [
        SdakAnswer(item, Outcome(r.outcome), r.raw_text)
        for r in responses
        if isinstance(item := items.get(r.item_id), StatementItem)
    ]


def _night_data(db: Database, night: NightRecord) -> Night | None:
    if night.run_id is None:
        return None
    run = get_run(db, night.run_id)
    key = (db.masked_url, night.run_id, run.finished_at)
    cached = _NIGHT_CACHE.get(key)
    if cached is not None and cached.date == night.scheduled_date:
        _NIGHT_CACHE.move_to_end(key)
        return cached
    anchors = set(run.config.get("anchor_item_ids", []))
    prompt = str(run.config.get("prompt") or "standard")
    records = run_records(db, night.run_id)
    anchor: list[Scored] = [r for r in records if r.item_id in anchors]
    rotating: list[Scored] = [r for r in records if r.item_id not in anchors]
    recalled, tiers = (
        recall_records(db, night.run_id)
        if run.config.get("monitor_format") == "recall"
        else ([], None)
    )
    data = Night(
        date=night.scheduled_date,
        run_id=night.run_id,
        provider_model=night.provider_model or run.model_reported,
        anchor=anchor,
        rotating=rotating,
        generator=str(run.config.get("generator_version", "g1")),  # g1 did not record it
        recall_anchor=[r for r in recalled if r.item_id in anchors],
        recall_rotating=[r for r in recalled if r.item_id not in anchors],
        recall_tiers=tiers,
        sdak=_sdak_answers(db, night.run_id) if prompt == "sdak" else (),
        prompt=prompt,
    )
    if run.finished_at is not None:
        _NIGHT_CACHE[key] = data
        while len(_NIGHT_CACHE) > _NIGHT_CACHE_SIZE:
            _NIGHT_CACHE.popitem(last=False)
    return data


def _new_finding(finding: Finding) -> NewFinding:
    severe = finding.severity is not None
    return NewFinding(
        scope=finding.scope,
        metric=finding.metric,
        test=finding.test,
        value=finding.value,
        baseline_value=finding.baseline_value,
        effect=finding.effect,
        p_value=finding.p_value,
        p_adjusted=finding.p_adjusted,
        n=finding.n,
        compared_run_ids=tuple(finding.compared_run_ids),
        severity=finding.severity.value if finding.severity else None,
        alert_message=finding.message if severe else None,
    )


def _deliver(
    db: Database,
    spec: MonitorSpec,
    model: str,
    when: date,
    stored: Sequence[Alert],
    *,
    monitor_id: int,
    completed: bool,
    tonight: Tonight,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Log each stored alert and fold the night into incidents, which post the webhook when one
    changes state (never once per alert); return (alert payloads, incident events)."""
    payloads: list[dict[str, Any]] = []
    for alert in stored:
        payload = alert_payload(
            monitor=spec.name,
            model=model,
            night=when.isoformat(),
            severity=alert.severity,
            metric=alert.metric,
            effect=alert.effect,
            p_value=alert.p_value,
            message=alert.message,
            run_ids=list(alert.run_ids),
            provider_model=tonight.provider_model,
        )
        payloads.append(payload)
        log.debug(
            "alert [%s] monitor %s, %s, %s: %s",
            alert.severity, spec.name, model, when, alert.message,
        )  # fmt: skip
    try:
        events = track_night(
            db, monitor_id, model, when, stored, completed=completed, tonight=tonight
        )
    except Exception:  # the night and its alerts are stored; the scheduler must go on
        log.exception("monitor %s, %s, night %s: incidents not updated", spec.name, model, when)
        events = []
    return payloads, events


def _tonight(
    db: Database,
    spec: MonitorSpec,
    settings: Settings | None,
    *,
    run_id: int | None = None,
    summary: dict[str, Any] | None = None,
    provider_model: str | None = None,
    error: str | None = None,
) -> Tonight:
    return Tonight(
        monitor=spec.name,
        source=describe_monitor(db, spec.as_json()).source,
        run_id=run_id,
        summary=summary or {},
        provider_model=provider_model,
        error=error,
        webhook=spec.webhook,
        webhook_format=spec.webhook_format,
        public_url=settings.public_url if settings is not None else None,
        window=spec.window,
    )


def _notes(
    n_retired: int,
    other_generator: int,
    other_prompt: int,
    before_baseline: int,
    baseline: date | None,
) -> list[str]:
    """What the night's comparisons left out, in words."""

    def s(n: int) -> str:
        return "s" if n != 1 else ""

    notes = []
    if n_retired:
        notes.append(f"{n_retired} retired item{s(n_retired)} left out")
    if other_generator:
        notes.append(
            f"{other_generator} earlier night{s(other_generator)}"
            " of another item generator left out of the comparisons"
        )
    if other_prompt:
        notes.append(
            f"{other_prompt} earlier night{s(other_prompt)}"
            " asked with another prompt left out of the comparisons"
        )
    if before_baseline:
        notes.append(
            f"{before_baseline} night{s(before_baseline)} "
            f"before the baseline accepted from {baseline} left out of the comparisons"
        )
    return notes


def _compare(
    db: Database, spec: MonitorSpec, monitor_id: int, model: str, when: date, current: Night
) -> tuple[Night, list[Finding], list[str]]:
    """Tonight against the comparable nights before it: (tonight without retired items, the
    findings, the notes on what was left out)."""
    past = [
        data
        for n in list_nights(
            db, monitor_id, model, status=NightStatus.COMPLETED, before=when, limit=HISTORY_NIGHTS
        )
        if (data := _night_data(db, n)) is not None
    ]
    # Retired items (a wrong key or a wrong fact) measure the item, not the model: their
    # answers are left out of tonight's figures and of every comparison, and the summary
    # says so. The stored answers and past summaries stay as they were.
    # A new item generator (another wording, other negatives) changes what is measured, not
    # the model: earlier generators' nights leave the comparison window, and the summary
    # says so, until enough nights of the new one have been run.
    other_generator = [n for n in past if n.generator != current.generator]
    past = [n for n in past if n.generator == current.generator]
    # So does another prompt (SDAK or standard): those nights leave the window too.
    other_prompt = [n for n in past if n.prompt != current.prompt]
    past = [n for n in past if n.prompt == current.prompt]
    # An accepted new baseline restarts the comparison window from its night.
    baseline = baseline_from(db, monitor_id, model)
    before_baseline = [n for n in past if baseline is not None and n.date < baseline]
    past = [n for n in past if baseline is None or n.date >= baseline]
    asked = {r.item_id for n in (*past, current) for r in (*n.anchor, *n.rotating)}
    retired = retired_item_ids(db, asked)
    (current, *past), n_retired = without_items([current, *past], retired)
    findings = detect(past, current, DriftPolicy(alpha=spec.alpha, window=spec.window))
    notes = _notes(
        n_retired, len(other_generator), len(other_prompt), len(before_baseline), baseline
    )
    return current, findings, notes


def _failed(
    db: Database,
    spec: MonitorSpec,
    model: str,
    when: date,
    message: str,
    *,
    night_id: int,
    monitor_id: int,
    run_id: int | None,
    settings: Settings | None,
) -> NightResult:
    """Record a night that could not be run: failed, with an operational alert (distinct from
    drift: nobody should learn of a dead model from a chart with a gap in it)."""
    finish_night(db, night_id, status=NightStatus.FAILED, error_text=message[:2000])
    log.warning("monitor %s, %s, night %s failed: %s", spec.name, model, when, message)
    failed = NewFinding(
        scope="operational",
        metric="night_failed",
        severity=Severity.CRITICAL.value,
        alert_message=f"the night could not be run: {message[:500]}",
    )
    stored = save_findings(db, night_id, [failed])
    payloads, events = _deliver(
        db, spec, model, when, stored, monitor_id=monitor_id, completed=False,
        tonight=_tonight(db, spec, settings, run_id=None, error=message),
    )  # fmt: skip
    return NightResult(
        spec.name, model, when, "failed", run_id=run_id, message=message,
        alerts=tuple(payloads), incidents=tuple(events),
    )  # fmt: skip


def run_night(
    db: Database,
    spec: MonitorSpec,
    model: str,
    when: date,
    *,
    settings: Settings | None = None,
    now: datetime | None = None,
    provider_factory: ProviderFactory | None = None,
    claimed_by: str | None = None,
) -> NightResult:
    """Run one monitor x model x night, unless someone else has claimed it. Never raises for a
    failing model: the night is recorded as failed and the scheduler goes on."""
    monitor = upsert_monitor(db, spec.name, spec.as_json(), enabled=spec.enabled)
    assert monitor.id is not None
    night = claim_night(db, monitor.id, model, when, claimed_by or claimant(), now=now)
    if night is None:
        return NightResult(
            spec.name, model, when, "skipped", message="already claimed or completed"
        )
    assert night.id is not None
    night_id = night.id
    claimed_run = night.run_id
    try:

        async def _night_run() -> RunSummary:
            if claimed_run is not None:
                request = RunRequest(resume=claimed_run, retry_errors=True)
            else:
                items, anchor_ids = night_items(db, spec, when, settings)
                sdak = spec.prompt == "sdak"
                run_spec = EvalSpec(
                    model=model,
                    shots=spec.shots,
                    idk=spec.idk,
                    prompt="sdak" if sdak else "standard",
                    judge=spec.judge,
                    seed=f"{spec.name}:{when.isoformat()}",
                    name=f"monitor {spec.name} {when.isoformat()}",
                    extra={
                        "monitor": spec.name,
                        "night": when.isoformat(),
                        "anchor_item_ids": sorted(anchor_ids),
                        "generator_version": GENERATOR_VERSION,
                        "monitor_format": spec.format,
                    },
                )
                request = RunRequest(run_spec, items, retry_errors=True)

            def note_run(ready: ReadyRun, second: bool) -> AbstractContextManager[None]:
                del second
                if claimed_run is None:  # the night's run, recorded before it is asked
                    set_night_run(db, night_id, ready.run_id)
                return nullcontext(None)

            # A drift run served from a cache would be a lie: run() never allows a cache here.
            outcome = await run(
                db, request, settings=settings, provider_factory=provider_factory, watch=note_run
            )
            assert outcome.summary is not None
            return outcome.summary

        summary = asyncio.run(_night_run())
        run_id = summary.run_id
        if summary.status == RunStatus.FAILED:
            raise RunFailedError(f"run {run_id} of {model} failed: {summary.error}")
        night = replace(night, run_id=run_id)
        data = _night_data(db, night)
        assert data is not None
        current, findings, notes = _compare(db, spec, monitor.id, model, when, data)
        stored = save_findings(db, night_id, [_new_finding(f) for f in findings])
        night_json = night_summary(current)
        if notes:
            night_json["notes"] = notes
        finish_night(
            db,
            night_id,
            status=NightStatus.COMPLETED,
            provider_model=current.provider_model,
            summary=night_json,
        )
    except Exception as exc:
        message = exc.message if isinstance(exc, QuizbotError) else f"{type(exc).__name__}: {exc}"
        return _failed(
            db, spec, model, when, message, night_id=night_id, monitor_id=monitor.id,
            run_id=night.run_id, settings=settings,
        )  # fmt: skip

    tonight_ = _tonight(
        db, spec, settings, run_id=run_id, summary=night_json,
        provider_model=current.provider_model,
    )  # fmt: skip
    alerts, events = _deliver(
        db, spec, model, when, stored, monitor_id=monitor.id, completed=True, tonight=tonight_
    )
    return NightResult(
        spec.name,
        model,
        when,
        "completed",
        run_id=run_id,
        provider_model=current.provider_model,
        alerts=tuple(alerts),
        message="; ".join(
            [
                f"{len(alerts)} alert(s)",
                *(f"incident {e['incident']['id']} {e['event']}" for e in events),
                *night_json.get("notes", []),
            ]
        ),
        summary=night_json,
        incidents=tuple(events),
    )


def run_monitor(
    db: Database,
    spec: MonitorSpec,
    *,
    when: date | None = None,
    now: datetime | None = None,
    settings: Settings | None = None,
    provider_factory: ProviderFactory | None = None,
) -> list[NightResult]:
    """Run every model of a monitor for one night (``when``, else tonight in its time zone)."""
    now = now or clock.now().astimezone()
    night = when or tonight(spec, now)
    return [
        run_night(
            db, spec, model, night, settings=settings, now=now, provider_factory=provider_factory
        )
        for model in spec.models
    ]


def _alert_json(alert: Alert, night: NightRecord) -> dict[str, Any]:
    return {
        "date": night.scheduled_date.isoformat(),
        "severity": alert.severity,
        "metric": alert.metric,
        "effect": alert.effect,
        "p_value": alert.p_value,
        "message": alert.message,
        "run_ids": list(alert.run_ids),
        "delivered": alert.delivered_at is not None,
        "delivery_error": alert.delivery_error,
    }


def history(
    db: Database, name: str, model: str | None = None, *, by_relation: bool = False
) -> list[dict[str, Any]]:
    """The time series of a monitor, one object per model (``quizbot monitor history --json``).

    Each: ``{"monitor", "model", "nights": [{"date", "run_id", "provider_model", "status",
    "metrics", "anchor", "rotating", "recall", "sdak", "error", "notes"}], "alerts": [...]}``
    (``recall`` None but on nights of an open recall monitor, ``sdak`` None but on nights asked
    the SDAK way) (plus each night's
    ``by_relation`` when asked). Figures come from the summaries stored with the nights, so a
    year of nights costs one query for the nights and one for the alerts.
    """
    monitor = get_monitor(db, name)
    assert monitor.id is not None
    parts = (
        "overall",
        "anchor",
        "rotating",
        "recall",
        "sdak",
        "notes",
        *(("by_relation",) if by_relation else ()),
    )
    nights = night_series(db, monitor.id, model, parts=parts)
    alerts = list_alerts(db, monitor.id, model)
    models = sorted({n.model for n in nights} | ({model} if model else set()))
    if not models:
        models = list(monitor.definition.get("models", []))
    out: list[dict[str, Any]] = []
    for m in models:
        series = []
        for n in nights:
            if n.model != m:
                continue
            night: dict[str, Any] = {
                "date": n.scheduled_date.isoformat(),
                "run_id": n.run_id,
                "provider_model": n.provider_model,
                "status": n.status,
                "metrics": n.parts["overall"],
                "anchor": n.parts["anchor"],
                "rotating": n.parts["rotating"],
                # open recall monitors: mean F1 and tier shares (drift.night_summary)
                "recall": n.parts["recall"] or None,
                # SDAK monitors: the pair metrics (analysis.sdak.SdakReport.as_json)
                "sdak": n.parts["sdak"] or None,
                "error": n.error_text,
                # what the night's figures leave out, e.g. "2 retired items left out"
                "notes": list(n.parts["notes"] or []),
            }
            if by_relation:
                night["by_relation"] = n.parts["by_relation"]
            series.append(night)
        out.append(
            {
                "monitor": name,
                "model": m,
                "nights": series,
                "alerts": [_alert_json(a, n) for a, n in alerts if n.model == m],
            }
        )
    return out
