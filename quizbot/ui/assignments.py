"""The "Assignments" tab: instructors list and create assignments and read their results.

Instructors only. The tab's panel starts hidden and is shown when the browser session logs in on
the Admin tab (the same server-side ``is_admin`` state the Monitor tab's admin controls use; it is
handed to :func:`tab`, so one check can later be swapped for accounts); every handler checks the
state again on the server before it reads or writes anything, so a student's page never holds an
assignment's keys or anyone's answers.

The panel:

* **Assignments**: every assignment (name, knowledge base, items, mode, two-pass, cohort, window).
* **Create**: name, knowledge base, number of facts, format, mode, cohort, window (ISO dates),
  all variants, two-pass; made by :func:`quizbot.generate.assignments.make_assignment`, the same
  as ``quizbot assignment create``.
* **Results**: for the chosen assignment, :func:`quizbot.analysis.assignments.assignment_results`
  (the figures of ``quizbot assignment results --json``): every respondent with accuracy, answer
  rate and joint accuracy and their 95% intervals (two-pass: with and without guessing), each
  model's percentile among the students, the model-vs-students tests (the paired McNemar test
  against the students' item majority among them) and the paired tests between models.
* **Items**: :func:`quizbot.analysis.answers.assignment_answers`, per item every respondent's
  answer: for models the prompt, raw reply, parsed answer and why; for students the answer, the
  time taken and whether feedback had been shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gradio as gr

from quizbot.analysis.answers import AnswerSet, assignment_answers
from quizbot.analysis.assignments import assignment_results
from quizbot.domain import Assignment, AssignmentMode
from quizbot.generate.assignments import AssignmentRequest, make_assignment, parse_moment
from quizbot.kb.registry import DEFAULT_KB, kb_listing
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.monitor import NOT_ADMIN
from quizbot.ui.render import format_estimate, md_escape
from storage.assignments import list_assignments

__all__ = [
    "LIST_HEADERS",
    "assignment_rows",
    "build",
    "create",
    "render_items",
    "render_recall",
    "render_results",
    "tab",
]

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


def render_results(results: Mapping[str, Any]) -> str:
    """The results page as Markdown: respondents, percentiles, tests, notes."""
    metrics = [m for m in METRIC_LABELS if not m.endswith("_guessing") or results.get("two_pass")]
    head = (
        f"### {md_escape(str(results['assignment']))}\n"
        f"{results['n_items']} items from `{results['kb']}`, {results['mode']} mode"
        f"{', two-pass' if results.get('two_pass') else ''}. Figures with Wilson 95% intervals "
        "(k/n)."
    )
    lines = [head, "", "#### Respondents", ""]
    header = ["respondent", "kind", "items", *(METRIC_LABELS[m] for m in metrics), "percentile"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for r in results["respondents"]:
        percentile = r.get("percentile")
        cells = [
            _cell(str(r["name"])),
            r["kind"],
            str(r["n_items"]),
            *(_figure(r["metrics"].get(m)) for m in metrics),
            "–" if percentile is None else f"{percentile:.1f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if not results["respondents"]:
        lines.append("| (nobody has answered yet) |" + " |" * (len(header) - 1))
    tests = [(r["name"], t) for r in results["respondents"] for t in r.get("tests", [])]
    tests += [(t["b"], t) for t in results.get("model_tests", [])]
    lines += ["", "#### Tests", ""]
    if tests:
        lines.append("| model | against | scope | test | n | difference | p | p adjusted |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for model, t in tests:
            scope = t["scope"] + (f": {t['key']}" if t.get("key") else "")
            n = t.get("n_shared") or f"{t.get('n_a')} / {t.get('n_b')}"
            lines.append(
                f"| {_cell(str(model))} | {_cell(str(t['a']))} | {_cell(scope)} | {t['test']} "
                f"| {n} | {format_estimate(t.get('difference'), t.get('difference_interval'))} "
                f"| {_p(t.get('p_value'))} | {_p(t.get('p_adjusted'))} |"
            )
    else:
        lines.append("No tests yet: they need students and at least one model.")
    if results.get("format") == "recall":
        lines += ["", *render_recall(results)]
    if results.get("notes"):
        lines += ["", "#### Notes", ""]
        lines += [f"* {md_escape(str(n))}" for n in results["notes"]]
    return "\n".join(lines)


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
    )
    return make_assignment(ctx.db, request, ctx.settings)


def _frame(rows: list[list[Any]]) -> Any:
    import pandas as pd  # noqa: PLC0415 - only the table needs it

    return pd.DataFrame(rows, columns=LIST_HEADERS)


def build(ctx: UiContext, is_admin: gr.State) -> list[Any]:
    """Lay out the tab's contents; returns the panel, shown once an admin logs in."""
    gr.Markdown(
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
            make = gr.Button("Create", variant="primary", elem_id="qb-assign-create")
            made = gr.Markdown(elem_id="qb-assign-create-result")
        with gr.Row():
            chosen = gr.Dropdown(label="Assignment", choices=[], elem_id="qb-assign-chosen")
            show = gr.Button("Show results", variant="primary", elem_id="qb-assign-show", scale=0)
        results = gr.Markdown(elem_id="qb-assign-results")
        with gr.Accordion("Every answer, item by item", open=False, elem_id="qb-assign-items-box"):
            items = gr.Markdown(elem_id="qb-assign-items")

    @guarded(3)
    def _list(admin: bool, keep: str | None = None) -> list[Any]:
        if not admin:
            return [gr.skip(), gr.skip(), gr.skip()]
        found = list_assignments(ctx.db)
        names = [a.name for a in found]
        value = keep if keep in names else (names[-1] if names else None)
        note = f"{len(found)} assignment(s)." if found else "No assignments yet: create one below."
        return [note, _frame(assignment_rows(found)), gr.Dropdown(choices=names, value=value)]

    @guarded(1)
    def _create(admin: bool, *values: Any) -> str:
        if not admin:
            return NOT_ADMIN
        name, kb_name, n, form, how, group, start, end, every, two = values
        done = create(
            ctx, name=name, kb=kb_name, points=n, fmt=form, mode=how, cohort=group or "",
            opens=start or "", closes=end or "", all_variants=every, two_pass=two,
        )  # fmt: skip
        return f"Created **{md_escape(done.name)}**: {len(done.item_ids)} items, {done.mode} mode."

    @guarded(2)
    def _show(admin: bool, name: str | None) -> list[str]:
        if not admin:
            return [NOT_ADMIN, ""]
        if not name:
            return ["Choose an assignment first.", ""]
        return [
            render_results(assignment_results(ctx.db, name)),
            render_items(assignment_answers(ctx.db, name)),
        ]

    is_admin.change(_list, [is_admin], [listed, table, chosen], api_visibility="private")
    refresh.click(_list, [is_admin, chosen], [listed, table, chosen], api_visibility="private")
    make.click(
        _create,
        [is_admin, new_name, kb, points, fmt, mode, cohort, opens, closes, all_variants, two_pass],
        [made],
        api_visibility="private",
    ).then(_list, [is_admin, new_name], [listed, table, chosen], api_visibility="private")
    show.click(_show, [is_admin, chosen], [results, items], api_visibility="private")
    return [panel]


def tab(ctx: UiContext, is_admin: gr.State) -> list[Any]:
    """The whole tab (for :mod:`quizbot.ui.app`); returns its admin-only panel."""
    with gr.Tab("Assignments", id="assignments"):
        return build(ctx, is_admin)
