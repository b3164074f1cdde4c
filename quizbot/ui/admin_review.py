"""The Admin tab's two review sections, laid out and wired by :func:`quizbot.ui.admin.build`.

* **Reason review (SDAK)**: for a run asked with the SDAK prompt, draw a sample of the reasons
  behind its correct verdicts (:func:`quizbot.analysis.reasons.sample_reasons`) and mark each
  sound or unsound, one at a time (:func:`render_reason`); the accuracy reliability so far
  (:func:`render_reliability`) is shown after each mark.
* **Review queue**: items students flagged in the practice chat (:mod:`quizbot.kb.review`), one
  at a time (:func:`queue_choices`, :func:`render_flagged`); each of :data:`DECISIONS` records
  the decision and closes every open flag on the item.

Every handler checks ``is_admin`` again before it does or reads anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from quizbot.analysis.reasons import ReasonEntry, mark, reasons, reliability, sample_reasons
from quizbot.errors import InputError
from quizbot.kb.review import FlaggedItem, decide, review_queue
from quizbot.ui import identity
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.monitor import NOT_ADMIN
from quizbot.ui.render import format_estimate, md_escape

__all__ = [
    "DECISIONS",
    "Flags",
    "Reasons",
    "flags_layout",
    "queue_choices",
    "reasons_layout",
    "render_flagged",
    "render_reason",
    "render_reliability",
    "wire_flags",
    "wire_reasons",
]

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


@dataclass(frozen=True)
class Reasons:
    """The reason-review section's components."""

    run: gr.Number
    n: gr.Number
    draw: gr.Button
    view: gr.Markdown
    sound: gr.Button
    unsound: gr.Button
    result: gr.Markdown
    queue: gr.State  # the drawn answers still to mark (server side)


def reasons_layout() -> Reasons:
    """Lay out the reason review (SDAK) section."""
    gr.Markdown("## Reason review (SDAK)")
    gr.Markdown(
        "For a run asked with the SDAK prompt: draw reasons behind its correct verdicts and "
        "mark each sound or unsound. Accuracy reliability is the share of sound reasons."
    )
    with gr.Row():
        reason_run = gr.Number(label="Run", precision=0, minimum=1, elem_id="qb-admin-reasons-run")
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
    reason_queue = gr.State([])
    return Reasons(
        reason_run, reason_n, reason_draw, reason_view, reason_sound, reason_unsound,
        reason_result, reason_queue,
    )  # fmt: skip


@dataclass(frozen=True)
class Flags:
    """The review-queue section's components."""

    flagged: gr.Dropdown
    refresh: gr.Button
    summary: gr.Markdown
    details: gr.Markdown
    tail: gr.Dropdown
    reviewer: gr.Textbox
    buttons: list[gr.Button]  # one per decision, in the order of DECISIONS
    result: gr.Markdown


def flags_layout() -> Flags:
    """Lay out the review queue section (flagged items and the decision buttons)."""
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
        refresh_flags = gr.Button("Refresh", size="sm", scale=0, elem_id="qb-admin-flags-refresh")
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
    return Flags(
        flagged, refresh_flags, flag_summary, flag_details, flag_tail, reviewer,
        decision_buttons, flag_result,
    )  # fmt: skip


def wire_reasons(
    ctx: UiContext, is_admin: gr.State, w: Reasons, reviewer: gr.Textbox, logout: gr.Button
) -> None:
    """Draw a sample of a run's reasons, mark them one by one (``reviewer`` names who marks
    when there are no accounts), and forget the sample at logout."""

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

    reason_outputs = [w.queue, w.view, w.result]
    w.draw.click(
        _draw, inputs=[is_admin, w.run, w.n], outputs=reason_outputs, api_visibility="private"
    )

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

    for sound, button in ((True, w.sound), (False, w.unsound)):
        button.click(
            _reason_mark(sound), inputs=[is_admin, w.queue, reviewer],
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


def _decision(ctx: UiContext, action: str, label: str) -> Any:
    """The handler of one decision button: record ``action`` on the chosen flagged item."""

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


def wire_flags(
    ctx: UiContext, is_admin: gr.State, w: Flags, logged_in: Any, logout: gr.Button
) -> tuple[Callable[..., list[Any]], list[Any]]:
    """Show the queue after login and on Refresh, an item when chosen, record decisions, and
    forget it all at logout. Returns the handler that reloads the queue and its outputs."""

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

    queue_outputs = [w.flagged, w.summary, w.details, w.tail]

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

    w.flagged.input(
        _select, inputs=[is_admin, w.flagged], outputs=[w.details, w.tail],
        api_visibility="private",
    )  # fmt: skip
    w.refresh.click(
        _queue, inputs=[is_admin, w.flagged], outputs=queue_outputs, api_visibility="private"
    )
    logged_in.then(_queue, inputs=is_admin, outputs=queue_outputs, api_visibility="private")

    def _forget() -> list[Any]:
        return [gr.Dropdown(choices=[], value=None), "", "", _tail_choices(None), ""]

    logout.click(_forget, outputs=[*queue_outputs, w.result], api_visibility="private")

    for (action, label), button in zip(DECISIONS, w.buttons, strict=True):
        button.click(
            _decision(ctx, action, label),
            inputs=[is_admin, w.flagged, w.tail, w.reviewer],
            outputs=w.result,
            api_visibility="private",
        ).then(_queue, inputs=is_admin, outputs=queue_outputs, api_visibility="private")
    return _queue, queue_outputs
