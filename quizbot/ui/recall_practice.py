"""The Practice tab's "Recall" section: the student lists what they remember, then sees what they
recalled, missed and got wrong.

Everything is a call to :mod:`quizbot.practice.service` (``start_recall_session``,
``start_recall_assignment``, ``next_recall_question``, ``answer_recall``, ``recall_summary``);
this module lays out the section, keeps its per-browser state and renders what comes back.

Design
    Where. A section under the chat of the Practice tab, opened by its toggle, sharing the
    tab's pseudonym, cohort, knowledge base and assignment fields (:func:`build` takes them),
    with its own aspect,
    number of questions, "Start recall", a question, a free-text box, "Submit", "Next
    question", "End" and a feedback panel. In accounts mode the student is the account
    (:func:`quizbot.ui.identity.as_student`), whatever the form says.

    Never the gold list before the answer. The question shown is the service's
    :class:`~quizbot.practice.views.RecallQuestion` (the question and the disease, no list); the
    session and the question live in ``gr.State`` on the server. The feedback comes from
    :func:`~quizbot.practice.service.answer_recall`, which stores the answer first.

    Feedback. The verdict (tier, F1, precision and recall, how the answer was read), then
    "Recalled" (each gold entity, what the student wrote for it and how it matched: the name, a
    synonym, another wording, the test without its specimen word, a narrower entity, a drug
    class, the name within a longer entry, a shorter name), "Missed", "True, but not in our list"
    (with how the knowledge base knows), "Not in our list: check it" (nothing known: never called
    wrong, with the student's own mark), "Wrong" (with what contradicts it) and "Too general".
    All text (the student's and the knowledge base's) is escaped with
    :func:`quizbot.ui.render.html_text`.

    Marking an unverified entry. Under the feedback, "Mark an entry not in our list" offers the
    unverified entries of the answer(s) shown, "right" or "wrong", and "Save my mark"
    (:func:`~quizbot.practice.service.grade_recall_entry`); the mark is shown with the entry and
    never changes a score. The next question waits for "Next question" and is put
    out then (its ``shown_at`` is when it is shown, so the time taken is the student's). In an
    exam the panel says "Answer recorded" until the last answer; the summary then holds every
    answer's feedback.

    An assignment name in the tab's "Assignment" field makes "Start recall" start (or resume) the
    student's session on that recall assignment; the chat refuses recall assignments and points
    here.

    Coming back (:mod:`quizbot.practice.recall_review`). A question with something missed or
    wrong is asked again, whole: "Review my recall mistakes" (on the aspect chosen) and, from
    the question's FSRS card, "Review due recall questions" under the line "Recall questions
    due for review: N" (read when the pseudonym is entered, the section opens, the KB changes,
    after each answer). After a reload, entering the pseudonym (accounts mode: the page load,
    for the account) offers the active recall session above the section's body; "Resume" opens
    the section and asks its first unanswered question, and starting another session ends the
    offered one (:func:`settle`). Every handler taking a session id keeps to the account's own
    sessions.

    The section opens and closes in the page (:mod:`quizbot.ui.disclosure`), not as a
    ``gr.Accordion``: Gradio renders a closed accordion's inputs only when it first opens and
    then sets them again from the config, which put a length typed at once back to its default.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

import gradio as gr

from quizbot.errors import InputError
from quizbot.evaluation.recall import parse_tiers
from quizbot.kb.registry import DEFAULT_KB
from quizbot.practice import service as practice
from quizbot.practice.service import (
    Progress,
    RecallFeedback,
    RecallQuestion,
    RecallSummary,
)
from quizbot.ui import identity
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.disclosure import (
    disclosure_body,
    disclosure_box,
    disclosure_toggle,
    open_js,
)
from quizbot.ui.render import format_proportion, html_text, md_escape, user_message

__all__ = [
    "ALL_ASPECTS",
    "HOW_WORDS",
    "MARK_WORDS",
    "WHY_WORDS",
    "aspect_choices",
    "build",
    "mark_choices",
    "progress_text",
    "render_feedback",
    "render_question",
    "render_summary",
]

log = logging.getLogger(__name__)

ALL_ASPECTS = "all"
DEFAULT_LENGTH = practice.DEFAULT_RECALL_LENGTH
SECTION = "qb-recall"  # the section's elem_id (its toggle and body: SECTION-toggle, -body)
HOW_WORDS = {
    "name": "its name",
    "synonym": "another name for it",
    "other wording": "the same words in another order or form",
    "specimen": "the same test, with or without its specimen",
    "narrower": "a part, kind or member of it",
    "class": "a class it belongs to",
    "contains": "its name within what you wrote",
    "shorter": "a shorter name for it",
}
WHY_WORDS = {
    "reviewed false": "a reviewer found it false for this disease",
    "another organ system's entity": "it belongs to another organ system",
    "an unrelated drug": "a drug used for other organ systems",
}
MARK_WORDS = {"right": "you marked it right", "wrong": "you marked it wrong"}
_START_HINT = "Enter your pseudonym above, choose an aspect and press **Start recall**."
_DUE_HINT = "Enter your pseudonym to see which recall questions are due for review."
_START_HINT_ACCOUNTS = "Choose an aspect and press **Start recall**."


def start_hint(accounts_mode: bool) -> str:
    """The Recall section's first line: local mode asks for the pseudonym, accounts mode
    knows the account."""
    return _START_HINT_ACCOUNTS if accounts_mode else _START_HINT


# --------------------------------------------------------------------------------------------
# Rendering (pure)


def render_question(question: RecallQuestion) -> str:
    """A question as Markdown: its place, its aspect, the question and how to answer."""
    return (
        f"**Question {question.position} of {question.total}** · {md_escape(question.aspect)}\n\n"
        f"### {md_escape(question.text)}\n\n{md_escape(question.instructions)}"
    )


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _items(entries: Sequence[str], css: str) -> str:
    return "".join(f'<li class="{css}">{html_text(e)}</li>' for e in entries)


def _section(title: str, body: str, elem: str, empty: str, attr: str = "id") -> str:
    inner = f"<ul>{body}</ul>" if body else f'<p class="qb-recall-none">{html_text(empty)}</p>'
    return f'<div class="qb-recall-part" {attr}="{elem}"><h4>{html_text(title)}</h4>{inner}</div>'


def render_feedback(feedback: RecallFeedback, *, ids: bool = True) -> str:
    """The feedback panel as HTML (every text escaped): verdict, recalled, missed, wrong.

    ``ids=False`` (several answers on one page, the end of an exam) marks the parts with
    ``data-part`` instead of element ids, which must be unique.
    """
    attr = "id" if ids else "data-part"
    head = (
        f'<p class="qb-recall-question-again">Question {feedback.position} of {feedback.total}: '
        f"{html_text(feedback.question)}</p>"
    )
    if feedback.outcome == "withheld":
        return (
            f'<div {attr}="qb-recall-verdict">{head}<p><strong>Answer recorded.</strong> '
            "This is an exam: what you recalled, missed and got wrong is shown once every "
            "question is answered.</p></div>"
        )
    if feedback.outcome == "abstained":
        verdict = "Not answered (\u201cI don't know\u201d): F1 0."
    else:
        verdict = (
            f"<strong>{html_text((feedback.tier or '').capitalize())}</strong>: "
            f"F1 {_figure(feedback.f1)} (precision {_figure(feedback.precision)}, "
            f"recall {_figure(feedback.recall)})."
        )
    read = ", ".join(feedback.read_as)
    read_line = (
        f'<p class="qb-recall-read">Read as: {html_text(read)}</p>' if feedback.read_as else ""
    )
    recalled = "".join(
        f'<li class="qb-recall-hit"><strong>{html_text(r.gold)}</strong>'
        + (
            ""
            if r.how == "name"
            else f" \u2190 you wrote \u201c{html_text(r.answer)}\u201d "
            f"({html_text(HOW_WORDS.get(r.how, r.how))})"
        )
        + "</li>"
        for r in feedback.recalled
    )
    n_gold = len(feedback.recalled) + len(feedback.missed)
    notes = {n.entry: n for n in feedback.notes}

    def noted(entries: Sequence[str], css: str) -> str:
        out = []
        for entry in entries:
            note = notes.get(entry)
            extra = ""
            if note is not None and note.kind == "unverified":
                mark = MARK_WORDS.get(note.self_grade or "")
                extra = f' <span class="qb-recall-mark">({html_text(mark)})</span>' if mark else ""
            elif note is not None and note.why:
                extra = (
                    f' <span class="qb-recall-why">({html_text(WHY_WORDS.get(note.why, note.why))})'
                    "</span>"
                )
            out.append(f'<li class="{css}">{html_text(entry)}{extra}</li>')
        return "".join(out)

    parts = [
        f'<div {attr}="qb-recall-verdict">{head}<p>{verdict}</p>{read_line}</div>',
        _section(
            f"\u2713 Recalled ({len(feedback.recalled)} of {n_gold})",
            recalled,
            "qb-recall-recalled",
            "nothing from the list",
            attr,
        ),
        _section(
            f"\u25cb Missed ({len(feedback.missed)})",
            _items(feedback.missed, "qb-recall-miss"),
            "qb-recall-missed",
            "nothing: you recalled the whole list",
            attr,
        ),
        _section(
            f"+ True, but not in our list ({len(feedback.true_unlisted)})",
            noted(feedback.true_unlisted, "qb-recall-extra"),
            "qb-recall-extras",
            "nothing",
            attr,
        ),
        _section(
            f"? Not in our list \u2014 check it ({len(feedback.unverified)})",
            noted(feedback.unverified, "qb-recall-unverified"),
            "qb-recall-unverifieds",
            "nothing",
            attr,
        ),
        _section(
            f"\u2717 Wrong ({len(feedback.wrong)})",
            noted(feedback.wrong, "qb-recall-wrong"),
            "qb-recall-wrongs",
            "nothing",
            attr,
        ),
    ]
    if feedback.unverified:
        parts.append(
            '<p class="qb-recall-check">Entries not in our list are neither right nor wrong '
            "here: look them up, and mark them below if you like. Your marks are kept for you "
            "and never change your scores (they are compared with the models\u2019).</p>"
        )
    if feedback.vague:
        parts.append(
            _section(
                f"Too general ({len(feedback.vague)}: not wrong, but they recall nothing)",
                _items(feedback.vague, "qb-recall-vague"),
                "qb-recall-vagues",
                "",
                attr,
            )
        )
    tiers = feedback.tiers
    parts.append(
        f'<p class="qb-recall-tiers">Tiers by {html_text(str(tiers.get("metric", "f1")))}: '
        f"below {tiers.get('low')} completely wrong, from {tiers.get('high')} basically "
        "correct; the same scorer grades the models.</p>"
    )
    return f'<div class="qb-recall-feedback">{"".join(parts)}</div>'


def _mean(score: practice.MeanScore) -> str:
    if score.mean is None:
        return "–"
    if score.low is None or score.high is None:
        return f"{score.mean:.2f}"
    return f"{score.mean:.2f} (95% CI {score.low:.2f}–{score.high:.2f})"


def _scores_lines(scores: practice.RecallProgress) -> list[str]:
    lines = [
        f"Mean F1 {_mean(scores.f1)} over {scores.n_answered} question(s); basically correct "
        f"{format_proportion(scores.basically_correct)}."
    ]
    if scores.aspects:
        lines += [
            "",
            "| aspect | answered | mean F1 (95% CI) | basically correct |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {md_escape(a.aspect)} | {a.n} | {_mean(a.f1)} | "
            f"{format_proportion(a.basically_correct)} |"
            for a in scores.aspects
        ]
    return lines


def render_summary(result: RecallSummary) -> str:
    """A recall session's summary as Markdown (an exam's with every answer once complete)."""
    lines = [f"#### Results: {md_escape(result.session.topic_label)}", ""]
    lines += _scores_lines(result.scores)
    if result.session.mode == "exam" and result.answers:
        lines += ["", "Every answer of the exam is listed below, with the full lists."]
    return "\n".join(lines)


def render_review(result: RecallSummary) -> str:
    """Every answer's feedback (the end of an exam), as HTML."""
    return "".join(render_feedback(a, ids=False) for a in result.answers)


def progress_text(p: Progress) -> str:
    """The recall part of "My progress" (empty when the student has no recall answers)."""
    if p.recall is None:
        return ""
    return "\n\n**Open recall** (scored apart from the accuracy above): " + "\n".join(
        _scores_lines(p.recall)
    )


def aspect_choices(found: Sequence[practice.Topic]) -> list[tuple[str, str]]:
    """Dropdown choices (label, value): "All aspects" first, then each with its count."""
    return [("All aspects", ALL_ASPECTS)] + [
        (f"{t.label} ({t.n_facts:,} questions)", t.key) for t in found
    ]


# --------------------------------------------------------------------------------------------
# Handlers

# outputs: status, question, answer box, submit, next, end, feedback, summary, session, question,
# the marking controls and the entries offered there
_N_OUTPUTS = 12
_SEP = "\x1f"


def mark_choices(feedbacks: Sequence[RecallFeedback]) -> list[tuple[str, str]]:
    """(label, value) of every unverified entry of the answers shown, for "Mark an entry"."""
    several = len(feedbacks) > 1
    return [
        (f"Q{f.position}: {entry}" if several else entry, f"{f.question_id}{_SEP}{entry}")
        for f in feedbacks
        if f.outcome != "withheld"
        for entry in f.unverified
    ]


def _marks(feedbacks: Sequence[RecallFeedback]) -> tuple[Any, Any]:
    choices = mark_choices(feedbacks)
    return (
        gr.update(visible=bool(choices)),
        gr.update(choices=choices, value=choices[0][1] if choices else None),
    )


def _screen(
    *,
    status: Any = None,
    question: Any = None,
    answer: Any = None,
    submit: Any = None,
    next_: Any = None,
    end: Any = None,
    feedback: Any = None,
    summary: Any = None,
    session: Any = None,
    current: Any = None,
    marks: Any = None,
    mark_entry: Any = None,
) -> tuple[Any, ...]:
    values = (
        status,
        question,
        answer,
        submit,
        next_,
        end,
        feedback,
        summary,
        session,
        current,
        marks,
        mark_entry,
    )
    return tuple(gr.skip() if v is None else v for v in values)


def _asking(view_status: str, question: RecallQuestion, session_id: int) -> tuple[Any, ...]:
    return _screen(
        status=view_status,
        question=render_question(question),
        answer=gr.update(value="", visible=True, interactive=True),
        submit=gr.update(visible=True, interactive=True),
        next_=gr.update(visible=False),
        end=gr.update(visible=True),
        feedback="",
        session=session_id,
        current=question,
        marks=gr.update(visible=False),
    )


def _finished(ctx: UiContext, session_id: int, last: RecallFeedback | None) -> tuple[Any, ...]:
    result = practice.recall_summary(ctx.db, session_id)
    review = render_review(result) if result.session.mode == "exam" else None
    shown = result.answers if review is not None else ([last] if last is not None else [])
    marks, mark_entry = _marks(shown)
    return _screen(
        status=f"**Session over.** Mean F1 {_mean(result.scores.f1)}. Start another whenever "
        "you like.",
        question="",
        answer=gr.update(value="", visible=False),
        submit=gr.update(visible=False),
        next_=gr.update(visible=False),
        end=gr.update(visible=False),
        feedback=review if review is not None else (render_feedback(last) if last else ""),
        summary=render_summary(result),
        session=session_id,
        current=gr.update(value=None),
        marks=marks,
        mark_entry=mark_entry,
    )


def _status(view: practice.SessionView, position: int) -> str:
    return (
        f"**{md_escape(view.student)}** · {md_escape(view.topic_label)} · `{view.kb}` · "
        f"question {position} of {view.total}"
    )


@guarded(_N_OUTPUTS)
def start(
    ctx: UiContext,
    student: str,
    kb: str,
    aspect: str | None,
    length: float,
    cohort: str | None,
    assignment: str | None,
    session_id: int | None = None,
) -> tuple[Any, ...]:
    """Start a recall session (or the student's session on a recall assignment) and ask."""
    tiers = parse_tiers(ctx.settings.recall_tiers)
    name = (assignment or "").strip()
    if name:
        # accounts mode: the account (as_student) and its cohort decide what it may sit
        view = practice.start_recall_assignment(
            ctx.db,
            assignment=name,
            student=student or "",
            tiers=tiers,
            sitter=identity.sitter(ctx, student),
        )
    else:
        view = practice.start_recall_session(
            ctx.db,
            student=student or "",
            kb=kb or DEFAULT_KB,
            aspect=None if aspect in (None, "", ALL_ASPECTS) else aspect,
            length=int(length or DEFAULT_LENGTH),
            cohort=cohort or None,
            tiers=tiers,
        )
    return _begin(ctx, view, session_id)


def _end_quietly(ctx: UiContext, session_id: int) -> None:
    """End a session this section leaves behind; a stale "active" mark is all a failure costs."""
    try:
        practice.end_session(ctx.db, session_id)
    except Exception as exc:
        log.warning("recall section: could not end session %s: %s", session_id, exc)


def _begin(ctx: UiContext, view: practice.SessionView, session_id: int | None) -> tuple[Any, ...]:
    """Ask the first unanswered question of ``view`` (just started or resumed), ending the
    section's earlier session ``session_id`` if it is another one."""
    if session_id is not None and session_id != view.id:
        _end_quietly(ctx, session_id)
    question = practice.next_recall_question(ctx.db, view.id)
    if question is None:
        return _finished(ctx, view.id, None)
    return _asking(_status(view, question.position), question, view.id)


@guarded(_N_OUTPUTS)
def start_review(
    ctx: UiContext,
    student: str,
    kb: str,
    aspect: str | None,
    length: float,
    session_id: int | None = None,
    *,
    due: bool = False,
) -> tuple[Any, ...]:
    """Start a review: "Review my recall mistakes" (the student's recall questions not answered
    perfectly, on the aspect chosen) or, with ``due``, the recall questions due for spaced
    review."""
    tiers = parse_tiers(ctx.settings.recall_tiers)
    n = int(length or DEFAULT_LENGTH)
    if due:
        view = practice.start_recall_due(
            ctx.db, student=student or "", kb=kb or DEFAULT_KB, length=n, tiers=tiers
        )
    else:
        view = practice.start_recall_review(
            ctx.db,
            student=student or "",
            kb=kb or DEFAULT_KB,
            aspect=None if aspect in (None, "", ALL_ASPECTS) else aspect,
            length=n,
            tiers=tiers,
            idle_timeout=_idle(ctx),
        )
    return _begin(ctx, view, session_id)


def _idle(ctx: UiContext) -> timedelta:
    return timedelta(hours=ctx.settings.practice_idle_hours)


def _no_offer() -> tuple[Any, Any, Any]:
    return gr.update(visible=False), "", None


def offer(ctx: UiContext, student: str | None, session_id: int | None) -> tuple[Any, ...]:
    """After the pseudonym is entered (accounts mode: on page load, for the account): offer the
    student's active recall session (a reload lost it from the section). The offer shows above
    the section's body, open or closed. Returns the offer box, its text and the offered
    session."""
    try:
        view = practice.resumable_recall_session(ctx.db, student or "", idle_timeout=_idle(ctx))
    except Exception as exc:  # a lookup while typing: Start recall reports errors
        log.warning("recall section: cannot look up a session to resume: %s", user_message(exc))
        view = None
    if view is None or view.id == session_id:
        return _no_offer()
    text = (
        f"**Resume your recall session of {view.started_at:%Y-%m-%d %H:%M} UTC** "
        f"({view.answered}/{view.total} answered · {md_escape(view.topic_label)} · "
        f"`{md_escape(view.kb)}`)? Or start a new one below."
    )
    return gr.update(visible=True), text, view.id


@guarded(_N_OUTPUTS)
def resume(ctx: UiContext, offered: int | None, session_id: int | None) -> tuple[Any, ...]:
    """The "Resume" button: the offered recall session again, at its next question."""
    if offered is None:
        raise InputError("there is no recall session to resume", hint="press Start recall")
    view = practice.session_view(ctx.db, offered)
    if view.status != "active":
        raise InputError(
            f"this recall session is {view.status} and cannot be resumed",
            hint="press Start recall",
        )
    return _begin(ctx, view, session_id)


def settle(ctx: UiContext, offered: int | None, session_id: int | None) -> tuple[Any, ...]:
    """Once a session runs in the section the offer goes; an offered session the student did
    not resume (they started another) is ended. Nothing changes when none runs (a refusal)."""
    if session_id is None:
        return gr.skip(), gr.skip(), gr.skip()
    if offered is not None and offered != session_id:
        _end_quietly(ctx, offered)
    return _no_offer()


def refresh_due(ctx: UiContext, student: str | None, kb: str | None) -> tuple[Any, Any]:
    """The line saying how many recall questions are due for review, and whether "Review due
    recall questions" can be pressed."""
    if not (student or "").strip():
        return _DUE_HINT, gr.update(interactive=False)
    try:
        count = practice.recall_due_count(ctx.db, student or "", kb=kb or DEFAULT_KB)
    except Exception as exc:  # the rest of the section still works
        log.warning("recall section: due count not shown: %s", user_message(exc))
        return _DUE_HINT, gr.update(interactive=False)
    return due_text(count), gr.update(interactive=count > 0)


def due_text(count: int) -> str:
    """The due line for ``count`` recall questions due now."""
    noun = "question" if count == 1 else "questions"
    if count == 0:
        return (
            "Recall questions due for review: **0**. A question you answer comes due again "
            "days later (sooner when you missed something)."
        )
    return f"Recall {noun} due for review: **{count}**. Press **Review due recall questions**."


@guarded(_N_OUTPUTS)
def submit(
    ctx: UiContext, text: str, session_id: int | None, question: RecallQuestion | None
) -> tuple[Any, ...]:
    """Score and store the typed list, then show what was recalled, missed and wrong."""
    if session_id is None:
        raise InputError("no recall session is running", hint="press Start recall")
    if question is None:
        raise InputError("this question is answered already", hint="press Next question")
    feedback = practice.answer_recall(
        ctx.db, session_id, question.id, text or "", shown_at=question.shown_at
    )
    if feedback.finished:
        return _finished(ctx, session_id, feedback)
    marks, mark_entry = _marks([feedback])
    return _screen(
        status=f"Answered {feedback.answered} of {feedback.total}.",
        answer=gr.update(interactive=False),
        submit=gr.update(visible=False),
        next_=gr.update(visible=True),
        feedback=render_feedback(feedback),
        current=gr.update(value=None),
        marks=marks,
        mark_entry=mark_entry,
    )


@guarded(_N_OUTPUTS)
def show_next(ctx: UiContext, session_id: int | None) -> tuple[Any, ...]:
    """The next question, put out now."""
    if session_id is None:
        raise InputError("no recall session is running", hint="press Start recall")
    question = practice.next_recall_question(ctx.db, session_id)
    if question is None:
        return _finished(ctx, session_id, None)
    view = practice.session_view(ctx.db, session_id)
    return _asking(_status(view, question.position), question, session_id)


@guarded(_N_OUTPUTS)
def end(ctx: UiContext, session_id: int | None) -> tuple[Any, ...]:
    """Stop the session early and show its results (an unfinished exam shows none)."""
    if session_id is None:
        raise InputError("no recall session is running")
    view = practice.end_session(ctx.db, session_id)
    if view.mode == "exam" and view.answered < view.total:
        return _screen(
            status=f"**Exam ended early.** Your {view.answered} answer(s) are stored; an exam's "
            "results are shown only when every question is answered.",
            question="",
            answer=gr.update(visible=False),
            submit=gr.update(visible=False),
            next_=gr.update(visible=False),
            end=gr.update(visible=False),
            feedback="",
            current=gr.update(value=None),
            marks=gr.update(visible=False),
        )
    return _finished(ctx, session_id, None)


@guarded(2)
def mark(
    ctx: UiContext, session_id: int | None, choice: str | None, verdict: str | None
) -> tuple[Any, Any]:
    """Store the student's own mark on an unverified entry, then show the feedback with it."""
    if session_id is None:
        raise InputError("no recall session is running", hint="press Start recall")
    if not choice or _SEP not in choice:
        raise InputError("choose an entry to mark", field="entry")
    if verdict not in ("right", "wrong"):
        raise InputError("choose right or wrong", field="mark")
    question_id, entry = choice.split(_SEP, 1)
    feedback = practice.grade_recall_entry(ctx.db, session_id, question_id, entry, verdict)
    result = practice.recall_summary(ctx.db, session_id)
    shown = (
        render_review(result)
        if result.session.mode == "exam" and result.answers
        else render_feedback(feedback)
    )
    return shown, f"Saved: {md_escape(entry)} \u2014 {MARK_WORDS[verdict]} (not scored)."


def aspects_for(ctx: UiContext, kb: str) -> Any:
    """The aspect dropdown's choices for the chosen knowledge base.

    Its value is never sent: this runs when the section opens, and a value sent then would
    overwrite an aspect the student chose meanwhile (or before closing and opening it again).
    A change of KB puts the aspect back to "All aspects" in the browser."""
    try:
        found = practice.recall_aspects(ctx.db, kb or DEFAULT_KB)
    except Exception as exc:  # the section still works with "All aspects"
        log.warning("recall section: no aspects for %r: %s", kb, user_message(exc))
        found = []
    return gr.update(choices=aspect_choices(found))


# --------------------------------------------------------------------------------------------
# Layout


def _marks_form() -> tuple[Any, Any, Any, Any, Any]:
    """The student's own marks on entries not in the KB's list (never scored): the group, the
    entry, the verdict, the button and its status line."""
    with gr.Group(visible=False, elem_id="qb-recall-marks") as marks_group:
        with gr.Row():
            mark_entry = gr.Dropdown(
                choices=[],
                label="Mark an entry not in our list",
                elem_id="qb-recall-mark-entry",
            )
            mark_verdict = gr.Radio(
                choices=[("right", "right"), ("wrong", "wrong")],
                label="Your mark (never scored)",
                elem_id="qb-recall-mark-verdict",
            )
        mark_btn = gr.Button("Save my mark", elem_id="qb-recall-mark-save")
        mark_status = gr.Markdown(elem_id="qb-recall-mark-status")
    return marks_group, mark_entry, mark_verdict, mark_btn, mark_status


def _due_row() -> tuple[Any, Any]:
    """How many recall questions are due for spaced review, and the button that asks them."""
    due_line = gr.Markdown(_DUE_HINT, elem_id="qb-recall-due-text")
    due_btn = gr.Button(
        "Review due recall questions",
        interactive=False,
        size="sm",
        elem_id="qb-recall-due-start",
    )
    return due_line, due_btn


@dataclass
class _Comeback:
    """What brings recall questions back: the resume offer (box, text, button), "Review my
    recall mistakes", the due line and its button, and the offered session (``gr.State``)."""

    resume_box: Any
    resume_text: Any
    resume_btn: Any
    review_btn: Any
    due_line: Any
    due_btn: Any
    offered: Any


def _wire_comeback(
    ctx: UiContext, c: _Comeback, reviews: list[Any], screen: list[Any], toggle: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Wire the resume offer, "Review my recall mistakes" and "Review due recall questions".
    ``reviews`` is [student, kb, aspect, length, session state]. Returns the chained steps every
    start and every answer take: the offer settled, and the due line refreshed."""
    student, kb, session_state = reviews[0], reviews[1], reviews[4]
    offer_box = [c.resume_box, c.resume_text, c.offered]
    settled: dict[str, Any] = {  # after a start or Resume: the offer goes (one not taken up ends)
        "fn": identity.own_sessions(ctx, partial(settle, ctx), 2, sessions=(0, 1)),
        "inputs": [c.offered, session_state],
        "outputs": offer_box,
        "api_visibility": "private",
        "show_progress": "hidden",
    }
    due_panel: dict[str, Any] = {
        "fn": identity.as_student(ctx, partial(refresh_due, ctx), 2, student=0),
        "inputs": [student, kb],
        "outputs": [c.due_line, c.due_btn],
        "api_visibility": "private",
        "show_progress": "hidden",
    }
    for button, due in ((c.review_btn, False), (c.due_btn, True)):
        button.click(
            identity.as_student(
                ctx, partial(start_review, ctx, due=due), len(reviews), student=0, sessions=(4,)
            ),
            reviews,
            screen,
            api_visibility="private",
            show_progress="minimal",
        ).then(**settled).then(**due_panel)
    # First (the page runs a click's handlers in order): the section opens at once.
    c.resume_btn.click(None, None, None, js=open_js(SECTION), api_visibility="private")
    c.resume_btn.click(
        identity.own_sessions(ctx, partial(resume, ctx), 2, sessions=(0, 1)),
        [c.offered, session_state],
        screen,
        api_visibility="private",
        show_progress="minimal",
    ).then(**settled)
    gr.on(
        [student.blur, student.submit],
        identity.as_student(ctx, partial(offer, ctx), 2, student=0),
        [student, session_state],
        offer_box,
        api_visibility="private",
        show_progress="hidden",
        trigger_mode="always_last",  # see REFRESHING in quizbot/ui/practice/layout.py
    )
    gr.on(  # accounts mode: the account's active recall session is offered on page load
        None,
        identity.for_account(ctx, lambda name: offer(ctx, name, None), len(offer_box)),
        outputs=offer_box,
        api_visibility="private",
        show_progress="hidden",
    )
    gr.on([student.blur, student.submit, kb.change], **due_panel, trigger_mode="always_last")
    toggle.opened.then(**due_panel)  # not on the click itself (quizbot/ui/disclosure.py)
    return settled, due_panel


def build(ctx: UiContext, *, student: Any, cohort: Any, kb: Any, assignment: Any) -> Any:
    """Lay out the Recall section (inside the Practice tab) and wire it to the tab's fields."""
    with disclosure_box(SECTION) as section:
        toggle = disclosure_toggle("Recall: list what you remember", SECTION)
        with gr.Group(visible=False, elem_id="qb-recall-resume") as resume_box:
            resume_text = gr.Markdown(elem_id="qb-recall-resume-text")
            resume_btn = gr.Button("Resume", variant="primary", elem_id="qb-recall-resume-go")
        with disclosure_body(SECTION):
            gr.Markdown(
                "Open questions: list everything you remember (symptoms of a disease, its "
                "medications, ...), then see what you recalled, missed and got wrong, scored the "
                "way models are. Uses the "
                + ("knowledge base and assignment" if ctx.accounts_mode() else
                   "pseudonym, knowledge base and assignment")
                + " above."
            )  # fmt: skip
            with gr.Row():
                aspect = gr.Dropdown(
                    choices=[("All aspects", ALL_ASPECTS)],
                    value=ALL_ASPECTS,
                    label="Aspect",
                    allow_custom_value=True,  # choices change with the KB; the service checks
                    elem_id="qb-recall-aspect",
                )
                length = gr.Slider(
                    minimum=1,
                    maximum=20,
                    step=1,
                    value=DEFAULT_LENGTH,
                    label="Number of questions",
                    elem_id="qb-recall-length",
                )
            with gr.Row():
                start_btn = gr.Button("Start recall", variant="primary", elem_id="qb-recall-start")
                review_btn = gr.Button("Review my recall mistakes", elem_id="qb-recall-review")
            due_line, due_btn = _due_row()
            status = gr.Markdown(start_hint(ctx.accounts_mode()), elem_id="qb-recall-status")
            question = gr.Markdown(elem_id="qb-recall-question")
            answer_box = gr.Textbox(
                label="What you remember",
                placeholder="e.g. fever, cough and chest pain (or one per line)",
                lines=4,
                max_length=practice.MAX_ANSWER_LENGTH,
                visible=False,
                elem_id="qb-recall-answer",
            )
            with gr.Row():
                submit_btn = gr.Button(
                    "Submit", variant="primary", visible=False, elem_id="qb-recall-submit"
                )
                next_btn = gr.Button(
                    "Next question", variant="primary", visible=False, elem_id="qb-recall-next"
                )
                end_btn = gr.Button("End", visible=False, elem_id="qb-recall-end")
            feedback = gr.HTML(elem_id="qb-recall-feedback")
            marks_group, mark_entry, mark_verdict, mark_btn, mark_status = _marks_form()
            summary = gr.Markdown(elem_id="qb-recall-summary")
    session_state = gr.State(None)
    question_state = gr.State(None)
    comeback = _Comeback(
        resume_box, resume_text, resume_btn, review_btn, due_line, due_btn, gr.State(None)
    )
    screen = [status, question, answer_box, submit_btn, next_btn, end_btn, feedback, summary]
    screen += [session_state, question_state, marks_group, mark_entry]  # see _N_OUTPUTS
    inputs = [student, kb, aspect, length, cohort, assignment, session_state]
    settled, due_panel = _wire_comeback(
        ctx, comeback, [student, kb, aspect, length, session_state], screen, toggle
    )
    start_btn.click(
        identity.as_student(
            ctx, partial(start, ctx), len(inputs), student=0, cohort=4, sessions=(6,)
        ),
        inputs,
        screen,
        api_visibility="private",
        show_progress="minimal",
    ).then(**settled)
    submit_btn.click(
        identity.own_sessions(ctx, partial(submit, ctx), 3, sessions=(1,)),
        [answer_box, session_state, question_state],
        screen,
        api_visibility="private",
        show_progress="minimal",
    ).then(**due_panel)
    next_btn.click(
        identity.own_sessions(ctx, partial(show_next, ctx), 1, sessions=(0,)),
        [session_state],
        screen,
        api_visibility="private",
        show_progress="minimal",
    )
    end_btn.click(
        identity.own_sessions(ctx, partial(end, ctx), 1, sessions=(0,)),
        [session_state],
        screen,
        api_visibility="private",
        show_progress="minimal",
    )
    mark_btn.click(
        identity.own_sessions(ctx, partial(mark, ctx), 3, sessions=(0,)),
        [session_state, mark_entry, mark_verdict],
        [feedback, mark_status],
        api_visibility="private",
        show_progress="minimal",
    )
    aspects: dict[str, Any] = {
        "fn": partial(aspects_for, ctx),
        "inputs": [kb],
        "outputs": [aspect],
        "api_visibility": "private",
        "show_progress": "hidden",
    }
    kb.change(**aspects)
    toggle.opened.then(**aspects)
    kb.change(  # a new knowledge base: "All aspects" again, in the browser
        None, None, [aspect], js=f"() => {ALL_ASPECTS!r}", api_visibility="private"
    )
    return section
