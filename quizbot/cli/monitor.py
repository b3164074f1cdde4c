"""`quizbot monitor` and `quizbot scheduler`: nightly monitors, run by hand or on schedule."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from quizbot.cli.base import App, Group, cli, database_for, emit_json
from quizbot.errors import InputError, QuizbotError
from quizbot.logs import configure_logging

_SCHEDULES_OPTION = click.option(
    "--schedules",
    "schedules_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Schedules file [default: QUIZBOT_SCHEDULES_FILE or the shipped schedules/monitors.toml].",
)


def _monitors(app: App, schedules_file: Path | None) -> tuple[Path, list[Any]]:
    from schedules.config import default_schedules_file, load_monitors

    path = schedules_file or app.settings.schedules_file or default_schedules_file()
    return path, load_monitors(path)


@cli.group(cls=Group)
def monitor() -> None:
    """Nightly drift monitors declared in the schedules file."""


@monitor.command("list")
@_SCHEDULES_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the monitors as JSON.")
@click.pass_obj
def monitor_list(app: App, schedules_file: Path | None, as_json: bool) -> None:
    """The monitors of the schedules file (checked) and their last nights."""
    from quizbot.monitoring.describe import describe_monitor
    from quizbot.monitoring.nights import history
    from quizbot.monitoring.scheduler import trigger_for

    path, specs = _monitors(app, schedules_file)
    rows: list[dict[str, Any]] = []
    with database_for(app) as database:
        for spec in specs:
            try:
                series = history(database, spec.name)
            except QuizbotError:
                series = []
            last = max((n["date"] for h in series for n in h["nights"]), default=None)
            rows.append({
                **spec.as_json(),
                "asks": describe_monitor(database, spec.as_json()).as_json(),
                "next_run": str(trigger_for(spec).get_next_fire_time(None, _now())),
                "last_night": last,
                "alerts": sum(len(h["alerts"]) for h in series),
            })  # fmt: skip
    if as_json:
        emit_json({"schedules_file": str(path), "monitors": rows})
        return
    click.echo(f"{path}: {len(rows)} monitor(s)")
    for row in rows:
        state = "" if row["enabled"] else "  (disabled)"
        click.echo(
            f"  {row['name']:<16} {row['cron']:<12} {row['timezone']:<14} "
            f"last {row['last_night'] or '-'}  alerts {row['alerts']}{state}"
        )
        click.echo(f"      asks: {row['asks']['text']}")
        click.echo(f"      models: {', '.join(row['models'])}   next: {row['next_run'][:16]}")


def _now() -> Any:
    from quizbot import clock

    return clock.now()


@monitor.command("run")
@click.argument("name")
@click.option(
    "--date",
    "night",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    help="The night to run (reproduces that night's items) [default: tonight].",
)
@click.option("--model", "only_model", help="Only this model of the monitor.")
@_SCHEDULES_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.pass_obj
def monitor_run(
    app: App, name: str, night: Any, only_model: str | None,
    schedules_file: Path | None, as_json: bool,
) -> None:  # fmt: skip
    """Run one night of monitor NAME now, for every model (skips nights already run).

    Prints one line per model and night (accuracy with its 95% interval, items asked, failed
    answers, alerts), then each incident event (opened, got worse, reopened, resolved) with its
    message and link, then each alert once.
    """
    import logging
    from dataclasses import replace

    from quizbot.monitoring.nights import run_monitor
    from schedules.config import find_monitor

    _path, specs = _monitors(app, schedules_file)
    spec = find_monitor(specs, name)
    if only_model is not None:
        if only_model not in spec.models:
            raise InputError(
                f"monitor {name!r} has no model {only_model!r}",
                hint=f"models: {', '.join(spec.models)}",
            )
        spec = replace(spec, models=(only_model,))
    # What the nights log (incident events, failures) is printed below, once.
    quiet = logging.getLogger("quizbot.monitoring")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        with database_for(app) as database:
            results = run_monitor(
                database, spec, when=night.date() if night else None, settings=app.settings
            )
    finally:
        quiet.setLevel(level)
    if as_json:
        emit_json({"results": [r.as_json() for r in results]})
    else:
        for r in results:
            click.echo(r.line())
            for event in r.incidents:
                click.echo(f"  {event['text'].splitlines()[0]}")
                if event.get("url"):
                    click.echo(f"    {event['url']}")
            for alert in r.alerts:
                click.echo(f"  [{alert['severity']}] {alert['message']}")
    if any(r.status == "failed" for r in results):
        sys.exit(1)


def _accuracy_text(part: dict[str, Any]) -> str:
    figure = part.get("accuracy", {})
    value = figure.get("value")
    if value is None:
        return "   -   "
    interval = figure.get("interval") or []
    band = f" [{interval[0]:.2f}-{interval[1]:.2f}]" if len(interval) == 2 else ""
    return f"{value:.3f}{band}"


def _night_text(night: dict[str, Any], part: str) -> str:
    """Accuracy in ``part`` (overall, anchor, rotating); mean F1 on an open recall night."""
    recall = night.get("recall")
    if not recall:
        return _accuracy_text(night["metrics"] if part == "overall" else night[part])
    figure = (recall.get(part) or {}).get("f1") or {}
    value = figure.get("mean")
    if value is None:
        return "   -   "
    interval = figure.get("interval") or []
    band = f" [{interval[0]:.2f}-{interval[1]:.2f}]" if len(interval) == 2 else ""
    return f"F1 {value:.3f}{band}"


@monitor.command("history")
@click.argument("name")
@click.option("--model", help="Only this model.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object per model and line: monitor, model, nights, alerts.",
)
@click.pass_obj
def monitor_history(app: App, name: str, model: str | None, as_json: bool) -> None:
    """Nightly accuracy or recall F1 with 95% intervals (anchor, rotating), model ids, alerts."""
    from quizbot.monitoring.nights import history

    with database_for(app) as database:
        series = history(database, name, model, by_relation=as_json)
    if as_json:
        for one in series:
            click.echo(json.dumps(one, default=str))
        return
    for one in series:
        click.echo(f"{one['monitor']} / {one['model']}")
        click.echo(f"  {'date':<10}  {'run':>5}  {'accuracy (all)':<20} {'anchor':<20} "
                   f"{'rotating':<20} provider model")  # fmt: skip
        previous = None
        for n in one["nights"]:
            changed = " *" if previous and n["provider_model"] != previous else ""
            previous = n["provider_model"] or previous
            if n["status"] != "completed":
                click.echo(f"  {n['date']:<10}  {n['run_id'] or '-':>5}  {n['status']}: "
                           f"{(n['error'] or '')[:80]}")  # fmt: skip
                continue
            click.echo(
                f"  {n['date']:<10}  {n['run_id']:>5}  {_night_text(n, 'overall'):<20} "
                f"{_night_text(n, 'anchor'):<20} {_night_text(n, 'rotating'):<20} "
                f"{n['provider_model']}{changed}"
            )
            for note in n.get("notes", []):
                click.echo(f"  {'':<10}  {'':>5}  note: {note}")
        for alert in one["alerts"]:
            click.echo(f"  alert {alert['date']} [{alert['severity']}] {alert['message']}")


@cli.group(cls=Group)
def scheduler() -> None:
    """The nightly scheduler."""


@scheduler.command("start")
@_SCHEDULES_OPTION
@click.pass_obj
def scheduler_start(app: App, schedules_file: Path | None) -> None:
    """Run the monitors on their schedules, in the foreground, until stopped (Ctrl-C)."""
    import signal
    import time

    from quizbot.monitoring.scheduler import start, stop

    settings = app.settings
    if schedules_file is not None:
        settings = settings.model_copy(update={"schedules_file": schedules_file})
    configure_logging(settings.log_level if settings.log_level != "WARNING" else "INFO")

    def _terminate(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _terminate)
    with database_for(app) as database:
        scheduler, jobs = start(database, settings)
        click.echo(f"scheduler running {len(jobs)} monitor job(s); Ctrl-C stops it", err=True)
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            click.echo("stopping (waiting for a running night to finish)", err=True)
        finally:
            stop(scheduler, wait=True)


# --------------------------------------------------------------------------------------------
# Incidents: consecutive alerts of one monitor x model x metric (quizbot.monitoring.incidents)

_INCIDENT_STATES = ("active", "open", "acknowledged", "resolved", "accepted", "all")
_INCIDENT_EXIT_CODES = (
    "Exit codes: 0 done; 65 the incident's state does not allow it (or a bad --from-night); "
    "66 no such incident; 69 the database cannot be reached."
)


def _who() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in a container
        return "cli"


def _incident_line(incident: Any) -> str:
    nights = len({e["night"] for e in incident.evidence})
    closed = f", closed {incident.closed_on}" if incident.closed_on else ""
    baseline = f", baseline from {incident.baseline_from}" if incident.baseline_from else ""
    return (
        f"#{incident.id:<4} {incident.state:<12} {incident.severity:<8} {incident.monitor} / "
        f"{incident.model} / {incident.metric} ({incident.kind}): opened {incident.opened_on}, "
        f"last alert {incident.last_alert_on}, {nights} alerting night(s){closed}{baseline}"
    )


def _incident_detail(incident: Any) -> None:
    click.echo(_incident_line(incident))
    if incident.note:
        click.echo(f"      note: {incident.note}")
    for e in incident.evidence[-5:]:
        p_value = "" if e.get("p_value") is None else f" p={e['p_value']:.2g}"
        click.echo(f"      {e['night']} [{e['severity']}] {e['statistic']}{p_value}: "
                   f"{e['message'][:160]}")  # fmt: skip
    if len(incident.evidence) > 5:
        click.echo(f"      ... {len(incident.evidence) - 5} earlier alert(s) (--json shows all)")


@monitor.command("incidents", epilog=_INCIDENT_EXIT_CODES)
@click.option("--monitor", "monitor_name", help="Only this monitor.")
@click.option("--model", help="Only this model.")
@click.option(
    "--state",
    type=click.Choice(_INCIDENT_STATES),
    default="active",
    show_default=True,
    help="Which incidents: active (open or acknowledged), one state, or all.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='{"incidents": [{"id", "monitor", "model", "metric", "kind", "state", "severity", '
    '"opened_on", "last_alert_on", "quiet_nights", "closed_on", "baseline_from", "note", '
    '"evidence", "events"}]}',
)
@click.pass_obj
def monitor_incidents(
    app: App, monitor_name: str | None, model: str | None, state: str, as_json: bool
) -> None:
    """Incidents: consecutive alerts of one monitor x model x metric, newest first."""
    from storage.incidents import ACTIVE_STATES, IncidentState, list_incidents

    states: Any = (
        None if state == "all" else ACTIVE_STATES if state == "active" else {IncidentState(state)}
    )
    with database_for(app) as database:
        if monitor_name is not None:
            from storage.monitoring import get_monitor

            get_monitor(database, monitor_name)  # 66 for a mistyped name, not an empty list
        found = list_incidents(database, monitor=monitor_name, model=model, states=states)
    if as_json:
        emit_json({"incidents": [i.as_json() for i in found]})
        return
    if not found:
        click.echo(f"no {state if state != 'all' else ''} incidents".replace("  ", " "))
        return
    for incident in found:
        _incident_detail(incident)


@monitor.group("incident", cls=Group)
def monitor_incident() -> None:
    """One incident in detail."""


def _short(text: str | None, width: int = 70) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _figure_text(entry: dict[str, Any]) -> str:
    figure = entry.get("figure") or {}
    value = figure.get("value")
    if value is None:
        return "-"
    interval = figure.get("interval")
    band = f" [{interval[0]:.2f}–{interval[1]:.2f}]" if interval else ""
    flips = (
        f", {figure['flipped']} of {figure['anchors']} anchors flipped"
        if figure.get("anchors")
        else ""
    )
    return f"{value:.3f}{band}{flips}"


@monitor_incident.command("show", epilog=_INCIDENT_EXIT_CODES)
@click.argument("incident_id", metavar="ID", type=int)
@click.option(
    "--sort",
    "sort_by",
    type=click.Choice(("relation", "direction", "item")),
    default="relation",
    show_default=True,
    help="Order of the flipped anchor items.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='{"incident": {...}, "flips": {"reference_night", "night", "anchors_compared", '
    '"flipped", "now_wrong", "now_right", "items": [{"item_id", "relation", "text", '
    '"direction", "before": {"outcome", "answer", "raw_text"}, "after": {...}}]}}',
)
@click.pass_obj
def monitor_incident_show(app: App, incident_id: int, sort_by: str, as_json: bool) -> None:
    """Incident ID: its events, every night it lived through, and the anchor items whose answer
    changed between the night before it opened and its latest night (with the model's text)."""
    from quizbot.monitoring.flips import incident_flips
    from storage.incidents import get_incident

    with database_for(app) as database:
        incident = get_incident(database, incident_id)
        flips = incident_flips(database, incident, by=sort_by)
    if as_json:
        emit_json({"incident": incident.as_json(), "flips": flips.as_json()})
        return
    click.echo(_incident_line(incident))
    if incident.note:
        click.echo(f"      note: {incident.note}")
    click.echo("  events:")
    for e in incident.events:
        who = f" by {e['by']}" if e.get("by") else ""
        message = f": {e['message']}" if e.get("message") else ""
        click.echo(f"    {e['at'][:16]} {e['event']}{who}{message} (webhook {e['webhook']})")
    click.echo("  nights:")
    for entry in incident.nights:
        told = entry.get("notified") or "no notification"
        alerts = f"{entry['alerts']} alert(s)" + (f", worst {entry['worst']}"
                                                   if entry.get("worst") else "")  # fmt: skip
        click.echo(f"    {entry['night']}  {_figure_text(entry):<44} {alerts:<26} {told}")
    if flips.reference is None or flips.night is None:
        click.echo("  flipped anchor items: no earlier completed night to compare with")
        return
    click.echo(
        f"  flipped anchor items, {flips.reference} -> {flips.night}: {len(flips.flips)} of "
        f"{flips.compared} (sorted by {sort_by})"
    )
    for f in flips.flips:
        click.echo(f"    [{f.relation}] {f.direction}: {_short(f.text)}")
        click.echo(
            f"        {f.before} ({f.before_answer or '-'}) -> {f.after} ({f.after_answer or '-'});"
            f" said {_short(f.before_raw, 40)!r} -> {_short(f.after_raw, 40)!r}"
        )


def _changed(incident: Any, as_json: bool) -> None:
    if as_json:
        emit_json({"incident": incident.as_json()})
    else:
        click.echo(_incident_line(incident))
        last = incident.events[-1] if incident.events else {}
        click.echo(f"      webhook: {last.get('webhook', '-')}")


_BY_OPTION = click.option("--by", default=None, help="Who did it [default: your user name].")
_NOTE_OPTION = click.option("--note", help="A note kept with the incident.")
_JSON_CHANGED = click.option(
    "--json", "as_json", is_flag=True, help='The incident after the change: {"incident": {...}}.'
)


@monitor.command("ack", epilog=_INCIDENT_EXIT_CODES)
@click.argument("incident_id", metavar="ID", type=int)
@_NOTE_OPTION
@_BY_OPTION
@_JSON_CHANGED
@click.pass_obj
def monitor_ack(
    app: App, incident_id: int, note: str | None, by: str | None, as_json: bool
) -> None:
    """Acknowledge open incident ID: someone is on it (later alerts still join it)."""
    from quizbot.monitoring.incidents import acknowledge

    with database_for(app) as database:
        incident = acknowledge(
            database, incident_id, by=by or _who(), note=note, settings=app.settings
        )
    _changed(incident, as_json)


@monitor.command("resolve", epilog=_INCIDENT_EXIT_CODES)
@click.argument("incident_id", metavar="ID", type=int)
@_NOTE_OPTION
@_BY_OPTION
@_JSON_CHANGED
@click.pass_obj
def monitor_resolve(
    app: App, incident_id: int, note: str | None, by: str | None, as_json: bool
) -> None:
    """Close incident ID by hand (incidents also resolve themselves once back in range)."""
    from quizbot.monitoring.incidents import resolve

    with database_for(app) as database:
        incident = resolve(database, incident_id, by=by or _who(), note=note, settings=app.settings)
    _changed(incident, as_json)


@monitor.command("accept-baseline", epilog=_INCIDENT_EXIT_CODES)
@click.argument("incident_id", metavar="ID", type=int)
@click.option(
    "--from-night",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    help="Compare later nights only with nights from this one on [default: the night the "
    "incident opened].",
)
@_NOTE_OPTION
@_BY_OPTION
@_JSON_CHANGED
@click.pass_obj
def monitor_accept_baseline(
    app: App, incident_id: int, from_night: Any, note: str | None, by: str | None, as_json: bool
) -> None:
    """Accept the level drift incident ID found as the new baseline (no alerts for it again)."""
    from quizbot.monitoring.incidents import accept_baseline

    with database_for(app) as database:
        incident = accept_baseline(
            database,
            incident_id,
            by=by or _who(),
            from_night=from_night.date() if from_night else None,
            note=note,
            settings=app.settings,
        )
    _changed(incident, as_json)


@monitor.command("release")
@click.argument("night", type=int, required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def monitor_release(app: App, night: int | None, as_json: bool) -> None:
    """Release NIGHT, claimed by a process that died, so it runs again; no NIGHT: list claims.

    The night becomes failed; the next `monitor run` (or scheduled night) takes it over and
    resumes its run. Release only a night whose process is gone, or it may run twice.
    """
    import getpass
    import socket

    from storage.night_release import claimed_nights, release_night

    with database_for(app) as database:
        if night is None:
            claims = claimed_nights(database)
        else:
            who = f"{getpass.getuser()}@{socket.gethostname()}"
            released = release_night(database, night, released_by=who)
    if night is None:
        rows = [
            {
                "night": c.id,
                "monitor": c.monitor,
                "model": c.model,
                "date": c.scheduled_date.isoformat(),
                "claimed_by": c.claimed_by,
                "claimed_at": c.claimed_at.isoformat(),
            }
            for c in claims
        ]
        if as_json:
            emit_json({"claimed": rows})
            return
        if not rows:
            click.echo("no claimed nights")
        for r in rows:
            click.echo(
                f"  night {r['night']:<6} {r['monitor']:<16} {r['model']:<24} {r['date']}  "
                f"claimed by {r['claimed_by'] or '-'} at {r['claimed_at']}"
            )
        return
    result = {
        "night": released.id,
        "monitor": released.monitor,
        "model": released.model,
        "date": released.scheduled_date.isoformat(),
        "claimed_by": released.claimed_by,
        "status": "failed",
    }
    if as_json:
        emit_json(result)
        return
    click.echo(
        f"released night {released.id} ({released.monitor}, {released.model}, "
        f"{released.scheduled_date}) claimed by {released.claimed_by or '-'}; "
        "the next `quizbot monitor run` takes it over"
    )
