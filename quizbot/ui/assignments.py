"""The "Assignments" tab: instructors list and create assignments and read their results.

Who may use it, decided on the server at every call (:func:`manager`), raw HTTP included:

* **accounts mode**: an instructor manages the assignments of their own cohort (the account's
  cohort) and no other: the list, the results, the item view and the exports show only those,
  an assignment of another cohort (or of none) is "not found", and a new assignment is made for
  their cohort whatever the form says. An instructor account without a cohort manages none.
  Admins manage every assignment. Students never see the tab (``TAB_ROLES``) and every handler
  refuses them (:func:`quizbot.ui.identity.restrict`, then :func:`manager` again).
* **local mode**: the panel starts hidden and is shown when the browser session logs in on the
  Admin tab (the server-side ``is_admin`` state the Monitor tab's admin controls use); every
  handler checks that state again before it reads or writes anything.

So a student's page never holds an assignment's keys or anyone's answers. Every assignment made
here is written to the audit log (``assignment.create``).

The panel:

* **Assignments**: every assignment (name, knowledge base, items, mode, two-pass, cohort, window).
* **Create**: name, knowledge base, number of facts, format, mode, cohort, window (ISO dates),
  all variants, two-pass, and the protocol ("I do not know" offered or not, worked examples
  for models); made by :func:`quizbot.generate.assignments.make_assignment`, the same
  as ``quizbot assignment create``.
* **Results**: for the chosen assignment, :func:`quizbot.analysis.assignments.assignment_results`
  (the figures of ``quizbot assignment results --json``): every respondent with accuracy, answer
  rate and joint accuracy and their 95% intervals (two-pass: with and without guessing), each
  model's percentile among the students, the model-vs-students tests (the paired McNemar test
  against the students' item majority among them) and the paired tests between models.
* **Items**: :func:`quizbot.analysis.answers.assignment_answers`, per item every respondent's
  answer: for models the prompt, raw reply, parsed answer and why; for students the answer, the
  time taken and whether feedback had been shown.
* **Export**: the results and every answer as CSV or JSONL
  (:func:`quizbot.analysis.exports.result_rows`, the files of ``quizbot assignment results
  --export-csv/--export-jsonl``).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from quizbot import accounts
from quizbot.analysis.answers import AnswerSet, assignment_answers
from quizbot.analysis.assignments import assignment_results
from quizbot.analysis.exports import result_rows, to_csv, to_jsonl
from quizbot.domain import Assignment, AssignmentMode, Role
from quizbot.errors import InputError, NotFoundError
from quizbot.generate.assignments import AssignmentRequest, make_assignment, parse_moment
from quizbot.kb.registry import DEFAULT_KB, kb_listing
from quizbot.ui import identity
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.monitor import NOT_ADMIN
from quizbot.ui.render import format_estimate, md_escape
from storage.assignments import find_assignment, list_assignments
from storage.review import retire_from_assignment

__all__ = [
    "LIST_HEADERS",
    "Manager",
    "assignment_rows",
    "build",
    "create",
    "export_file",
    "item_choices",
    "managed_assignment",
    "manager",
    "render_item_analysis",
    "render_items",
    "render_recall",
    "render_results",
    "retire",
    "tab",
    "visible_assignments",
]

NO_COHORT = (
    "Your account has no cohort, so it has no assignments to manage: ask an administrator to "
    "give it the cohort you teach."
)


@dataclass(frozen=True, slots=True)
class Manager:
    """Who manages assignments through the tab, and which: every one (``every``: admins and the
    local admin) or those of ``cohort`` (an instructor; none when their account has no cohort).
    ``name`` is the account (None for the local admin)."""

    name: str | None
    cohort: str | None
    every: bool

    def sees(self, assignment: Assignment) -> bool:
        """Whether this manager may see ``assignment``, its results and its answers."""
        return self.every or (self.cohort is not None and assignment.cohort == self.cohort)


def manager(ctx: UiContext, admin: bool, request: gr.Request | None) -> Manager | None:
    """Who is asking, as a :class:`Manager`, or None when they may not use the tab.

    Accounts mode: admins manage every assignment, instructors their cohort's, students none
    (the browser's ``admin`` value is ignored). Local mode: the Admin tab's login (``admin``,
    a server-side state) manages every assignment.
    """
    viewer = identity.current(ctx, request)
    if viewer.local:
        return Manager(None, None, True) if admin else None
    if viewer.role is Role.ADMIN:
        return Manager(viewer.name, None, True)
    if viewer.role is Role.INSTRUCTOR:
        return Manager(viewer.name, viewer.cohort, False)
    return None


def visible_assignments(ctx: UiContext, who: Manager) -> list[Assignment]:
    """The assignments ``who`` may see, oldest first."""
    return [a for a in list_assignments(ctx.db) if who.sees(a)]


def managed_assignment(ctx: UiContext, who: Manager, name: str) -> Assignment:
    """Assignment ``name`` if ``who`` may see it; :class:`NotFoundError` otherwise, the same for
    one that does not exist and one of another cohort (so nothing tells them apart)."""
    found = find_assignment(ctx.db, name)
    if found is None or not who.sees(found):
        raise NotFoundError(
            f"no assignment {name[:100]!r} among yours", hint="press Refresh and choose one"
        )
    return found


LIST_HEADERS = ["assignment", "knowledge base", "items", "mode", "two-pass", "cohort", "window"]
METRIC_LABELS = {
    "accuracy": "accuracy",
    "answer_rate": "answer rate",
    "joint_accuracy": "joint accuracy",
    "accuracy_with_guessing": "accuracy with guessing",
    "answer_rate_with_guessing": "answer rate with guessing",
}


def _window(a: Assignment) -> str:
    parts = []
    if a.opens_at is not None:
        parts.append(f"opens {a.opens_at:%Y-%m-%d %H:%M} UTC")
    if a.closes_at is not None:
        parts.append(f"closes {a.closes_at:%Y-%m-%d %H:%M} UTC")
    return ", ".join(parts) or "always open"


def assignment_rows(assignments: Sequence[Assignment]) -> list[list[Any]]:
    """One row per assignment (``LIST_HEADERS``)."""
    return [
        [
            a.name,
            a.kb_name,
            len(a.item_ids),
            a.mode,
            "yes" if a.config.get("two_pass") else "no",
            a.cohort or "",
            _window(a),
        ]
        for a in assignments
    ]


def _figure(figure: Mapping[str, Any] | None) -> str:
    if not figure or figure.get("value") is None:
        return "–"
    shown = format_estimate(figure["value"], [figure.get("low"), figure.get("high")])
    return f"{shown} ({figure['k']}/{figure['n']})"


def _cell(text: str) -> str:
    return md_escape(text).replace("|", "\\|").replace("\n", " ")


def _p(value: Any) -> str:
    return "–" if value is None else f"{value:.4g}"


def _headline(results: Mapping[str, Any]) -> list[str]:
    said = [f"**{md_escape(str(h))}**" for h in results.get("headline", [])]
    protocol = results.get("protocol")
    if protocol:
        said.append(
            f"*Protocol (fixed when the assignment was made):* {md_escape(protocol['summary'])}"
        )
    return [*said, ""] if said else []


def _protocol_cell(r: Mapping[str, Any]) -> str:
    p = r.get("protocol")
    if not p:
        return "–"
    idk = 'with "I do not know"' if p["idk"] else 'without "I do not know"'
    shots = f", {p['shots']} examples" if p.get("shots") else ""
    return f"{idk}{shots}" + ("" if p.get("matches", True) else " (differs)")


def render_results(results: Mapping[str, Any]) -> str:
    """The results page as Markdown: the headline, the protocol, respondents (each with the
    protocol they answered under), tests with their names and directions, runs under another
    protocol, the item analysis, notes."""
    metrics = [m for m in METRIC_LABELS if not m.endswith("_guessing") or results.get("two_pass")]
    head = (
        f"### {md_escape(str(results['assignment']))}\n"
        f"{results['n_items']} items from `{results['kb']}`, {results['mode']} mode"
        f"{', two-pass' if results.get('two_pass') else ''}. Figures with Wilson 95% intervals "
        "(k/n)."
    )
    lines = [head, "", *_headline(results), "#### Respondents", ""]
    header = ["respondent", "kind", "items", *(METRIC_LABELS[m] for m in metrics), "percentile",
              "protocol"]  # fmt: skip
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for r in results["respondents"]:
        percentile = r.get("percentile")
        cells = [
            _cell(str(r["name"])),
            r["kind"],
            str(r["n_items"]),
            *(_figure(r["metrics"].get(m)) for m in metrics),
            _percentile(r, percentile),
            _protocol_cell(r),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if not results["respondents"]:
        lines.append("| (nobody has answered yet) |" + " |" * (len(header) - 1))
    every = [(r["name"], t) for r in results["respondents"] for t in r.get("tests", [])]
    every += [(t["b"], t) for t in results.get("model_tests", [])]
    tests = [(m, t) for m, t in every if t.get("p_value") is not None]
    figures_only = [(m, t) for m, t in every if t.get("p_value") is None]
    lines += ["", "#### Tests", ""]
    lines += _standing_lines(results)
    if tests:
        lines.append(
            "| model | against | scope | test | n (a / b) | difference [95% CI] "
            "| direction | p | p adjusted |"
        )
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for model, t in tests:
            scope = t["scope"] + (f": {t['key']}" if t.get("key") else "")
            n = f"{t.get('n_a')} / {t.get('n_b')}"
            why = f" ({_cell(t['reason'])})" if t.get("reason") else ""
            lines.append(
                f"| {_cell(str(model))} | {_cell(str(t['a']))} | {_cell(scope)} "
                f"| {_cell(str(t.get('name', t['test'])))} | {n} "
                f"| {format_estimate(t.get('difference'), t.get('difference_interval'))} "
                f"| {_cell(str(t.get('direction', '')))}{why} | {_p(t.get('p_value'))} "
                f"| {_p(t.get('p_adjusted'))} |"
            )
        lines.append("")
        lines.append(
            "*Sub-groups (relations) are tested only with at least 10 answers on each side: "
            "fewer items than that make the clustered variance unreliable and move accuracy by "
            "10 points per answer; below it the figures are shown without a p-value. "
            '"item majority" is an item-level paired comparison: the model against the '
            "cohort's majority answer on each item.*"
        )
    else:
        lines.append("No tests yet: they need students and at least one model.")
    lines += _figures_only(figures_only)
    lines += _apart_lines(results)
    lines += render_item_analysis(results)
    if results.get("format") == "recall":
        lines += ["", *render_recall(results)]
    if results.get("notes"):
        lines += ["", "#### Notes", ""]
        lines += [f"* {md_escape(str(n))}" for n in results["notes"]]
    return "\n".join(lines)


def _percentile(r: Mapping[str, Any], percentile: Any) -> str:
    if percentile is None:
        return "–"
    standing = (r.get("percentile_detail") or {}).get("standing") or {}
    pair = standing.get("percentile_interval")
    return f"{percentile:.0f}" + ("" if not pair else f" [{pair[0]:.0f}–{pair[1]:.0f}]")


def _standing_lines(results: Mapping[str, Any]) -> list[str]:
    """Each model against the students' own scores (one-sample tests on per-student
    differences)."""
    lines: list[str] = []
    for r in results["respondents"]:
        standing = (r.get("percentile_detail") or {}).get("standing")
        if r["kind"] != "model" or not standing or not standing.get("n_students"):
            continue
        mean = standing.get("mean_difference")
        t_p = standing["t_test"]["p_value"]
        w_p = standing["wilcoxon"]["p_value"]
        direction = (
            "–"
            if mean is None
            else "the students scored the same as the model on average"
            if mean == 0
            else f"the students scored {abs(mean) * 100:.0f} points "
            f"{'higher' if mean > 0 else 'lower'} than the model on average"
        )
        tests = (
            f"one-sample t-test p = {_p(t_p)}, Wilcoxon signed-rank p = {_p(w_p)}"
            if t_p is not None or w_p is not None
            else md_escape(str(standing.get("reason") or "no test"))
        )
        lines.append(
            f"* **{_cell(str(r['name']))} against the students' own scores** "
            f"({standing['n_students']} students, matched items): {direction}; {tests}."
        )
    return [*lines, ""] if lines else []


def _figures_only(rows: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """Sub-groups below the minimum: their figures and the reason, no p-value."""
    if not rows:
        return []
    lines = ["", "Sub-groups below the minimum (figures only, no test):", ""]
    for model, t in rows:
        scope = t["scope"] + (f": {t['key']}" if t.get("key") else "")
        lines.append(
            f"* {_cell(str(model))} vs {_cell(str(t['a']))}, {_cell(scope)}: "
            f"{_cell(str(t.get('direction', '')))} ({_cell(str(t.get('reason') or ''))})"
        )
    return lines


def _apart_lines(results: Mapping[str, Any]) -> list[str]:
    apart = results.get("other_protocol_runs") or []
    if not apart:
        return []
    lines = ["", "#### Runs under another protocol (listed apart, not compared)", ""]
    for run in apart:
        lines.append(
            f"* {_cell(str(run['name']))} (run {run['run_id']}): "
            + "; ".join(md_escape(str(w)) for w in run["why"])
        )
    return lines


def _short(item_id: str) -> str:
    """An item id short enough for a table cell (the full id is in the exports and the JSON)."""
    return item_id if len(item_id) <= 16 else item_id[:15] + "…"


def _share(value: Any) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def render_item_analysis(results: Mapping[str, Any]) -> list[str]:
    """Item analysis as Markdown: per item difficulty, discrimination, option and "I do not
    know" shares (negative discrimination flagged, retired items marked), and KR-20."""
    analysis = results.get("item_analysis") or {}
    lines = ["", "#### Item analysis", ""]
    if not analysis.get("items"):
        note = analysis.get("note") or "Item analysis covers true/false and multiple-choice items."
        return [*lines, md_escape(str(note))]
    kr20 = analysis["kr20"]
    value = "–" if kr20["kr20"] is None else format_estimate(kr20["kr20"], kr20["interval"])
    reason = f" ({md_escape(str(kr20['reason']))})" if kr20.get("reason") else ""
    lines.append(
        f"Over {analysis['n_respondents']} respondents (students and models under the "
        f"assignment's protocol). **KR-20 reliability: {value}**{reason} (Feldt 95% interval)."
    )
    lines += [
        "",
        "| # | item | difficulty (share right) | discrimination | I do not know | options | flag |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in analysis["items"]:
        difficulty = format_estimate(row["difficulty"], row["difficulty_interval"])
        discrimination = (
            "–"
            if row["discrimination"] is None
            else format_estimate(row["discrimination"], row["discrimination_interval"])
        )
        options = ", ".join(f"{k} {_share(v)}" for k, v in row["options"].items())
        flag = "⚠ negative discrimination" if row.get("flag") else ""
        if row.get("retired"):
            flag = (flag + " · " if flag else "") + "retired from scoring"
        lines.append(
            f"| {row['position']} | `{_short(row['id'])}` | {difficulty} | {discrimination} "
            f"| {_share(row['idk_share'])} | {_cell(options)} | {flag} |"
        )
    return lines


def _mean(figure: Mapping[str, Any] | None) -> str:
    if not figure or figure.get("mean") is None:
        return "–"
    return f"{format_estimate(figure['mean'], figure.get('interval'))} (n={figure['n']})"


def render_recall(results: Mapping[str, Any]) -> list[str]:
    """An open recall assignment's mean F1 per aspect (95% t intervals), every respondent and
    the students pooled, and each model's Welch test per aspect against the pooled students."""
    rows = list(results["respondents"])
    if results.get("students_pooled"):
        rows.append(results["students_pooled"])
    aspects = sorted({a for r in rows for a in r["recall"]["by_aspect"]})
    lines = ["#### Open recall: mean F1 per aspect (95% t intervals)", ""]
    header = ["respondent", "kind", "overall", *(md_escape(a) for a in aspects)]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for r in rows:
        by = r["recall"]["by_aspect"]
        cells = [
            _cell(str(r["name"])),
            r["kind"],
            _mean(r["recall"]["overall"]["f1"]),
            *(_mean(by.get(a, {}).get("f1")) for a in aspects),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    tests = [(r["name"], r["recall_tests"]) for r in rows if r.get("recall_tests")]
    if tests:
        lines += ["", "Welch's t-test on F1, model vs the students pooled (BH-adjusted):", ""]
        lines.append("| model | aspect | model mean | students mean | t | p | p adjusted |")
        lines.append("|---|---|---|---|---|---|---|")
        for name, found in tests:
            for aspect, t in found["by_aspect"].items():
                mean_a = "–" if t["mean_a"] is None else f"{t['mean_a']:.3f}"
                mean_b = "–" if t["mean_b"] is None else f"{t['mean_b']:.3f}"
                lines.append(
                    f"| {_cell(str(name))} | {md_escape(aspect)} | {mean_a} | {mean_b} "
                    f"| {_p(t['t'])} | {_p(t['p_value'])} | {_p(t['p_adjusted'])} |"
                )
    return lines


def _code_block(text: str | None) -> str:
    shown = (text or "(none stored)").replace("```", "'''")
    return f"\n```text\n{shown}\n```\n"


def render_items(answers: AnswerSet) -> str:
    """Every item with every respondent's answer, as Markdown."""
    lines: list[str] = []
    for n, item in enumerate(answers.items, start=1):
        lines.append(f"#### {n}. {md_escape(item.text)}")
        lines.append(f"`{item.id}` · {item.kind} · key **{md_escape(item.key)}**\n")
        if not item.answers:
            lines.append("*No answers yet.*\n")
            continue
        for a in item.answers:
            data = a.as_json()
            passed = f", pass {data['answer_pass']}" if data.get("answer_pass") else ""
            if data["kind"] == "student":
                taken = data["time_taken_ms"]
                time_text = "time not stored" if taken is None else f"{taken / 1000:.1f} s"
                feedback = (
                    "after feedback on this fact"
                    if data["feedback_shown_before"]
                    else "no feedback"
                )
                lines.append(
                    f"* student **{_cell(data['respondent'])}**{passed}: "
                    f"{_cell(str(data['answer']))} → {data['parsed_answer']} "
                    f"({data['outcome']}; {time_text}; {feedback})"
                )
            else:
                lines.append(
                    f"* model **{_cell(data['respondent'])}** (run {data['run_id']}{passed}): "
                    f"parsed {data['parsed_answer']} ({data['outcome']}), why: "
                    f"{_cell(data['why'])}"
                )
                lines.append("  prompt:" + _code_block(data["prompt"]))
                lines.append("  raw reply:" + _code_block(data["raw_text"]))
        lines.append("")
    return "\n".join(lines) or "*This assignment has no items.*"


def create(
    ctx: UiContext,
    *,
    name: str,
    kb: str,
    points: float | None,
    fmt: str,
    mode: str,
    cohort: str,
    opens: str,
    closes: str,
    all_variants: bool,
    two_pass: bool,
    idk: bool = True,
    shots: float | None = 0,
) -> Assignment:
    """Make an assignment from the form's values (user errors as :class:`QuizbotError`)."""
    chosen_mode = AssignmentMode(mode or ("exam" if two_pass else "practice"))
    request = AssignmentRequest(
        name=name or "",
        kb=kb or DEFAULT_KB,
        points=int(points) if points else None,
        format="choice"
        if fmt == "choice"
        else "mixed"
        if fmt == "mixed"
        else "recall"
        if fmt == "recall"
        else "statements",
        all_variants=bool(all_variants),
        mode=chosen_mode,
        cohort=cohort.strip() or None if cohort else None,
        opens_at=parse_moment(opens, "opens") if opens and opens.strip() else None,
        closes_at=parse_moment(closes, "closes") if closes and closes.strip() else None,
        two_pass=bool(two_pass),
        idk=bool(idk),
        shots=int(shots or 0),
    )
    return make_assignment(ctx.db, request, ctx.settings)


EXPORT_PREFIX = "quizbot-assignment-"
EXPORT_MAX_AGE_S = 3600  # Gradio serves its own copy; ours go after an hour (students' answers)


def _prune_exports(now: float) -> None:
    """Delete export folders older than :data:`EXPORT_MAX_AGE_S` (of any quizbot process)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{EXPORT_PREFIX}*"):
        try:
            if now - folder.stat().st_mtime > EXPORT_MAX_AGE_S:
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue


def export_file(ctx: UiContext, who: Manager, name: str, kind: str) -> Path:
    """Write the results and every answer of assignment ``name`` (one ``who`` may see) as
    ``kind`` (``csv`` or ``jsonl``) into a fresh private temporary folder; returns the file.
    Folders of earlier exports older than an hour are deleted first."""
    _prune_exports(time.time())
    found = managed_assignment(ctx, who, name)
    rows = result_rows(
        assignment_results(ctx.db, found.name), assignment_answers(ctx.db, found.name)
    )
    text = to_csv(rows) if kind == "csv" else to_jsonl(rows)
    folder = Path(tempfile.mkdtemp(prefix=EXPORT_PREFIX))  # readable by this user only
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in found.name)[:60]
    path = folder / f"{safe or 'assignment'}-results.{'csv' if kind == 'csv' else 'jsonl'}"
    path.write_text(text, encoding="utf-8")
    return path


def _frame(rows: list[list[Any]]) -> Any:
    import pandas as pd  # noqa: PLC0415 - only the table needs it

    return pd.DataFrame(rows, columns=LIST_HEADERS)


@dataclass(frozen=True)
class _CreateForm:
    """The "Create an assignment" form; ``fields`` in the order ``_create`` takes them."""

    name: Any
    cohort: Any
    fields: list[Any]
    make: Any
    made: Any


@dataclass(frozen=True)
class _Panel:
    """The tab's components: the intro, then the panel (list, form, results, items, export)."""

    intro: Any
    panel: Any
    refresh: Any
    listed: Any
    table: Any
    form: _CreateForm
    chosen: Any
    show: Any
    results: Any
    retire_item: Any
    items: Any
    export_csv: Any
    export_jsonl: Any
    exported: Any
    download: Any

    def listing(self) -> list[Any]:
        """What a new listing updates: its note, the table and the assignment dropdown."""
        return [self.listed, self.table, self.chosen]


def build(ctx: UiContext, is_admin: gr.State) -> list[Any]:
    """Lay out the tab's contents; returns the panel the local admin login shows (accounts
    mode: the page load shows it to instructors and admins)."""
    view = _layout(ctx, is_admin)
    relist = _wire_listing(ctx, is_admin, view)
    _wire_create(ctx, is_admin, view, relist)
    _wire_results(ctx, is_admin, view)
    return [view.panel]


def _layout(ctx: UiContext, is_admin: gr.State) -> _Panel:
    """The intro and the hidden panel: list, create form, results (with the retire controls),
    every answer, export."""
    intro = gr.Markdown(
        "Assignments give a cohort and models exactly the same items. Instructors: log in on "
        "the **Admin** tab; the assignments then appear here.",
        elem_id="qb-assign-intro",
    )
    with gr.Column(visible=False, elem_id="qb-assign-panel") as panel:
        with gr.Row():
            refresh = gr.Button("Refresh", size="sm", elem_id="qb-assign-refresh", scale=0)
        listed = gr.Markdown(elem_id="qb-assign-list-note")
        table = gr.Dataframe(
            headers=LIST_HEADERS, interactive=False, elem_id="qb-assign-list", wrap=True
        )
        form = _create_form(ctx)
        with gr.Row():
            chosen = gr.Dropdown(label="Assignment", choices=[], elem_id="qb-assign-chosen")
            show = gr.Button("Show results", variant="primary", elem_id="qb-assign-show", scale=0)
        results = gr.Markdown(elem_id="qb-assign-results")
        retire_item = _retire_panel(ctx, is_admin, chosen, results)
        with gr.Accordion("Every answer, item by item", open=False, elem_id="qb-assign-items-box"):
            items = gr.Markdown(elem_id="qb-assign-items")
        with gr.Row():
            export_csv = gr.Button("Export CSV", size="sm", elem_id="qb-assign-export-csv")
            export_jsonl = gr.Button("Export JSONL", size="sm", elem_id="qb-assign-export-jsonl")
        exported = gr.Markdown(elem_id="qb-assign-export-note")
        download = gr.File(label="Results file", visible=False, elem_id="qb-assign-file")
    return _Panel(
        intro, panel, refresh, listed, table, form, chosen, show, results, retire_item, items,
        export_csv, export_jsonl, exported, download,
    )  # fmt: skip


def _create_form(ctx: UiContext) -> _CreateForm:
    """The "Create an assignment" accordion: name, knowledge base, facts, format, mode, cohort,
    window, variants, two-pass and the protocol."""
    with gr.Accordion("Create an assignment", open=False, elem_id="qb-assign-create-box"):
        with gr.Row():
            new_name = gr.Textbox(label="Name", elem_id="qb-assign-name")
            kb = gr.Dropdown(
                choices=[k.name for k in kb_listing(ctx.db)],
                value=DEFAULT_KB,
                label="Knowledge base",
                elem_id="qb-assign-kb",
            )
            points = gr.Number(label="Facts", value=10, precision=0, elem_id="qb-assign-points")
        with gr.Row():
            fmt = gr.Radio(
                ["statements", "choice", "mixed", "recall"],
                value="statements",
                label="Format",
                elem_id="qb-assign-format",
            )
            mode = gr.Radio(
                ["exam", "practice"], value="exam", label="Mode", elem_id="qb-assign-mode"
            )
            cohort = gr.Textbox(label="Cohort (optional)", elem_id="qb-assign-cohort")
        with gr.Row():
            opens = gr.Textbox(label="Opens (ISO, UTC; optional)", elem_id="qb-assign-opens")
            closes = gr.Textbox(label="Closes (ISO, UTC; optional)", elem_id="qb-assign-closes")
            all_variants = gr.Checkbox(label="All 8 variants", elem_id="qb-assign-all")
            two_pass = gr.Checkbox(label="Two-pass (EBMQA)", elem_id="qb-assign-two-pass")
        with gr.Row():
            offer_idk = gr.Checkbox(
                value=True,
                label='Offer "I do not know" (students and models alike)',
                elem_id="qb-assign-idk",
            )
            shots = gr.Number(
                value=0,
                precision=0,
                minimum=0,
                label="Worked examples per question for models (students get none)",
                elem_id="qb-assign-shots",
            )
        make = gr.Button("Create", variant="primary", elem_id="qb-assign-create")
        made = gr.Markdown(elem_id="qb-assign-create-result")
    fields = [new_name, kb, points, fmt, mode, cohort, opens, closes, all_variants, two_pass,
              offer_idk, shots]  # fmt: skip
    return _CreateForm(new_name, cohort, fields, make, made)


def _listed(ctx: UiContext, who: Manager, keep: str | None) -> list[Any]:
    """The listing's note, table and dropdown (keeping ``keep`` chosen if still listed)."""
    found = visible_assignments(ctx, who)
    names = [a.name for a in found]
    value = keep if keep in names else (names[-1] if names else None)
    if found:
        note = f"{len(found)} assignment(s)"
        note += f" of cohort **{md_escape(who.cohort)}**." if who.cohort else "."
    elif not who.every and who.cohort is None:
        note = NO_COHORT
    else:
        note = "No assignments yet: create one below."
    return [note, _frame(assignment_rows(found)), gr.Dropdown(choices=names, value=value)]


def _wire_listing(ctx: UiContext, is_admin: gr.State, view: _Panel) -> Any:
    """The list: on the local admin login, on page load in accounts mode (which also opens the
    panel and fixes an instructor's cohort field), and on "Refresh". Returns the listing
    handler, which "Create" calls again."""

    @guarded(3)
    def _list(admin: bool, keep: str | None, request: gr.Request) -> list[Any]:
        who = manager(ctx, admin, request)
        if who is None:
            return [gr.skip(), gr.skip(), gr.skip()]
        return _listed(ctx, who, keep)

    def _opened(request: gr.Request) -> list[Any]:
        """Accounts mode, on page load: the panel for instructors and admins, the cohort field
        fixed to an instructor's cohort. Local mode: nothing (the Admin login shows it)."""
        skip = [gr.skip() for _ in range(6)]
        try:
            who = manager(ctx, False, request)
        except gr.Error:
            return skip
        if who is None or who.name is None:
            return skip
        scope = (
            "Every assignment (you are an administrator)."
            if who.every
            else f"The assignments of your cohort **{md_escape(who.cohort)}**."
            if who.cohort
            else NO_COHORT
        )
        fixed = (
            gr.update()
            if who.every
            else gr.update(value=who.cohort or "", interactive=False, label="Cohort")
        )
        return [gr.update(value=scope), gr.update(visible=True), fixed, *_listed(ctx, who, None)]

    list_outputs = view.listing()
    chosen = view.chosen
    is_admin.change(_list, [is_admin, chosen], list_outputs, api_visibility="private")
    gr.on(
        None,
        _opened,
        outputs=[view.intro, view.panel, view.form.cohort, *list_outputs],
        api_visibility="private",
    )
    view.refresh.click(_list, [is_admin, chosen], list_outputs, api_visibility="private")
    return _list


def _wire_create(ctx: UiContext, is_admin: gr.State, view: _Panel, relist: Any) -> None:
    """The "Create" button: the form's assignment made (an instructor's for their own cohort),
    audit-logged, then the list again with the new one chosen."""

    @guarded(1)
    def _create(  # one parameter per field of the form
        admin: bool,
        name: str,
        kb_name: str,
        n: float | None,
        form: str,
        how: str,
        group: str | None,
        start: str | None,
        end: str | None,
        every: bool,
        two: bool,
        idk: bool,
        examples: float | None,
        request: gr.Request,
    ) -> str:
        who = manager(ctx, admin, request)
        if who is None:
            return NOT_ADMIN
        if not who.every:  # an instructor makes assignments for their own cohort only
            if who.cohort is None:
                raise InputError(NO_COHORT)
            group = who.cohort
        done = create(
            ctx, name=name, kb=kb_name, points=n, fmt=form, mode=how, cohort=group or "",
            opens=start or "", closes=end or "", all_variants=every, two_pass=two, idk=idk,
            shots=examples,
        )  # fmt: skip
        accounts.record_action(
            ctx.db, who.name, "assignment.create", done.name,
            detail=f"cohort={done.cohort or '-'}; items={len(done.item_ids)}; mode={done.mode}",
        )  # fmt: skip
        made_for = f" for cohort {md_escape(done.cohort)}" if done.cohort else ""
        return (
            f"Created **{md_escape(done.name)}**{made_for}: {len(done.item_ids)} items, "
            f"{done.mode} mode."
        )

    form = view.form
    form.make.click(_create, [is_admin, *form.fields], [form.made], api_visibility="private").then(
        relist, [is_admin, form.name], view.listing(), api_visibility="private"
    )


def _wire_results(ctx: UiContext, is_admin: gr.State, view: _Panel) -> None:
    """The "Show results" button (results, every answer, the items one may retire) and the
    exports."""

    @guarded(3)
    def _show(admin: bool, name: str | None, request: gr.Request) -> list[Any]:
        who = manager(ctx, admin, request)
        if who is None:
            return [NOT_ADMIN, "", gr.skip()]
        if not name:
            return ["Choose an assignment first.", "", gr.skip()]
        found = managed_assignment(ctx, who, name)
        shown = assignment_results(ctx.db, found.name)
        return [
            render_results(shown),
            render_items(assignment_answers(ctx.db, found.name)),
            gr.update(choices=item_choices(shown), value=None),
        ]

    def _export(kind: str) -> Any:
        @guarded(2)
        def run(admin: bool, name: str | None, request: gr.Request) -> list[Any]:
            who = manager(ctx, admin, request)
            if who is None:
                return [NOT_ADMIN, gr.skip()]
            if not name:
                return ["Choose an assignment first.", gr.skip()]
            path = export_file(ctx, who, name, kind)
            return ["", gr.update(value=str(path), visible=True)]

        run.__name__ = f"export_{kind}"
        return run

    chosen, download = view.chosen, view.download
    view.show.click(
        _show, [is_admin, chosen], [view.results, view.items, view.retire_item],
        api_visibility="private",
    )  # fmt: skip
    view.show.click(
        lambda: gr.update(value=None, visible=False), outputs=download, api_visibility="private"
    )
    for button, kind in ((view.export_csv, "csv"), (view.export_jsonl, "jsonl")):
        button.click(
            _export(kind), [is_admin, chosen], [view.exported, download], api_visibility="private"
        )


def item_choices(results: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The items an instructor may retire from scoring, flagged ones first, as (label, id)."""
    rows = (results.get("item_analysis") or {}).get("items") or []
    counted = [row for row in rows if not row.get("retired")]
    counted.sort(key=lambda row: (not row.get("flag"), row["position"]))
    return [
        (
            f"{row['position']}. {_short(row['id'])}"
            + (" — negative discrimination" if row.get("flag") else ""),
            row["id"],
        )
        for row in counted
    ]


def retire(ctx: UiContext, who: Manager, name: str, item_id: str, reason: str) -> str:
    """Retire ``item_id`` from assignment ``name``'s scoring (one ``who`` may see); audit-logged.
    Returns the note shown above the re-scored results."""
    found = managed_assignment(ctx, who, name)
    if not item_id:
        raise InputError("choose an item to retire first")
    retire_from_assignment(
        ctx.db, found.id, item_id, reason=reason.strip(), by=who.name or "local admin"
    )
    accounts.record_action(
        ctx.db, who.name, "assignment.retire_item", found.name, detail=f"item={item_id}"
    )
    return (
        f"Retired `{md_escape(item_id)}` from the scoring of **{md_escape(found.name)}**: the "
        "results below are scored without it (its answers are kept)."
    )


def _retire_panel(ctx: UiContext, is_admin: gr.State, chosen: Any, results: Any) -> Any:
    """The "retire from scoring" controls under the results; returns the item dropdown."""
    with gr.Row(elem_id="qb-assign-retire-row"):
        item = gr.Dropdown(
            label="Retire an item from scoring (flagged items first)",
            choices=[],
            elem_id="qb-assign-retire-item",
            scale=3,
        )
        reason = gr.Textbox(label="Reason (optional)", elem_id="qb-assign-retire-reason", scale=2)
        button = gr.Button("Retire from scoring", elem_id="qb-assign-retire", scale=1)
    note = gr.Markdown(elem_id="qb-assign-retire-note")

    @guarded(3)
    def _retire(
        admin: bool, name: str | None, item_id: str | None, why: str, request: gr.Request
    ) -> list[Any]:
        who = manager(ctx, admin, request)
        if who is None:
            return [NOT_ADMIN, gr.skip(), gr.skip()]
        if not name:
            return ["Choose an assignment first.", gr.skip(), gr.skip()]
        said = retire(ctx, who, name, item_id or "", why or "")
        shown = assignment_results(ctx.db, name)
        choices = gr.update(choices=item_choices(shown), value=None)
        return [said, render_results(shown), choices]

    button.click(
        _retire, [is_admin, chosen, item, reason], [note, results, item],
        api_visibility="private",
    )  # fmt: skip
    return item


def tab(ctx: UiContext, is_admin: gr.State) -> list[Any]:
    """The whole tab (for :mod:`quizbot.ui.app`); returns its admin-only panel."""
    with gr.Tab("Assignments", id="assignments"):
        return build(ctx, is_admin)
