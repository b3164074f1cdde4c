"""The "Admin" tab: log in, then import knowledge bases, look after monitors and read runs.

Admin actions are enabled by ``QUIZBOT_ADMIN_PASSWORD``; without it the tab only says how to turn
them on. With it, the tab shows a password box. A right password sets the session's
``is_admin`` state (server-side, per browser session) and reveals this tab's panel and the
admin-only components other tabs handed over (``admin_only``, e.g. the Monitor tab's "Run now");
a wrong one shows a message after a short delay and reveals nothing. Every handler checks
``is_admin`` again before it does or reads anything, and the panel's contents (the schedules
file, the runs) are only loaded after login, so they are never part of the page a student gets.

The panel:

* **Monitors**: the schedules file in force and its monitors (with their last night, alerts and
  next run), "Run now" per monitor, and a checker for a schedules file uploaded or edited in the
  browser (:func:`schedules.config.load_monitors`, the same validation the scheduler runs). The
  app never writes a schedules file: the shipped one belongs to the installation, so the way to
  change monitors is a file of one's own named by ``QUIZBOT_SCHEDULES_FILE``.
* **Runs**: the runs of :func:`storage.repo.list_runs`; selecting one shows
  :func:`quizbot.analysis.reporting.run_report` (:func:`render_report`): the figures
  ``quizbot runs report`` prints, with their 95% intervals, one titled table per section the run
  has (sub-labels, a permutation run's stability, open recall, SDAK, its repeat group).
* **Reason review (SDAK)**: for a run asked with the SDAK prompt, draw a sample of the reasons
  behind its correct verdicts (:func:`quizbot.analysis.reasons.sample_reasons`) and mark each
  sound or unsound, one at a time; the accuracy reliability so far is shown after each mark
  and in the run's report.
* **Review queue**: items students flagged in the practice chat (:mod:`quizbot.kb.review`), one
  at a time, with the item's text, its answer key, the KB fact behind it (for a false statement,
  the true tail it replaced), how many open flags it has and their comments; "Retire item",
  "True — never use as a negative", "False — remove this fact" and "Dismiss" record the
  decision (overrides, retirement) and close every open flag on that item.
* **Import a knowledge base**: a triplets CSV/JSONL file or MedLAMA ``<relation>_1000.csv``
  files, read by the importers ``quizbot kb import`` uses and installed with
  :func:`quizbot.kb.registry.install`; a bad file is refused whole, naming file, line and field.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from quizbot.analysis.labels import SDAK_LABELS, format_p, metric_label
from quizbot.analysis.reasons import ReasonEntry, mark, reasons, reliability, sample_reasons
from quizbot.analysis.reporting import run_report
from quizbot.domain import Run
from quizbot.errors import InputError, NotFoundError, QuizbotError
from quizbot.kb.importers import read_medlama, read_triplets
from quizbot.kb.registry import check_import_name, import_kb
from quizbot.kb.review import FlaggedItem, decide, review_queue
from quizbot.monitoring.describe import describe_monitor
from quizbot.monitoring.nights import history
from quizbot.monitoring.scheduler import trigger_for
from quizbot.ratelimit import RateLimitedError
from quizbot.ui import identity
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.monitor import NOT_ADMIN, declared_monitors, run_now
from quizbot.ui.render import format_estimate, format_mean_sd, md_escape, md_table
from schedules.config import MonitorSpec, default_schedules_file, load_monitors
from storage import Database
from storage.repo import list_runs

__all__ = [
    "DECISIONS",
    "FAILED_LOGIN_DELAY_S",
    "MONITOR_HEADERS",
    "REPORT_CSS",
    "RUN_HEADERS",
    "build",
    "check_schedules",
    "import_knowledge_base",
    "monitor_rows",
    "queue_choices",
    "render_flagged",
    "render_reason",
    "render_reliability",
    "render_report",
    "run_rows",
    "schedules_note",
]

ADMIN_REFUSED = "**Wrong password, or locked for a while after too many wrong ones.**"
FAILED_LOGIN_DELAY_S = 1.0  # slows down guessing; a right password is never delayed

MONITOR_HEADERS = [
    "monitor",
    "models",
    "schedule",
    "asks each night",
    "enabled",
    "last night",
    "alerts",
    "next run (UTC)",
]
RUN_HEADERS = ["run", "name", "model", "reported model", "status", "answers", "created (UTC)"]
# The report's tables scroll sideways inside the report on a phone, and their words never
# break inside (Gradio squeezed the sub-label tables to a letter or two a line at 390 px);
# figures stay on one line, labels wrap between words.
REPORT_CSS = """<style>
#qb-admin-report table {
  display: block; overflow-x: auto; max-width: 100%; border: none; padding: 0;
}
#qb-admin-report th, #qb-admin-report td { word-break: normal; overflow-wrap: normal; }
#qb-admin-report td:not(:first-child) { white-space: nowrap; }
</style>"""
KB_FORMATS = [("Triplets: one CSV or JSONL file", "triplets"), ("MedLAMA CSV files", "medlama")]


def schedules_note(path: Path, shipped: bool) -> str:
    """Markdown: which schedules file is in force and how to use another one."""
    origin = (
        "the file shipped with quizbot; it is part of the installation and is not edited here"
        if shipped
        else "named by `QUIZBOT_SCHEDULES_FILE`"
    )
    return (
        f"**Schedules file in force:** `{path}` ({origin}).\n\n"
        "To change the monitors, copy it somewhere of your own, edit it (or check an edited "
        "version below first), then set `QUIZBOT_SCHEDULES_FILE=/path/to/monitors.toml` and "
        "restart quizbot and its scheduler."
    )


def monitor_rows(
    specs: Sequence[MonitorSpec],
    histories: Mapping[str, Sequence[Mapping[str, Any]]],
    now: datetime,
    db: Database | None = None,
) -> list[list[Any]]:
    """One row per declared monitor (``MONITOR_HEADERS``); ``histories`` by monitor name; what
    each asks is :func:`quizbot.monitoring.describe.describe_monitor`'s text."""
    rows: list[list[Any]] = []
    for spec in specs:
        series = histories.get(spec.name, [])
        dates = [n["date"] for h in series for n in h["nights"]]
        upcoming = trigger_for(spec).get_next_fire_time(None, now) if spec.enabled else None
        rows.append(
            [
                spec.name,
                ", ".join(spec.models),
                f"{spec.cron} ({spec.timezone})",
                describe_monitor(db, spec.as_json()).text,
                "yes" if spec.enabled else "no",
                max(dates) if dates else "-",
                sum(len(h["alerts"]) for h in series),
                upcoming.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if upcoming else "-",
            ]
        )
    return rows


def run_rows(runs: Sequence[tuple[Run, int]]) -> list[list[Any]]:
    """One row per run, as :func:`storage.repo.list_runs` orders them (``RUN_HEADERS``)."""
    return [
        [
            run.id,
            run.name or "",
            run.model_requested,
            run.model_reported or "-",
            run.status,
            f"{answers}/{run.n_items}",
            run.created_at.strftime("%Y-%m-%d %H:%M"),
        ]
        for run, answers in runs
    ]


_BREAKDOWN = ("average_accuracy", "answer_rate", "accuracy_answered")
_RECALL_METRICS = (("f1", "F1"), ("precision", "P"), ("recall", "R"),
                   ("rouge1", "ROUGE-1"), ("bleu1", "BLEU-1"), ("cosine", "cosine"))  # fmt: skip
_CI = "[95% CI]"


def _value(value: float | None) -> str:
    return format_estimate(value, None)


def _section(title: str, *body: str) -> list[str]:
    """A report section: a heading, then its lines (tables, notes), blank lines around."""
    return ["", f"#### {title}", "", *body]


def _head(report: Mapping[str, Any]) -> list[str]:
    name = f": {md_escape(report['name'])}" if report.get("name") else ""
    lines = [
        f"### Run {report['run_id']}{name}",
        f"Model `{report['model']}` (reported: `{report.get('model_reported') or '-'}`), "
        f"{report['status']}, {report.get('answered') or 0} of {report['n_items']} items "
        "answered and stored"
        + (
            f"; {report['n_errors']} failed calls, left out of the metrics"
            if report.get("n_errors")
            else ""
        )
        + ".",
    ]
    if report.get("error"):
        lines += ["", f"**Error:** {md_escape(str(report['error']))}"]
    return lines


def _metrics(report: Mapping[str, Any]) -> list[str]:
    intervals = report.get("intervals", {})
    rows = [
        [metric_label(key), format_estimate(value, intervals.get(key))]
        for key, value in report.get("metrics", {}).items()
    ]
    return _section("Metrics", *md_table(["metric", f"value {_CI}"], rows))


def _breakdown(title: str, parts: Mapping[str, Any], notes: str | None = None) -> list[str]:
    if not parts:
        return []
    rows = [
        [
            name,
            part.get("n", ""),
            *(
                format_estimate(part["metrics"].get(m), part["intervals"].get(m))
                for m in _BREAKDOWN
            ),
        ]
        for name, part in parts.items()
    ]
    headers = [title, "n", *(f"{metric_label(m)} {_CI}" for m in _BREAKDOWN)]
    return _section(f"By {title}", *md_table(headers, rows), *([notes] if notes else []))


def _gap_and_spearman(part: Mapping[str, Any]) -> str:
    """A sub-label's best-to-worst gap and Spearman correlation, as one Markdown line."""
    notes = []
    gap = part.get("gap")
    if gap:
        notes.append(
            f"best-to-worst gap in accuracy {_value(gap['value'])} "
            f"({md_escape(str(gap['best']))} − {md_escape(str(gap['worst']))})"
        )
    rho = part.get("spearman")
    notes.append(
        "Spearman correlation of answer rate and accuracy on answered: "
        f"ρ = {_value(rho['rho'])}, {format_p(rho['p_value'])} ({rho['n_groups']} groups)"
        if rho
        else "Spearman correlation: - (needs 3 or more groups that vary)"
    )
    return "; ".join(notes) + "."


def _multi(multi: Mapping[str, Any]) -> list[str]:
    row = [
        multi["n_items"],
        format_estimate(multi["exact_match"], multi.get("exact_match_interval")),
        _value(multi["partial_credit"]),
    ]
    headers = ["questions", f"exact match {_CI}", "fractional credit"]
    return _section("Multi-answer questions", *md_table(headers, [row]))


def _sub_labels(sub: Mapping[str, Any]) -> list[str]:
    """Sub-labels with two or more groups: per group accuracy, answer rate and guessing
    baselines, then the gap and Spearman; by relation only the gap and Spearman (its figures
    are in "By relation"), as the command line shows them."""
    overall = sub.get("overall", {})
    guessing = md_table(
        [
            "",
            "accuracy",
            "random guessing",
            f"majority guessing (always {sub.get('majority_key')})",
        ],
        [
            [
                "whole run",
                _value(overall.get("average_accuracy")),
                _value(overall.get("random_guess")),
                _value(overall.get("majority_guess")),
            ]
        ],
    )
    lines = _section("Sub-labels: guessing baselines", *guessing)
    headers = ["group", "n", f"accuracy {_CI}", f"answer rate {_CI}", "accuracy on answered",
               "random guess", "majority guess"]  # fmt: skip
    for name, part in sub.get("by_label", {}).items():
        groups = part.get("groups", {})
        if len(groups) < 2:
            continue
        title = f"Sub-label: {md_escape(str(name).replace('_', ' '))}"
        if name == "relation":
            lines += _section(title, _gap_and_spearman(part) + " Figures: see *By relation*.")
            continue
        rows = [
            [
                value,
                g["n"],
                format_estimate(g["average_accuracy"], g.get("average_accuracy_interval")),
                format_estimate(g["answer_rate"], g.get("answer_rate_interval")),
                _value(g.get("accuracy_answered")),
                _value(g.get("random_guess")),
                _value(g.get("majority_guess")),
            ]
            for value, g in groups.items()
        ]
        lines += _section(title, *md_table(headers, rows), "", _gap_and_spearman(part))
    return lines


_CONDITIONS = {"with_idk": 'with "I do not know"', "without_idk": 'without "I do not know"'}


def _stability(stability: Mapping[str, Any]) -> list[str]:
    """A permutation run: per condition, accuracy per option order, its spread and the items
    answered alike in every order; with ``--idk-both``, what offering "I do not know" changed."""
    k = stability.get("k")
    lines = _section(
        f"Stability over option orders (k = {k})",
        "Every multiple-choice item asked in k option orders (order 0: the original)"
        + (', each with and without "I do not know".' if stability.get("idk_both") else "."),
    )
    for condition, part in stability.get("conditions", {}).items():
        rows = [
            [
                "0 (original)" if row["index"] == 0 else row["index"],
                row["n"],
                format_estimate(row["accuracy"], row.get("accuracy_interval")),
                format_estimate(row["answer_rate"], row.get("answer_rate_interval")),
            ]
            for row in part.get("by_order", [])
        ]
        spread, same = part.get("spread", {}), part.get("consistency", {})
        summary = [
            ["accuracy, all orders", _value(part.get("accuracy"))],
            ["lowest order's accuracy", _value(spread.get("min"))],
            ["highest order's accuracy", _value(spread.get("max"))],
            ["range (highest − lowest)", _value(spread.get("range"))],
            ["SD over orders", _value(spread.get("sd"))],
            [
                f"same answer in every order ({same.get('k')} of {same.get('n')} items)",
                format_estimate(same.get("value"), same.get("interval")),
            ],
        ]
        name = _CONDITIONS.get(condition, condition.replace("_", " "))
        lines += _section(
            f"Option orders, {name}: {part.get('n_items')} items, {part.get('n_answers')} answers",
            *md_table(["order", "n", f"accuracy {_CI}", f"answer rate {_CI}"], rows),
            "",
            *md_table(["over the orders", f"value {_CI}"], summary),
        )
    effect = stability.get("idk_effect")
    if effect:
        rows = [
            [
                label,
                _value(effect[f"{key}_with_idk"]),
                _value(effect[f"{key}_without_idk"]),
                _value(effect[f"{key}_change"]),
            ]
            for key, label in (("answer_rate", "answer rate"), ("accuracy", "accuracy"))
        ]
        headers = ["", 'with "I do not know"', "without", "change (with − without)"]
        lines += _section('Effect of offering "I do not know"', *md_table(headers, rows))
    return lines


def _recall(recall: Mapping[str, Any]) -> list[str]:
    """Open recall: mean scores per aspect and overall, then tier shares (with 95% CIs)."""
    groups = {**recall.get("by_aspect", {}), "overall": recall.get("overall", {})}
    shown = [(k, label) for k, label in _RECALL_METRICS if any(k in g for g in groups.values())]
    names = list(recall.get("overall", {}).get("tiers", {}))
    scores, tiers = [], []
    for aspect, group in groups.items():
        figures = [group.get(k) or {} for k, _ in shown]
        scores.append(
            [aspect, group.get("n", ""),
             *(format_estimate(f.get("mean"), f.get("interval")) for f in figures)]
        )  # fmt: skip
        own = group.get("tiers", {})
        tiers.append(
            [aspect, *(format_estimate(own.get(n, {}).get("share"), own.get(n, {}).get("interval"))
                       for n in names)]
        )  # fmt: skip
    kinds = [
        ("matched", "matched"),
        ("extra_truth", "true, not in the list"),
        ("known_wrong", "known wrong"),
        ("unverified", "unverified"),
        ("judged_correct", "judge: correct"),
        ("judged_incorrect", "judge: incorrect"),
    ]
    entries = [
        [aspect, *(str((group.get("entries") or {}).get(k, 0)) for k, _ in kinds)]
        for aspect, group in groups.items()
    ]
    spec = recall.get("tiers", {})
    note = (
        f"Tiers by {md_escape(str(spec.get('metric')))}: below {spec.get('low')} completely "
        f"wrong, from {spec.get('high')} basically correct."
    )
    return [
        *_section(
            "Open recall: mean scores",
            *md_table(["aspect", "n", *(f"{label} {_CI}" for _, label in shown)], scores),
        ),
        *_section(
            "Open recall: tiers",
            *md_table(["aspect", *(f"{n} {_CI}" for n in names)], tiers),
            "",
            note,
        ),
        *_section(
            "Open recall: listed entries by class",
            *md_table(["aspect", *(label for _, label in kinds)], entries),
            "",
            "Unverified entries (nothing known of them) count on neither side of precision.",
        ),
    ]


def _sdak(sdak: Mapping[str, Any]) -> list[str]:
    """SDAK: the paper's pair metrics, error types as shares of the errors, reliability."""
    counts = sdak.get("counts", {})
    rows = [
        [SDAK_LABELS.get(key, key), f"{counts.get(key, 0)}/{sdak['n_pairs']}",
         format_estimate(value, sdak["intervals"].get(key))]
        for key, value in sdak["metrics"].items()
    ]  # fmt: skip
    rows += [
        [f"error: {SDAK_LABELS.get(key, key)}", f"{counts.get(key, 0)}/{sdak['n_errors']}",
         format_estimate(value, sdak["error_type_intervals"].get(key))]
        for key, value in sdak["error_types"].items()
    ]  # fmt: skip
    rel = sdak.get("accuracy_reliability")
    if rel:
        rows.append(
            ["accuracy reliability (sound reasons)", f"{rel['sound']}/{rel['reviewed']}",
             format_estimate(rel["value"], rel["interval"])]
        )  # fmt: skip
    return _section(
        f"SDAK (paper's definitions): {sdak['n_pairs']} pairs, {sdak['n_errors']} wrong",
        *md_table(["metric", "n", f"value {_CI}"], rows),
        "",
        "Error types are shares of the wrong pairs.",
    )


def _repeat_label(key: str) -> str:
    """A repeat summary's metric name (:func:`quizbot.analysis.repeats.flat_metrics`)."""
    if key.startswith("sdak.errors."):
        name = key.removeprefix("sdak.errors.")
        return f"SDAK error: {SDAK_LABELS.get(name, name)}"
    if key.startswith("sdak."):
        name = key.removeprefix("sdak.")
        return f"SDAK {SDAK_LABELS.get(name, name)}"
    if key.startswith("multi_answer."):
        return "multi-answer " + key.removeprefix("multi_answer.").replace("_", " ")
    if key.startswith("recall.tier."):
        return f"open recall tier: {key.removeprefix('recall.tier.')}"
    if key.startswith("recall."):
        name = key.removeprefix("recall.")
        return "open recall " + dict(_RECALL_METRICS).get(name, name)
    return metric_label(key)


def _repeats(repeats: Mapping[str, Any]) -> list[str]:
    """A repeat group: every metric as mean ± SD (sample SD) over its completed runs."""
    runs = ", ".join(str(r) for r in repeats["runs"])
    n_runs = repeats.get("n_runs", len(repeats["runs"]))
    title = f"Repeats: mean ± SD over {n_runs} completed runs ({runs})"
    if repeats.get("not_completed"):
        title += f"; not completed: {', '.join(str(r) for r in repeats['not_completed'])}"
    rows = [
        [
            _repeat_label(key),
            format_mean_sd(figure["mean"], figure["sd"]),
            figure.get("n", ""),
            ", ".join(_value(v) for v in figure.get("values", [])),
        ]
        for key, figure in repeats["metrics"].items()
    ]
    headers = ["metric", "mean ± SD", "runs with a value", "value in each run"]
    return _section(title, *md_table(headers, rows))


def render_report(report: Mapping[str, Any]) -> str:
    """A run's report (:func:`quizbot.analysis.reporting.run_report`) as Markdown: the figures
    ``quizbot runs report`` shows, with their 95% intervals, one titled table per section, and
    only the sections the run has (sub-labels, stability of a permutation run, open recall,
    SDAK, its repeat group). Nothing is computed here; every figure is read from ``report``."""
    lines = _head(report)
    if not (report.get("recall") and not report.get("by_relation")):  # not only open recall
        lines += _metrics(report)
    sub = report.get("sub_labels") or {}
    lines += _breakdown("relation", report.get("by_relation", {}))
    lines += _breakdown("transform", report.get("by_transform", {}))
    if report.get("multi_answer"):
        lines += _multi(report["multi_answer"])
    if sub:
        lines += _sub_labels(sub)
    if report.get("stability"):
        lines += _stability(report["stability"])
    if report.get("recall"):
        lines += _recall(report["recall"])
    if report.get("sdak"):
        lines += _sdak(report["sdak"])
    if report.get("repeats"):
        lines += _repeats(report["repeats"])
    return "\n".join(lines)


def render_reason(entry: ReasonEntry, position: int, total: int) -> str:
    """Markdown: one sampled reason to mark (claim, the right verdict, the reason), escaped."""
    reason = md_escape(entry.reason) if entry.reason else "*(no reason given)*"
    return (
        f"**Reason {position} of {total}** (answer {entry.response_id})\n\n"
        f"**Claim:** {md_escape(' '.join(entry.claim.split()))}\n\n"
        f"**Verdict:** {entry.verdict} (right)\n\n"
        f"**Reason:** {reason}"
    )


def render_reliability(entries: Sequence[ReasonEntry]) -> str:
    """Markdown: the accuracy reliability of a run's marked reasons so far."""
    rel = reliability(list(entries))
    if rel is None:
        return f"No reason marked yet ({len(entries)} correct verdicts to sample from)."
    return (
        f"Accuracy reliability: {format_estimate(rel['value'], rel['interval'])} "
        f"({rel['sound']} of {rel['reviewed']} marked reasons sound; "
        f"{rel['correct_verdicts']} correct verdicts in the run)."
    )


def _shown(message: str, folder: Path, label: str) -> str:
    """A message about files in a scratch folder, naming the files as the user knows them."""
    return message.replace(f"{folder}/", "").replace(str(folder), label)


def check_schedules(text: str) -> str:
    """Check the text of a schedules file as the scheduler would; Markdown verdict."""
    if not text.strip():
        return "Paste a schedules file, or upload one, first."
    with tempfile.TemporaryDirectory(prefix="quizbot-schedules-") as scratch:
        folder = Path(scratch)
        path = folder / "monitors.toml"
        path.write_text(text, encoding="utf-8")
        try:
            specs = load_monitors(path)
        except QuizbotError as exc:
            found = exc.message.removeprefix(f"{path}: ")
            problems = _shown(found, folder, "the file").split("; ")
            return "**Problems:**\n\n" + "\n".join(f"- {md_escape(p)}" for p in problems)
    if not specs:
        return "Valid, but it declares no monitors (add `[[monitor]]` tables)."
    names = ", ".join(f"`{s.name}` ({len(s.models)} model(s), cron `{s.cron}`)" for s in specs)
    return (
        f"**Valid:** {len(specs)} monitor(s): {names}. Save it outside the quizbot installation "
        "and point `QUIZBOT_SCHEDULES_FILE` at it to use it."
    )


def import_knowledge_base(db: Database, files: Sequence[str], fmt: str, name: str) -> str:
    """Import uploaded files as knowledge base ``name``, as ``quizbot kb import`` does.

    ``fmt`` is ``triplets`` (one CSV/JSONL file) or ``medlama`` (``<relation>_1000.csv`` files).
    Raises :class:`~quizbot.errors.QuizbotError` naming the file, line and field of a problem.
    """
    name = name.strip()
    if not name:
        raise InputError("give the knowledge base a name")
    check_import_name(name)
    if not files:
        raise InputError("upload a file first")
    if fmt == "triplets" and len(files) != 1:
        raise InputError("a triplets import takes one CSV or JSONL file", hint="upload one file")
    if fmt == "medlama":
        for upload in files:
            if not Path(upload).name.endswith("_1000.csv"):
                raise InputError(
                    "not a MedLAMA relation file",
                    path=Path(upload).name,
                    hint="upload the <relation>_1000.csv files of MedLAMA's 2021AA folder, "
                    "keeping their names",
                )
    with tempfile.TemporaryDirectory(prefix="quizbot-import-") as scratch:
        folder = Path(scratch)
        copies = []
        for upload in files:
            copy = folder / Path(upload).name  # the upload keeps the name it had on the user's disk
            shutil.copyfile(upload, copy)
            copies.append(copy)
        try:
            data = (
                read_medlama(folder, name) if fmt == "medlama" else read_triplets(copies[0], name)
            )
        except InputError as exc:
            raise InputError(_shown(exc.message, folder, "the upload"), hint=exc.hint) from None
    outcome = import_kb(db, data)
    shown = md_escape(name)
    if outcome.unchanged:
        return f"**{shown}** is already imported; nothing to do."
    points = sum(1 for t in data.triplets if t.meta.get("primary", True))
    return (
        f"Imported **{shown}**: {len(data.triplets):,} triplets ({points:,} knowledge points) "
        f"in {len(data.relations)} relation(s). Generate questions from it with "
        "`quizbot generate --kb <name> --out items.jsonl`."
    )


DECISIONS = [
    ("retire", "Retire item"),
    ("true", "True — never use as a negative"),
    ("false", "False — remove this fact"),
    ("dismiss", "Dismiss"),
]
_PREVIEW = 70


def _flat(text: str) -> str:
    first = " ".join(text.split())
    return first if len(first) <= _PREVIEW else first[: _PREVIEW - 1] + "…"


def queue_choices(queue: Sequence[FlaggedItem]) -> list[tuple[str, str]]:
    """Dropdown choices (label, first open flag's id) for the flagged items, oldest first."""
    return [
        (
            f"#{item.flags[0].id} · {item.n_flags} flag(s) · {_flat(item.text)}",
            str(item.flags[0].id),
        )
        for item in queue
    ]


def render_flagged(item: FlaggedItem) -> str:
    """A flagged item for a reviewer, as Markdown: text, key, fact, flags and comments."""
    lines = [
        f"**{item.n_flags} open flag(s)** on this {item.kind} from `{md_escape(item.kb)}`.",
        "",
        "> " + md_escape(" ".join(item.text.split())),
        "",
        f"**Answer key:** {md_escape(item.answer_key)}  ",
    ]
    fact = f"{md_escape(item.head)} · *{md_escape(item.relation)}*"
    if item.kind == "statement":
        lines.append(f"**Fact asked** (head · relation · tail): {fact} · {md_escape(item.tail)}  ")
        if item.negative and item.true_tail:
            lines.append(
                f"**A false statement:** it puts '{md_escape(item.tail)}' in place of the true "
                f"tail '{md_escape(item.true_tail)}'.  "
            )
    else:
        right = ", ".join(md_escape(t) for t in item.correct_tails) or "–"
        wrong = ", ".join(md_escape(t) for t in item.distractors) or "–"
        lines.append(f"**Fact** (head · relation): {fact}  ")
        lines.append(f"**Offered as right:** {right}  ")
        lines.append(f"**Offered as wrong (distractors):** {wrong}  ")
    lines.extend(["", "**Flags:**", ""])
    for flag in item.flags:
        comment = f": {md_escape(flag.comment)}" if flag.comment else ""
        when = flag.created_at.strftime("%Y-%m-%d %H:%M")
        lines.append(f"- #{flag.id} {flag.reason.replace('_', ' ')} ({when} UTC){comment}")
    return "\n".join(lines)


def _frame(headers: list[str], rows: list[list[Any]]) -> Any:
    return pd.DataFrame(rows, columns=headers)


def build(ctx: UiContext, is_admin: gr.State, admin_only: list[Any]) -> None:
    """Lay out the tab; logging in shows ``admin_only`` components of other tabs."""
    if not ctx.admin_enabled:
        gr.Markdown(
            "### Admin actions are off\n"
            "Set `QUIZBOT_ADMIN_PASSWORD` to a password of your choice and restart "
            "`quizbot serve`; this tab then asks for it and, once logged in, lets you import "
            "knowledge bases, check and run monitors, and read every run.",
            elem_id="qb-admin-disabled",
        )
        return
    with gr.Row(elem_id="qb-admin-login-row") as login_row:
        password = gr.Textbox(
            label="Admin password", type="password", elem_id="qb-admin-password", scale=3
        )
        login = gr.Button("Log in", variant="primary", elem_id="qb-admin-login", scale=0)
    message = gr.Markdown(elem_id="qb-admin-message")

    with gr.Column(visible=False, elem_id="qb-admin-panel") as panel:
        with gr.Row():
            gr.Markdown("Admin actions below; every one is checked again on the server.")
            logout = gr.Button("Log out", size="sm", elem_id="qb-admin-logout", scale=0)

        gr.Markdown("## Monitors")
        schedules = gr.Markdown(elem_id="qb-admin-schedules")
        monitors = gr.Dataframe(
            headers=MONITOR_HEADERS,
            label="Monitors of the schedules file",
            interactive=False,
            wrap=True,
            column_widths=["11%", "22%", "12%", "19%", "7%", "10%", "6%", "13%"],
            elem_id="qb-admin-monitors",
        )
        with gr.Row():
            monitor = gr.Dropdown(label="Monitor", choices=[], elem_id="qb-admin-monitor-name")
            run_monitor_now = gr.Button(
                "Run now", variant="primary", elem_id="qb-admin-monitor-run", scale=0
            )
        run_result = gr.Markdown(
            "Run now runs tonight's night for every model of the monitor (a night already "
            "done is skipped).",
            elem_id="qb-admin-monitor-result",
        )
        gr.Markdown("### Check a schedules file")
        with gr.Row():
            upload = gr.File(
                label="Upload a schedules file (.toml)",
                file_types=[".toml"],
                type="filepath",
                elem_id="qb-admin-schedules-file",
                scale=1,
            )
            editor = gr.Code(
                label="Schedules file (edit, then Check)",
                language=None,
                lines=14,
                interactive=True,
                elem_id="qb-admin-schedules-text",
                scale=2,
            )
        with gr.Row():
            check = gr.Button("Check", elem_id="qb-admin-schedules-check", scale=0)
            check_result = gr.Markdown(elem_id="qb-admin-schedules-result")

        gr.Markdown("## Runs")
        refresh_runs = gr.Button(
            "Refresh runs", size="sm", elem_id="qb-admin-runs-refresh", scale=0
        )
        runs = gr.Dataframe(
            headers=RUN_HEADERS,
            label="Runs, newest first (select one for its report)",
            interactive=False,
            max_height=400,
            elem_id="qb-admin-runs",
        )
        gr.HTML(REPORT_CSS, padding=False, elem_id="qb-admin-report-css")
        report = gr.Markdown(elem_id="qb-admin-report")

        gr.Markdown("## Reason review (SDAK)")
        gr.Markdown(
            "For a run asked with the SDAK prompt: draw reasons behind its correct verdicts and "
            "mark each sound or unsound. Accuracy reliability is the share of sound reasons."
        )
        with gr.Row():
            reason_run = gr.Number(
                label="Run", precision=0, minimum=1, elem_id="qb-admin-reasons-run"
            )
            reason_n = gr.Number(
                label="Sample size", value=10, precision=0, minimum=1, maximum=500,
                elem_id="qb-admin-reasons-n",
            )  # fmt: skip
            reason_draw = gr.Button("Draw reasons", elem_id="qb-admin-reasons-draw", scale=0)
        reason_view = gr.Markdown(elem_id="qb-admin-reasons-view")
        with gr.Row():
            reason_sound = gr.Button("Sound", size="sm", elem_id="qb-admin-reasons-sound")
            reason_unsound = gr.Button("Unsound", size="sm", elem_id="qb-admin-reasons-unsound")
        reason_result = gr.Markdown(elem_id="qb-admin-reasons-result")
        reason_queue = gr.State([])  # the drawn answers still to mark (server side)

        gr.Markdown("## Review queue")
        gr.Markdown(
            "Questions students flagged after answering them. A decision closes every open flag "
            "on the item. *True* and *False* also retire the item, whose key was wrong; "
            "corrections apply to every new question from now on."
        )
        with gr.Row():
            flagged = gr.Dropdown(
                label="Flagged item", choices=[], scale=3, elem_id="qb-admin-flag-item"
            )
            refresh_flags = gr.Button(
                "Refresh", size="sm", scale=0, elem_id="qb-admin-flags-refresh"
            )
        flag_summary = gr.Markdown(elem_id="qb-admin-flags-summary")
        flag_details = gr.Markdown(elem_id="qb-admin-flag-details")
        with gr.Row():
            flag_tail = gr.Dropdown(
                label="Which option (multiple choice)",
                choices=[],
                visible=False,
                elem_id="qb-admin-flag-tail",
            )
            reviewer = gr.Textbox(
                label="Decided by", value="admin", max_length=200, elem_id="qb-admin-reviewer"
            )
        with gr.Row(elem_id="qb-admin-flag-actions"):
            decision_buttons = [
                gr.Button(
                    label,
                    size="sm",
                    min_width=120,
                    variant="stop" if action == "retire" else "secondary",
                    elem_id=f"qb-admin-flag-{action}",
                )
                for action, label in DECISIONS
            ]
        flag_result = gr.Markdown(elem_id="qb-admin-flag-result")

        gr.Markdown("## Import a knowledge base")
        gr.Markdown(
            "**Triplets**: a CSV with the header `head,relation,tail` (optional columns "
            "`head_type`, `tail_type`, `group`) or JSONL objects with those fields. "
            "**MedLAMA**: one or more `<relation>_1000.csv` files from MedLAMA's `2021AA` "
            "folder. A file with a problem is refused whole, naming the file, line and field."
        )
        with gr.Row():
            kb_files = gr.File(
                label="Files",
                file_count="multiple",
                file_types=[".csv", ".jsonl", ".ndjson"],
                type="filepath",
                elem_id="qb-admin-kb-file",
            )
            with gr.Column():
                kb_format = gr.Radio(
                    KB_FORMATS, value="triplets", label="Format", elem_id="qb-admin-kb-format"
                )
                kb_name = gr.Textbox(label="Name to import it under", elem_id="qb-admin-kb-name")
                kb_import = gr.Button("Import", variant="primary", elem_id="qb-admin-kb-import")
        kb_result = gr.Markdown(elem_id="qb-admin-kb-result")

    def _shown_to(admin: bool) -> list[Any]:
        return [
            gr.update(visible=not admin),  # the login row
            gr.update(visible=admin),  # the panel
            *(gr.update(visible=admin) for _ in admin_only),
        ]

    def _login(secret: str, request: gr.Request) -> list[Any]:
        address = request.client.host if request is not None and request.client else None
        try:
            if ctx.check_admin(secret or "", address):
                return [True, "Logged in as admin.", "", *_shown_to(True)]
        except RateLimitedError as exc:
            wait = max(1, round(exc.retry_after))
            return [False, f"**Too many attempts; wait {wait} s.**", "", *_shown_to(False)]
        time.sleep(FAILED_LOGIN_DELAY_S)
        return [False, ADMIN_REFUSED, "", *_shown_to(False)]

    def _logout() -> list[Any]:
        cleared = ["", _frame(MONITOR_HEADERS, []), gr.Dropdown(choices=[], value=None), ""]
        results = ["", "", "", ""]  # the report and the three action results
        return [
            False,
            "Logged out.",
            *_shown_to(False),
            *cleared,
            _frame(RUN_HEADERS, []),
            *results,
        ]

    def _runs(admin: bool) -> Any:
        if not admin:
            return gr.skip()
        return _frame(RUN_HEADERS, run_rows(list_runs(ctx.db)))

    @guarded(5)
    def _admin_data(admin: bool, chosen: str | None = None, text: bool = True) -> list[Any]:
        """The panel's contents: the schedules file and its monitors (keeping the ``chosen``
        one selected), the file's text for the editor (unless ``text`` is False, so that an
        edit in progress survives a refresh) and the runs."""
        if not admin:
            return [gr.skip()] * 5
        path, specs, problem = declared_monitors(ctx)
        histories = {}
        for spec in specs:
            try:
                histories[spec.name] = history(ctx.db, spec.name)
            except NotFoundError:
                histories[spec.name] = []
        note = schedules_note(path, path.resolve() == default_schedules_file().resolve())
        if problem:
            note += f"\n\n**It could not be read:** {md_escape(problem)}"
        content: Any = gr.skip()
        if text:
            try:
                content = path.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError) as exc:
                content = f"# cannot read {path}: {exc}"
        names = [s.name for s in specs]
        chosen = chosen if chosen in names else (names[0] if names else None)
        return [
            note,
            _frame(MONITOR_HEADERS, monitor_rows(specs, histories, datetime.now(UTC), ctx.db)),
            gr.Dropdown(choices=names, value=chosen),
            content,
            _runs(admin),
        ]

    admin_outputs = [is_admin, message, password, login_row, panel, *admin_only]
    data_outputs = [schedules, monitors, monitor, editor, runs]
    logged_in = gr.on(
        [login.click, password.submit],
        _login,
        inputs=password,
        outputs=admin_outputs,
        api_visibility="private",
    ).then(_admin_data, inputs=is_admin, outputs=data_outputs, api_visibility="private")
    logout.click(
        _logout,
        outputs=[
            *[is_admin, message, login_row, panel, *admin_only, *data_outputs],
            *[report, run_result, check_result, kb_result],
        ],
        api_visibility="private",
    )

    def _run(admin: bool, name: str | None) -> str:
        return run_now(ctx, admin, name)

    def _after_run(admin: bool, name: str | None) -> list[Any]:
        return _admin_data(admin, name, text=False)

    run_monitor_now.click(
        _run, inputs=[is_admin, monitor], outputs=run_result, api_visibility="private"
    ).then(_after_run, inputs=[is_admin, monitor], outputs=data_outputs, api_visibility="private")

    def _load_upload(admin: bool, path: str | None) -> Any:
        if not admin:
            return gr.skip()
        if not path:
            return gr.skip()
        try:
            return Path(path).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            return f"# cannot read the upload: {exc}"

    upload.upload(_load_upload, inputs=[is_admin, upload], outputs=editor, api_visibility="private")

    @guarded(1)
    def _check(admin: bool, text: str | None) -> str:
        if not admin:
            return NOT_ADMIN
        return check_schedules(text or "")

    check.click(_check, inputs=[is_admin, editor], outputs=check_result, api_visibility="private")

    @guarded(2, at=1)
    def _refresh_runs(admin: bool) -> tuple[Any, Any]:
        if not admin:
            return gr.skip(), NOT_ADMIN
        return _runs(admin), gr.skip()

    refresh_runs.click(
        _refresh_runs, inputs=is_admin, outputs=[runs, report], api_visibility="private"
    )

    @guarded(1)
    def _report(admin: bool, evt: gr.SelectData) -> str:
        if not admin:
            return NOT_ADMIN
        try:
            row = evt.row_value or []
            run_id = int(row[0])
        except (TypeError, ValueError, IndexError):
            return "Select a run's row."
        return render_report(run_report(ctx.db, run_id))

    runs.select(_report, inputs=is_admin, outputs=report, api_visibility="private")

    @guarded(1)
    def _import(admin: bool, files: list[str] | None, fmt: str, name: str | None) -> str:
        if not admin:
            return NOT_ADMIN
        return import_knowledge_base(ctx.db, files or [], fmt, name or "")

    kb_import.click(
        _import,
        inputs=[is_admin, kb_files, kb_format, kb_name],
        outputs=kb_result,
        api_visibility="private",
    )

    def _reason_state(run_id: int, queue: list[ReasonEntry], total: int) -> list[Any]:
        """The queue, the next reason to mark (or that there is none) and the reliability."""
        view = (
            render_reason(queue[0], total - len(queue) + 1, total)
            if queue
            else "Nothing left to mark in this sample; draw again for more."
        )
        return [{"run": run_id, "total": total, "queue": queue}, view,
                render_reliability(reasons(ctx.db, run_id))]  # fmt: skip

    @guarded(3, at=2)
    def _draw(admin: bool, run: float | None, n: float | None) -> list[Any]:
        if not admin:
            return [gr.skip(), gr.skip(), NOT_ADMIN]
        if run is None:
            raise InputError("give the run's number")
        sample = sample_reasons(ctx.db, int(run), int(n or 10))
        return _reason_state(int(run), sample, len(sample))

    reason_outputs = [reason_queue, reason_view, reason_result]
    reason_draw.click(
        _draw, inputs=[is_admin, reason_run, reason_n], outputs=reason_outputs,
        api_visibility="private",
    )  # fmt: skip

    def _reason_mark(sound: bool) -> Any:
        @guarded(3, at=2)
        def handler(
            admin: bool, state: dict[str, Any] | None, by: str | None, request: gr.Request
        ) -> list[Any]:
            if not admin:
                return [gr.skip(), gr.skip(), NOT_ADMIN]
            if not state or not state.get("queue"):
                raise InputError("draw reasons first")
            entry: ReasonEntry = state["queue"][0]
            by = identity.current(ctx, request).name or by  # accounts: the account marks
            mark(ctx.db, state["run"], entry.response_id, sound=sound,
                 reviewer=(by or "").strip() or "admin")  # fmt: skip
            return _reason_state(state["run"], state["queue"][1:], state["total"])

        return handler

    for sound, button in ((True, reason_sound), (False, reason_unsound)):
        button.click(
            _reason_mark(sound), inputs=[is_admin, reason_queue, reviewer],
            outputs=reason_outputs, api_visibility="private",
        )  # fmt: skip

    def _forget_reasons() -> list[Any]:
        return [{}, "", ""]

    logout.click(_forget_reasons, outputs=reason_outputs, api_visibility="private")

    def _tail_choices(item: FlaggedItem | None) -> Any:
        if item is None or item.kind != "choice":
            return gr.update(choices=[], value=None, visible=False)
        options = list(dict.fromkeys([*item.distractors, *item.correct_tails]))
        return gr.update(choices=options, value=None, visible=True)

    @guarded(4, at=1)
    def _queue(admin: bool, chosen: str | None = None) -> list[Any]:
        """The queue: dropdown of flagged items (keeping ``chosen`` if still open), a summary
        line, the selected item's details and its option choices."""
        if not admin:
            return [gr.skip(), NOT_ADMIN, gr.skip(), gr.skip()]
        queue = review_queue(ctx.db)
        choices = queue_choices(queue)
        values = [value for _, value in choices]
        chosen = chosen if chosen in values else (values[0] if values else None)
        item = next((q for q in queue if str(q.flags[0].id) == chosen), None)
        summary = (
            f"{len(queue)} flagged item(s), {sum(q.n_flags for q in queue)} open flag(s)."
            if queue
            else "No open flags."
        )
        return [
            gr.Dropdown(choices=choices, value=chosen),
            summary,
            render_flagged(item) if item else "",
            _tail_choices(item),
        ]

    queue_outputs = [flagged, flag_summary, flag_details, flag_tail]

    @guarded(2)
    def _select(admin: bool, chosen: str | None) -> list[Any]:
        if not admin:
            return [NOT_ADMIN, gr.skip()]
        if not chosen:
            return ["", _tail_choices(None)]
        item = next((q for q in review_queue(ctx.db) if str(q.flags[0].id) == chosen), None)
        if item is None:
            return ["That item has no open flags any more; press Refresh.", _tail_choices(None)]
        return [render_flagged(item), _tail_choices(item)]

    flagged.input(
        _select, inputs=[is_admin, flagged], outputs=[flag_details, flag_tail],
        api_visibility="private",
    )  # fmt: skip
    refresh_flags.click(
        _queue, inputs=[is_admin, flagged], outputs=queue_outputs, api_visibility="private"
    )
    logged_in.then(_queue, inputs=is_admin, outputs=queue_outputs, api_visibility="private")

    def _forget() -> list[Any]:
        return [gr.Dropdown(choices=[], value=None), "", "", _tail_choices(None), ""]

    logout.click(_forget, outputs=[*queue_outputs, flag_result], api_visibility="private")

    def _decision(action: str, label: str) -> Any:
        @guarded(1)
        def handler(
            admin: bool,
            chosen: str | None,
            tail: str | None,
            by: str | None,
            request: gr.Request,
        ) -> str:
            if not admin:
                return NOT_ADMIN
            if not chosen:
                raise InputError("choose a flagged item first")
            by = identity.current(ctx, request).name or by  # accounts: the account decides
            decided = decide(
                ctx.db, int(chosen), action, by=(by or "").strip() or "admin", tail=tail or None
            )
            done = [f"**{md_escape(label)}**: closed {len(decided.flags)} flag(s)"]
            if decided.new_overrides:
                done.append(f"{decided.new_overrides} correction(s) stored")
            if decided.retired:
                done.append("the item is retired")
            return "; ".join(done) + "."

        return handler

    for (action, label), button in zip(DECISIONS, decision_buttons, strict=True):
        button.click(
            _decision(action, label),
            inputs=[is_admin, flagged, flag_tail, reviewer],
            outputs=flag_result,
            api_visibility="private",
        ).then(_queue, inputs=is_admin, outputs=queue_outputs, api_visibility="private")

    if ctx.accounts_mode():
        _account_login(ctx, is_admin, [login_row, panel, *admin_only, reviewer]).then(
            _admin_data, inputs=is_admin, outputs=data_outputs, api_visibility="private"
        ).then(_queue, inputs=is_admin, outputs=queue_outputs, api_visibility="private")


def _account_login(ctx: UiContext, is_admin: gr.State, shown: list[Any]) -> Any:
    """Accounts mode: an admin account is an admin from the page load on (no admin password;
    :func:`quizbot.ui.identity.restrict` checks the role again at every admin call). ``shown``:
    the password row, the panel, the other tabs' admin-only components, and the "Decided by"
    box (which then shows the account, and decisions are recorded under its name)."""

    def _from_account(request: gr.Request) -> list[Any]:
        admin = identity.current(ctx, request).is_admin
        # the password row stays hidden: admin rights follow the account only
        return [
            admin,
            gr.update(visible=False),
            *(gr.update(visible=admin) for _ in shown[1:-1]),
            gr.update(value=identity.current(ctx, request).name, interactive=False),
        ]

    return gr.on(None, _from_account, outputs=[is_admin, *shown], api_visibility="private")
