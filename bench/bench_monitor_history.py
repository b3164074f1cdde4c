"""The monitor page's data for a year of nights, and one night's drift computation.

Seeds one monitor with 365 nights x 3 models (2,000 statements a night: 500 anchor, 1,500
rotating, 125 points) the way a real night stores them: each night's summary is computed by
``night_summary`` from its scored answers, with a few alerts. Then it times what the Monitor tab
and ``quizbot monitor history --json`` compute (:func:`quizbot.monitoring.nights.history`, every
model),
median of several calls, on SQLite and PostgreSQL; and ``detect`` for one night against 60 nights
of 2,000-statement history (the nightly cost per model).

The page reads one summary row per night, not the 2.19 M responses behind them; the responses
are therefore not seeded (they would change neither query).

``--false-alarms SEEDS`` instead re-measures what a *stable* model costs people: SEEDS
simulated monitors (a model right with probability 0.8 on every item, its rotating slice fresh
each night, answers drawn by hash from the seed), each run for ``--stable-nights`` nights
through the real ``detect`` (the scheduler's 60 nights of history) and the incident rules of
:func:`quizbot.monitoring.incidents.plan_night`. It prints the share of tested nights with an
alert (the drift tests' false-alarm rate), the incidents opened and reopened and the webhook
posts (state changes only) per 1,000 nights. Usage:

    .venv/bin/python bench/bench_monitor_history.py [--nights 365] [--items 2000] [--models 3]
        [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test]
    .venv/bin/python bench/bench_monitor_history.py --false-alarms 100 [--stable-nights 40]
        [--items 400]
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
import uuid
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import quizbot  # noqa: E402, F401 - sets the offline environment first
from quizbot.analysis.metrics import Scored  # noqa: E402
from quizbot.monitoring.drift import Night, detect, night_summary  # noqa: E402
from quizbot.monitoring.nights import history  # noqa: E402
from storage import Database, open_database  # noqa: E402
from storage.models import Alert, MonitorNight, NightStatus, Outcome  # noqa: E402
from storage.monitoring import upsert_monitor  # noqa: E402

TRANSFORMS = ("none", "inv", "ins", "inv+ins", "dn", "inv+dn", "ins+dn", "inv+ins+dn")
RELATIONS = (
    "has_symptom",
    "affects_site",
    "treated_with_drug",
    "treated_with_procedure",
    "prevents",
)


def _unit(*parts: object) -> float:
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _records(
    night: int, model: int, n_items: int, anchors: int, accuracy: float | None = None
) -> tuple[list[Scored], list[Scored]]:
    if accuracy is None:
        accuracy = 0.8 - (0.1 if night > 300 else 0.0) - 0.05 * model
    out: list[Scored] = []
    for i in range(n_items):
        point = i // 16 if i < anchors else 10_000 + night * n_items + i // 16
        side = (i // 8) % 2
        item = f"i{point}:{side}:{i % 8}"
        label = side == 0
        right = _unit(item, model, night if i >= anchors else 0) < accuracy
        out.append(
            Scored(
                item_id=item,
                kind="statement",
                relation=RELATIONS[point % len(RELATIONS)],
                transform=TRANSFORMS[i % 8],
                polarity="positive" if label else "negative",
                label=label,
                knowledge_point_id=f"kp{point}:{side}",
                pair_id=f"p{point}:{side}:{i % 4}",
                outcome=Outcome.CORRECT if right else Outcome.INCORRECT,
                answer=("true" if label == right else "false"),
            )
        )
    return out[:anchors], out[anchors:]


def seed(db: Database, nights: int, n_items: int, models: int) -> float:
    """Store a year of nights with real summaries; return seconds taken."""
    started = time.perf_counter()
    monitor = upsert_monitor(db, "bench", {"points": n_items // 16})
    assert monitor.id is not None
    monitor_id = monitor.id
    anchors = n_items // 4
    first = date(2025, 1, 1)
    for m in range(models):
        rows: list[MonitorNight] = []
        for n in range(nights):
            anchor, rotating = _records(n, m, n_items, anchors)
            summary = night_summary(
                Night(first + timedelta(days=n), n + 1, f"model-{m}", anchor, rotating)
            )
            rows.append(
                MonitorNight(
                    monitor_id=monitor_id,
                    model=f"bench/model-{m}",
                    scheduled_date=first + timedelta(days=n),
                    status=NightStatus.COMPLETED.value,
                    claimed_by="bench",
                    provider_model=f"model-{m}-v{1 + n // 200}",
                    summary=summary,
                )
            )

        def _store(session: object, rows: list[MonitorNight] = rows) -> None:
            session.add_all(rows)  # type: ignore[attr-defined]
            session.flush()  # type: ignore[attr-defined]
            for row in rows[::30]:  # an alert a month
                session.add(  # type: ignore[attr-defined]
                    Alert(
                        monitor_night_id=row.id or 0,
                        severity="warning",
                        metric="rotating:accuracy",
                        effect=-0.06,
                        p_value=0.004,
                        message="rotating-slice accuracy fell 6.0 points",
                        run_ids=[1, 2],
                    )
                )

        db.write(_store)
    return time.perf_counter() - started


def time_history(db: Database, repeats: int = 7) -> tuple[float, int]:
    """Median seconds of the page's data (every model's series and alerts)."""
    times = []
    size = 0
    for _ in range(repeats):
        started = time.perf_counter()
        series = history(db, "bench")
        times.append(time.perf_counter() - started)
        size = sum(len(s["nights"]) for s in series)
    return statistics.median(times), size


def time_detect(n_items: int, window: int = 60, repeats: int = 3) -> float:
    """Median seconds of one night's drift tests against ``window`` nights of history."""
    anchors = n_items // 4
    nights = [
        Night(date(2025, 1, 1) + timedelta(days=n), n + 1, "m", *_records(n, 0, n_items, anchors))
        for n in range(window + 1)
    ]
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        detect(nights[:-1], nights[-1])
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def false_alarms(seeds: int, nights: int, n_items: int) -> dict[str, float]:
    """Replay ``seeds`` stable monitors of ``nights`` nights; count alerts, incidents, posts."""
    from quizbot.domain import Alert as AlertRecord
    from quizbot.monitoring.drift import DriftPolicy
    from quizbot.monitoring.incidents import Active, Recent, plan_night
    from quizbot.monitoring.nights import HISTORY_NIGHTS

    policy = DriftPolicy()
    anchors = n_items // 4
    first = date(2025, 1, 1)
    tested = alarmed = opened = posts = alert_count = reopened = 0
    for seed in range(seeds):
        model = 1000 + seed  # the hash salt: another model, same accuracy
        history: list[Night] = []
        active: dict[int, Active] = {}
        resolved: dict[int, tuple[Recent, date]] = {}  # closed drift incidents, by id
        next_id = 0
        for n in range(nights):
            current = Night(
                first + timedelta(days=n), n + 1, "stable",
                *_records(n, model, n_items, anchors, accuracy=0.8),
            )  # fmt: skip
            findings = detect(history[-HISTORY_NIGHTS:], current, policy)
            history.append(current)
            alerts = [
                AlertRecord(i, n, None, f.severity.value, f"{f.scope}:{f.metric}", f.effect,
                            f.p_adjusted, f.message, [], None, None, None)  # type: ignore[arg-type]
                for i, f in enumerate(findings)
                if f.severity is not None
            ]  # fmt: skip
            alert_count += len(alerts)
            if n >= policy.min_window:  # a full baseline window: the tests all run
                tested += 1
                alarmed += bool(alerts)
            recent = [
                r
                for r, closed in sorted(resolved.values(), key=lambda rc: rc[1], reverse=True)
                if (current.date - closed).days <= policy.window
            ]
            plan = plan_night(
                list(active.values()), alerts, current.date, completed=True, resolved=recent
            )
            posts += len(plan.openings) + len(plan.events)  # notified on change only
            for new in plan.openings:
                next_id += 1
                opened += 1
                active[next_id] = Active(
                    next_id, new.metric, new.severity, 0, new.kind.value, new.severity
                )
            for update in plan.updates:
                if update.reopen:
                    back, _closed = resolved.pop(update.id)
                    reopened += 1
                    active[update.id] = Active(
                        back.id, back.metric, update.severity, 0, "drift", update.severity
                    )
                    continue
                was = active[update.id]
                if update.state is not None:
                    del active[update.id]
                    if was.kind == "drift":
                        resolved[was.id] = (Recent(was.id, was.metric, was.severity), current.date)
                else:
                    told = update.severity if plan.events.get(update.id) else was.notified
                    active[update.id] = Active(
                        was.id, was.metric, update.severity, update.quiet_nights, was.kind, told
                    )
    total = seeds * nights
    return {
        "tested_nights": tested,
        "alarmed_nights": alarmed,
        "false_alarm_rate": alarmed / tested if tested else 0.0,
        "incidents_per_1000_nights": 1000 * opened / total,
        "reopened_per_1000_nights": 1000 * reopened / total,
        "webhook_posts_per_1000_nights": 1000 * posts / total,
        "alerts_per_1000_nights": 1000 * alert_count / total,
        "nights": total,
    }


def _postgres(url: str) -> tuple[str, str]:
    import psycopg

    name = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + f"/{name}", name


def _drop(url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    """Seed, time, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=365)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--models", type=int, default=3)
    parser.add_argument(
        "--postgres", default="postgresql+psycopg://postgres@127.0.0.1:5432/test",
        help="server to create a scratch database on ('' to skip)",
    )  # fmt: skip
    parser.add_argument("--false-alarms", type=int, default=0, metavar="SEEDS")
    parser.add_argument("--stable-nights", type=int, default=40)
    args = parser.parse_args()
    if args.false_alarms:
        started = time.perf_counter()
        found = false_alarms(args.false_alarms, args.stable_nights, args.items)
        print(
            f"stable model (accuracy 0.80, {args.items} statements a night), "
            f"{args.false_alarms} seeds x {args.stable_nights} nights "
            f"({time.perf_counter() - started:.0f} s):\n"
            f"  nights with an alert: {found['alarmed_nights']}/{found['tested_nights']} = "
            f"{found['false_alarm_rate']:.4f} (alpha 0.01)\n"
            f"  incidents opened: {found['incidents_per_1000_nights']:.1f} per 1,000 nights "
            f"(reopened: {found['reopened_per_1000_nights']:.1f}); "
            f"webhook posts: {found['webhook_posts_per_1000_nights']:.1f} per 1,000 nights "
            f"(one per alert before incidents: {found['alerts_per_1000_nights']:.1f})"
        )
        return
    goal = 0.300
    print(f"{args.nights} nights x {args.items} statements x {args.models} models")
    backends = [("sqlite", None)] + ([("postgresql", args.postgres)] if args.postgres else [])
    for backend, server in backends:
        drop = None
        if server is None:
            url = f"sqlite:///{tempfile.mkdtemp()}/bench.db"
        else:
            url, drop = _postgres(server)
        db = open_database(url)
        try:
            seeded = seed(db, args.nights, args.items, args.models)
            page, rows = time_history(db)
            print(
                f"{backend:<10} seeded in {seeded:5.1f} s; monitor page data ({rows} nights): "
                f"{page * 1000:6.1f} ms median  (goal <= {goal * 1000:.0f} ms: "
                f"{'met' if page <= goal else 'NOT met'}; {page / goal:.2f} of the budget)"
            )
        finally:
            db.dispose()
            if drop is not None and server is not None:
                _drop(server, drop)
    print(
        f"one night's drift tests vs 60 nights of history: {time_detect(args.items) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
