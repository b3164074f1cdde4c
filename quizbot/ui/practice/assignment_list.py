"""Accounts mode: the student's own assignments in the Practice tab, to start by choosing one.

A list shows the assignments the logged-in student may start, open now or opening later
(:func:`quizbot.practice.service.student_assignments`: their cohort's and those of no cohort,
an exam only when they may sit it), with their status and window; a radio offers the open ones
and "Free practice". The choice is copied, in the browser, into the tab's assignment field
(which still takes a typed name), so **Start** (and **Start recall**, for a recall assignment)
take it as they take a typed name in local mode, and the server checks cohort, seat and window
again at the start. Local mode shows none of this.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from quizbot.practice import service as practice
from quizbot.practice.service import StudentAssignment
from quizbot.ui import identity
from quizbot.ui.context import UiContext
from quizbot.ui.practice.render import _error_text
from quizbot.ui.render import md_escape

__all__ = ["FREE_PRACTICE", "AssignmentList", "assignment_table", "build", "choices", "listed"]

FREE_PRACTICE = ("Free practice (the settings below)", "")
_KINDS = {
    "statements": "true/false",
    "choice": "multiple choice",
    "mixed": "mixed",
    "recall": "open recall (Start recall)",
}
# In the browser: the chosen assignment becomes the value of the tab's assignment field.
COPY_JS = "(chosen) => chosen ?? ''"


@dataclass
class AssignmentList:
    """The components of the list (hidden in local mode)."""

    box: Any
    table: Any
    choice: Any


def assignment_table(found: Sequence[StudentAssignment]) -> str:
    """The student's assignments as a Markdown list, one line each (it reads at phone width):
    name, kind, status and window."""
    if not found:
        return "**Your assignments:** none open for you now. Practise freely below."
    lines = ["**Your assignments**", ""]
    for a in found:
        status = a.status if a.open_now else "not open yet"
        kind = _KINDS.get(a.kind, a.kind) + (", exam" if a.mode == "exam" else "")
        lines.append(
            f"- **{md_escape(a.name)}** · {kind} · *{status}* · {md_escape(a.window)}"
            f" · {a.n_items} question{'s' if a.n_items != 1 else ''}"
        )
    return "\n".join(lines)


def choices(found: Sequence[StudentAssignment]) -> list[tuple[str, str]]:
    """Radio choices: free practice, then every assignment open now with its status."""
    return [FREE_PRACTICE] + [(f"{a.name} ({a.status})", a.name) for a in found if a.open_now]


def listed(ctx: UiContext, name: str) -> tuple[Any, Any, Any]:
    """For the logged-in account ``name``: the list shown, its table and the radio's choices
    (the current choice kept while it is still offered; else free practice)."""
    try:
        found = practice.student_assignments(ctx.db, name, sitter=identity.sitter(ctx, name))
    except Exception as exc:  # every error becomes a message, never a traceback
        return gr.update(visible=True), _error_text(exc), gr.update(choices=[FREE_PRACTICE])
    return gr.update(visible=True), assignment_table(found), gr.update(choices=choices(found))


def build() -> AssignmentList:
    """Lay out the list (inside the settings column; shown on page load in accounts mode)."""
    with gr.Group(visible=False, elem_id="qb-practice-assignments") as box:
        table = gr.Markdown(elem_id="qb-practice-assignments-table")
        choice = gr.Radio(
            choices=[FREE_PRACTICE],
            value="",
            label="What to start",
            info="Choose an assignment, then press Start (Start recall for open recall).",
            elem_id="qb-practice-assignment-choice",
        )
    return AssignmentList(box, table, choice)


def wire(ctx: UiContext, shown: AssignmentList, field: Any, refresh: Sequence[Any]) -> None:
    """Fill the list on page load (accounts mode) and again on each of the ``refresh`` events
    (a session started or finished: a status changed); copy a choice into ``field``."""
    if not ctx.accounts_mode():
        return
    outputs = [shown.box, shown.table, shown.choice]
    fill = identity.for_account(ctx, lambda name: listed(ctx, name), len(outputs))
    gr.on(None, fill, outputs=outputs, api_visibility="private", show_progress="hidden")
    # A start changes the session and clears the summary: both triggers fire, a tick apart.
    # "once" drops the second while the first read is on its way (it reads the same statuses);
    # Gradio's default for change triggers would queue a second read after the first.
    gr.on(
        list(refresh),
        fill,
        outputs=outputs,
        api_visibility="private",
        show_progress="hidden",
        trigger_mode="once",
    )
    # ``input``: the student's own choice only, never a refresh of the list (which would wipe a
    # name typed into the field while the page loaded).
    shown.choice.input(None, [shown.choice], [field], js=COPY_JS, api_visibility="private")
