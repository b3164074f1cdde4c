"""The Practice tab's session handlers: start (free, assignment, review, due), resume, answer,
next, end."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, cast

import gradio as gr

from quizbot.errors import DuplicateError, InputError, NotFoundError, QuizbotError
from quizbot.kb.registry import DEFAULT_KB, kb_license
from quizbot.practice import next_plan
from quizbot.practice import service as practice
from quizbot.practice.feedback import WITHHELD
from quizbot.practice.service import Feedback, Question
from quizbot.ui import identity
from quizbot.ui.boundary import guarded_by
from quizbot.ui.context import UiContext
from quizbot.ui.practice import failures
from quizbot.ui.practice.due import DuePanel, due_for, due_panel, panel_of
from quizbot.ui.practice.render import (
    ALL_TOPICS,
    Message,
    _code,
    _error_text,
    _when,
    license_note,
    render_feedback,
    render_question,
    render_receipt,
    render_review,
    render_summary,
)
from quizbot.ui.practice.screen import Screen, _data, _outputs, _status, with_due
from quizbot.ui.render import (
    format_proportion,
    md_escape,
    user_message,
)

# --------------------------------------------------------------------------------------------
# Actions

log = logging.getLogger(__name__)


def _length(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InputError(
        "the number of questions must be a whole number", field="length", hint="e.g. 10"
    )


def _finish(
    ctx: UiContext,
    session_id: int,
    chat: list[Message],
    *,
    feedback: Feedback | None = None,
) -> Screen:
    """The screen once a session has no question left: its summary (an exam's with its review)."""
    result = practice.summary(ctx.db, session_id)
    exam = result.session.mode == "exam"
    rendered = render_summary(result, ctx.models(), answers=not exam)
    if exam:  # the review shows every question whole, so no table of cut-short ones before it
        review = practice.exam_review(ctx.db, session_id)
        rendered += "\n\n" + render_review(review)
        over = (
            f"**Exam complete.** Accuracy {format_proportion(result.accuracy)}. Your summary "
            "and the review of every question, with the right answers, are below the chat."
        )
    else:
        over = (
            f"**Session over.** Accuracy {format_proportion(result.accuracy)}. "
            "Your summary is below the chat; start another session whenever you like."
        )
    chat = [*chat, {"role": "assistant", "content": over}]
    return Screen(
        chat=chat,
        data=_data(session=result.session.as_json(), feedback=feedback, summary=result),
        session_id=session_id,
        question=None,
        status=_status(result.session, None),
        summary=rendered,
        answered=feedback,
    )


def _abandon(ctx: UiContext, session_id: int) -> None:
    """End the session this tab leaves behind (as :func:`end` would, without reading it back:
    one UPDATE; a finished session stays finished); a failure only costs a stale 'active'
    mark."""
    try:
        practice.leave_session(ctx.db, session_id)
    except QuizbotError as exc:
        log.warning("practice tab: could not end session %s: %s", session_id, exc)


def _opening(
    ctx: UiContext,
    view: practice.SessionView,
    question: Question | None,
    intro: str,
    ack: str,
) -> Screen:
    """The screen of a session just started or resumed: the greeting and its first question,
    or, when no question is left, the finished session's summary."""
    chat: list[Message] = [{"role": "assistant", "content": intro}]
    if question is None:
        screen = _finish(ctx, view.id, chat)
        screen.ack = ack
        return screen
    chat.append({"role": "assistant", "content": render_question(question)})
    return Screen(
        chat=chat,
        data=_data(session=view.as_json(), question=question),
        session_id=view.id,
        question=question,
        status=_status(view, question.position),
        summary="",
        ack=ack,
    )


@guarded_by(failures.in_status)
def start(
    ctx: UiContext,
    student: str,
    kb: str,
    topic: str | None,
    format: str,
    length: float,
    cohort: str | None = None,
    session_id: int | None = None,
    assignment: str | None = None,
    chat: list[Message] | None = None,
    shown: Question | None = None,
    flagged: str | None = None,
    *,
    review: bool = False,
    topics: Sequence[str] = (),
    tab_known: bool = False,
) -> tuple[Any, ...]:
    """Start a session and ask its first question (the ``practice_start`` endpoint).

    With an ``assignment`` name the session is the student's on that assignment (started or
    resumed, see :func:`start_assignment`); the other settings are then the assignment's.
    ``topics`` (topic keys, "Practice these" in "My progress") draws from several topics at
    once, in place of ``topic``. ``tab_known``: ``shown`` and ``flagged`` are the tab's
    question and flag states (None included), so the controls they show are known and the
    updates that would leave them as they are are skipped (:attr:`Screen.tab_known`).
    The "Due for review" panel comes with the screen, read for ``student`` and ``kb`` once the
    session is started (its cards are brought up to date then).
    """
    if assignment is not None and assignment.strip() and not review:
        # accounts mode: the account (as_student) and its cohort decide what it may sit
        started = start_assignment(ctx, student, assignment, session_id, chat)
        return with_due(started, due_panel(ctx, student, kb))
    chosen_topic = None if topic in (None, "", ALL_TOPICS) else topic
    view, question = practice.start_session_and_ask(
        ctx.db,
        student=student or "",
        kb=kb or DEFAULT_KB,
        topic=chosen_topic,
        topics=topics,
        format=cast(practice.Format, format or "statement"),
        length=_length(length),
        cohort=cohort or None,
        review=review,
        idle_timeout=_idle(ctx),
    )
    if session_id is not None and session_id != view.id:
        _abandon(ctx, session_id)
    what = "your mistakes" if view.review else md_escape(view.topic_label)
    intro = (
        f"Hello {md_escape(view.student)}! {view.total} question(s) on {what} from "
        f"{_code(view.kb)}. Answer with the buttons or type your answer."
    )
    ack = license_note(view.kb, kb_license(ctx.db, view.kb))
    # no question cannot happen for a new session; shown rather than assumed
    screen = _opening(ctx, view, question, intro, ack)
    screen.asked, screen.flagged, screen.tab_known = shown, flagged, tab_known
    return with_due(_outputs(screen), due_panel(ctx, student, kb))


def _plan_ahead(ctx: UiContext, view: practice.SessionView) -> None:
    """Plan the student's next session in the background once a free-practice session is
    over (:mod:`quizbot.practice.next_plan`): their next start then only records it."""
    if view.status != "active" and view.assignment is None and not view.review:
        next_plan.schedule_next(ctx.db, view.id)


def _unknown_assignment(name: str) -> str:
    return (
        f"⚠ **There is no assignment called {_code(name)}.** Check the name your instructor "
        "gave you (spelling and capitals count); nothing was started."
    )


@guarded_by(failures.in_chat)
def start_assignment(
    ctx: UiContext,
    student: str,
    assignment: str,
    session_id: int | None = None,
    chat: list[Message] | None = None,
) -> tuple[Any, ...]:
    """Start or resume ``student``'s session on ``assignment`` and show where they are (in
    accounts mode as the account: another cohort's assignment is unknown to it, and an exam
    is open only to an account of its cohort, :func:`quizbot.ui.identity.sitter`).

    A new or unfinished session shows its next question; a finished one is not started again:
    a message says so and its summary (an exam's with the review) is shown once more. Errors,
    such as an unknown name, are a message in the chat; the running session, if any, goes on.
    """
    name = assignment.strip()
    try:
        view = practice.start_assignment_session(
            ctx.db,
            assignment=name,
            student=student or "",
            sitter=identity.sitter(ctx, student),
        )
    except NotFoundError as exc:
        if "assignment" not in str(exc):
            raise
        message = _unknown_assignment(name)
        return _outputs(
            Screen(
                chat=[*(chat or []), {"role": "assistant", "content": message}],
                data=_data(error=f"no assignment {name!r}"),
                keep_state=True,
            )
        )
    if session_id is not None and session_id != view.id:
        _abandon(ctx, session_id)
    title = f"assignment {_code(view.assignment or name)}"
    ack = license_note(view.kb, kb_license(ctx.db, view.kb))
    if view.status != "active":
        intro = (
            f"Hello {md_escape(view.student)}! You have already finished {title} "
            f"({view.answered} of {view.total} answered); your answers stand and it cannot "
            "be taken again. Its summary is below."
        )
        screen = _finish(ctx, view.id, [{"role": "assistant", "content": intro}])
        screen.ack = ack
        return _outputs(screen)
    question = practice.next_question(ctx.db, view.id)
    if view.answered:
        intro = (
            f"Welcome back {md_escape(view.student)}! You have answered {view.answered} of "
            f"{view.total} questions of {title}; here is the next one."
        )
    else:
        intro = (
            f"Hello {md_escape(view.student)}! {title[:1].upper()}{title[1:]}: "
            f"{view.total} question(s) from {_code(view.kb)}. Answer with the buttons or "
            "type your answer."
        )
    if view.mode == "exam":
        intro += (
            " **This is an exam:** each answer is recorded without feedback; your results "
            "and the explanations are shown once you have answered every question."
        )
    # no question: every answer stored, the session is finished and shown as such
    return _outputs(_opening(ctx, view, question, intro, ack))


def _idle(ctx: UiContext) -> timedelta:
    """How long a practice session may go unanswered before it is closed (the setting)."""
    return timedelta(hours=ctx.settings.practice_idle_hours)


def _no_offer() -> tuple[Any, ...]:
    return gr.update(visible=False), "", None


def offer_resume(ctx: UiContext, student: str | None, session_id: int | None) -> tuple[Any, ...]:
    """After the pseudonym is entered (accounts mode: on page load, for the account): offer the
    student's active session (a page reload lost it from the tab), with when it started and how
    far it got; nothing when there is none or it is the one this tab runs. Returns the offer
    box, its text and the offered session's id."""
    try:
        view = practice.resumable_session(ctx.db, student or "", idle_timeout=_idle(ctx))
    except QuizbotError as exc:  # a lookup while typing: the Start button reports errors
        log.warning("practice tab: cannot look up a session to resume: %s", exc)
        return _no_offer()
    if view is None or view.id == session_id:
        return _no_offer()
    text = (
        f"**Resume your session of {_when(view.started_at)} UTC** "
        f"({view.answered}/{view.total} answered · {md_escape(view.topic_label)} · "
        f"{_code(view.kb)} · {view.format})? Or start a new one."
    )
    return gr.update(visible=True), text, view.id


@guarded_by(failures.in_chat)
def resume(
    ctx: UiContext, offered: int | None, session_id: int | None, chat: list[Message] | None
) -> tuple[Any, ...]:
    """The "Resume" button: take the offered session up again at its next question."""
    if offered is None:
        raise InputError("there is no session to resume", hint="press Start")
    view = practice.session_view(ctx.db, offered)
    if view.status != "active":
        raise InputError(
            f"session {view.id} is {view.status} and cannot be resumed",
            hint="press Start new",
        )
    if session_id is not None and session_id != view.id:
        _abandon(ctx, session_id)
    question = practice.next_question(ctx.db, view.id)
    intro = (
        f"Welcome back {md_escape(view.student)}! You have answered {view.answered} of "
        f"{view.total} questions of your session of {_when(view.started_at)} UTC "
        f"({md_escape(view.topic_label)} from {_code(view.kb)}); here is the next one."
    )
    ack = license_note(view.kb, kb_license(ctx.db, view.kb))
    return _outputs(_opening(ctx, view, question, intro, ack))


def after_start(ctx: UiContext, offered: int | None, session_id: int | None) -> tuple[Any, ...]:
    """Once a session runs in the tab the offer goes; an offered session the student did not
    resume (they started a new one) is ended. Nothing changes when no session runs (the start
    failed), so the offer stays."""
    if session_id is None:
        return gr.skip(), gr.skip(), gr.skip()
    if offered is not None and offered != session_id:
        _abandon(ctx, offered)
    return _no_offer()


@guarded_by(failures.in_answer)
def submit(
    ctx: UiContext,
    answer: str,
    session_id: int | None,
    question: Question | None,
    chat: list[Message] | None,
    due: Any = None,
) -> tuple[Any, ...]:
    """Score an answer, show the feedback and the next question (``practice_answer``).

    ``due`` is the "Due for review" panel's state (:mod:`quizbot.ui.practice.due`, server
    side, never part of the API): when it names a student, the panel is counted again in the
    answer's own transaction and comes with the screen; otherwise (an API client) it is left.
    """
    chat = list(chat or [])
    typed = answer if isinstance(answer, str) else ""
    shown = failures.echo(answer)
    if session_id is None or question is None:
        error = (
            "no practice session is running; start one first"
            if session_id is None
            else "this practice session is over; start another one"
        )
        how = "press **Start**" if ctx.accounts_mode() else "enter a pseudonym and press **Start**"
        message = f"⚠ {error[:1].upper()}{error[1:]} ({how})."
        return _outputs(
            Screen(
                chat=[*chat, shown, {"role": "assistant", "content": message}],
                data=_data(error=error),
                keep_state=True,
            )
        )
    try:
        ctx.check_answer_rate(session_id)  # refused: said in the chat below, nothing recorded
        who = due_for(due)
        step = practice.answer_and_next(
            ctx.db, session_id, question.id, typed, shown_at=question.shown_at, due_for=who
        )
    except (InputError, DuplicateError) as exc:
        # Unreadable input, or a question answered already (a double click): say so; for a
        # duplicate, move on to whatever is next.
        chat = [*chat, shown, {"role": "assistant", "content": _error_text(exc)}]
        if isinstance(exc, InputError):
            return _outputs(
                Screen(
                    chat=chat,
                    data=_data(question=question, error=user_message(exc)),
                    keep_state=True,
                )
            )
        return _next(ctx, session_id, chat, None, error=user_message(exc), asked=question)
    feedback = step.feedback
    if step.question is None and step.second is None:
        _plan_ahead(ctx, step.view)
    if who is None:
        panel = None
    else:  # counted with the answer; another student's (a name retyped): read for them
        panel = panel_of(step.due, who) if step.due is not None else due_panel(ctx, *who)
    if feedback.outcome == WITHHELD:  # an exam: stored, acknowledged, nothing revealed
        chat = [*chat, shown, {"role": "assistant", "content": render_receipt(feedback)}]
        return with_due(_next(ctx, session_id, chat, None, step=step, asked=question), panel)
    if feedback.finished and step.view.mode == "exam":  # the review below says it all
        chat = [*chat, shown, {"role": "assistant", "content": render_receipt(feedback)}]
    else:
        chat = [*chat, shown, {"role": "assistant", "content": render_feedback(feedback)}]
    screen = _next(ctx, session_id, chat, feedback, hold=True, step=step, asked=question)
    return with_due(screen, panel)


def _next(
    ctx: UiContext,
    session_id: int,
    chat: list[Message],
    feedback: Feedback | None,
    *,
    error: str | None = None,
    hold: bool = False,
    step: practice.AnswerStep | None = None,
    asked: Question | None = None,
) -> tuple[Any, ...]:
    """The screen after an answer: the summary when nothing is left, else the next question,
    or (``hold``, after feedback) the next question kept back until the student presses Next.
    The JSON's ``question`` is the next question either way, so an API client goes on.

    ``step`` is what :func:`quizbot.practice.service.answer_and_next` returned with the
    answer (read in its transaction); without it (a duplicate answer) it is read here.
    ``asked`` is the question answered (see :attr:`Screen.asked`)."""
    try:
        if step is not None:
            question, second, view = step.question, step.second, step.view
            second_question = step.second_question
        else:
            question = practice.next_question(ctx.db, session_id)
            second = (
                None if question is not None else practice.second_pass_session(ctx.db, session_id)
            )
            second_question = None if second is None else practice.next_question(ctx.db, second.id)
            view = practice.session_view(ctx.db, session_id)
        if second is not None:  # a two-pass assignment: now a guess on what was not known
            intro = (
                f"**Second pass:** you did not know {second.total} question(s). Please give "
                "your best guess on each; your first answers stand and are reported apart."
            )
            screen = _opening(ctx, second, second_question, intro, "")
            screen.chat = [*chat, *(screen.chat or [])]
        elif question is None:
            screen = _finish(ctx, session_id, chat, feedback=feedback)
        else:
            if not hold:
                chat = [*chat, {"role": "assistant", "content": render_question(question)}]
            screen = Screen(
                chat=chat,
                data=_data(question=question, feedback=feedback),
                session_id=session_id,
                question=question,
                status=_status(view, question.position),
                answered=feedback,
                pending=hold,
            )
    except Exception as exc:
        message = _error_text(exc)
        screen = Screen(
            chat=[*chat, {"role": "assistant", "content": message}],
            data=_data(feedback=feedback, error=user_message(exc)),
            keep_state=True,
        )
    if error is not None:
        screen.data["error"] = error
    screen.asked = asked
    return _outputs(screen)


def submit_selection(
    ctx: UiContext,
    letters: str | None,
    data: Any,
    session_id: int | None,
    question: Question | None,
    chat: list[Message] | None,
    due: Any = None,
) -> tuple[Any, ...]:
    """Send the letters chosen with the letter buttons (``"A, C"``, put in by :data:`SUBMIT_JS`
    from the page's selection) as the answer; they are read and checked like a typed answer.
    ``data`` is the tab's JSON, which the browser needs and the server does not."""
    del data
    text = letters if isinstance(letters, str) else ""
    return submit(ctx, text.removeprefix("Submit").strip(), session_id, question, chat, due)


@guarded_by(failures.in_status)
def show_next(
    ctx: UiContext,
    session_id: int | None,
    question: Question | None,
    chat: list[Message] | None,
) -> tuple[Any, ...]:
    """The "Next" button: the question held back after feedback, in a chat bubble of its own."""
    if session_id is None or question is None:
        return _outputs(
            Screen(chat=None, data=_data(error="no question is waiting"), keep_state=True)
        )
    view = practice.session_view(ctx.db, session_id)
    return _outputs(
        Screen(
            chat=[*(chat or []), {"role": "assistant", "content": render_question(question)}],
            data=_data(session=view.as_json(), question=question),
            session_id=session_id,
            question=question,
            status=_status(view, question.position),
            asked=question,
        )
    )


@guarded_by(failures.in_status)
def end(
    ctx: UiContext, session_id: int | None, chat: list[Message] | None, due: Any = None
) -> tuple[Any, ...]:
    """Stop the running session early and show its summary, with the "Due for review" panel
    read again for what its state ``due`` names (:mod:`quizbot.ui.practice.due`)."""
    chat = list(chat or [])
    if session_id is None:
        return _outputs(
            Screen(chat=None, data=_data(error="no practice session is running"), keep_state=True)
        )
    view = practice.end_session(ctx.db, session_id)
    _plan_ahead(ctx, view)
    if view.mode == "exam" and view.answered < view.total:
        # An unfinished exam has no results to show (the service refuses its summary).
        message = (
            f"**Exam ended early.** Your {view.answered} answer(s) of {view.total} are "
            "stored; an exam's results are shown only when every question is answered, so "
            "there is no review. Enter the assignment again to start it afresh."
        )
        shown = _outputs(
            Screen(
                chat=[*chat, {"role": "assistant", "content": message}],
                data=_data(session=view.as_json()),
                status=_status(view, None),
                summary="",
            )
        )
    else:
        shown = _outputs(_finish(ctx, session_id, chat))
    return with_due(shown, _panel(ctx, due))


def _panel(ctx: UiContext, due: Any) -> DuePanel | None:
    """The due panel read again for what its state names; ``None`` (left) when it names none."""
    who = due_for(due)
    return None if who is None else due_panel(ctx, *who)


def _fixed_answer(ctx: UiContext, text: str) -> Callable[..., tuple[Any, ...]]:
    """A handler answering ``text`` (a button's answer) to the current question."""

    def handler(
        session_id: int | None,
        question: Question | None,
        chat: list[Message] | None,
        due: Any = None,
    ) -> tuple[Any, ...]:
        return submit(ctx, text, session_id, question, chat, due)

    return handler


@guarded_by(failures.in_status)
def start_due(
    ctx: UiContext,
    student: str,
    kb: str,
    length: float,
    session_id: int | None = None,
    chat: list[Message] | None = None,
) -> tuple[Any, ...]:
    """Start a session asking the facts due for review now (most overdue first)."""
    view = practice.start_review_session(
        ctx.db, student=student or "", kb=kb or DEFAULT_KB, length=_length(length)
    )
    if session_id is not None and session_id != view.id:
        _abandon(ctx, session_id)
    question = practice.next_question(ctx.db, view.id)
    intro = (
        f"Hello {md_escape(view.student)}! {view.total} fact(s) due for review from "
        f"{_code(view.kb)}. Answer with the buttons or type your answer."
    )
    return with_due(_outputs(_opening(ctx, view, question, intro, "")), due_panel(ctx, student, kb))
