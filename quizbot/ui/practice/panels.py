"""The Practice tab's side panels: the KB's topics and notice, "My progress", the flag form and
the "Due for review" panel."""

from __future__ import annotations

import logging
from typing import Any

import gradio as gr
import pandas as pd

from quizbot.domain import FlagReason
from quizbot.errors import InputError, NotFoundError
from quizbot.kb.registry import DEFAULT_KB, kb_license
from quizbot.practice import service as practice
from quizbot.ui import recall_practice
from quizbot.ui.boundary import guarded, guarded_by
from quizbot.ui.context import UiContext
from quizbot.ui.practice.due import due_panel
from quizbot.ui.practice.render import (
    ALL_TOPICS,
    COVERAGE_HEADERS,
    FLAG_REASONS,
    SESSION_HEADERS,
    TOPIC_HEADERS,
    Message,
    _error_text,
    coverage_rows,
    coverage_text,
    license_note,
    progress_view,
    topic_choices,
    weakest_text,
)
from quizbot.ui.practice.screen import Screen, _data, _outputs
from quizbot.ui.practice.sessions import _idle, start
from quizbot.ui.render import (
    md_escape,
    user_message,
)


@guarded_by(lambda exc, _: (gr.update(choices=topic_choices([])), _error_text(exc)))
def kb_changed(ctx: UiContext, kb: str) -> tuple[Any, Any]:
    """The chosen KB's topics (for the dropdown) and its licence note.

    The topic's value is never sent: this runs on page load too, and a value sent then would
    overwrite a topic the student chose while the page loaded. A change of KB puts the topic
    back to "All topics" in the browser (:data:`ALL_TOPICS_JS`)."""
    found = practice.topics(ctx.db, kb or DEFAULT_KB)
    return (
        gr.update(choices=topic_choices(found)),
        license_note(kb or DEFAULT_KB, kb_license(ctx.db, kb or DEFAULT_KB)),
    )


log = logging.getLogger(__name__)


def _no_progress(exc: Exception, _arguments: dict[str, Any]) -> tuple[Any, ...]:
    """A failed "My progress": the message, an empty chart and empty tables."""
    return (
        _error_text(exc),
        "",
        pd.DataFrame([], columns=TOPIC_HEADERS),
        pd.DataFrame([], columns=SESSION_HEADERS),
    )


@guarded_by(_no_progress)
def show_progress(ctx: UiContext, student: str, kb: str, by: str) -> tuple[Any, ...]:
    """The student's progress: overview, chart (accuracy per day, week or session with its 95%
    intervals), per-topic table, sessions table."""
    result = practice.progress(
        ctx.db,
        student or "",
        kb=None if kb in (None, "", ALL_TOPICS) else kb,
        by="week" if by == "week" else "session" if by == "session" else "day",
        idle_timeout=_idle(ctx),
    )
    view = progress_view(result)
    return (
        view.overview + _due_line(ctx, student, kb) + recall_practice.progress_text(result),
        view.chart,
        pd.DataFrame(view.topics, columns=TOPIC_HEADERS),
        pd.DataFrame(view.sessions, columns=SESSION_HEADERS),
    )


def _coverage_kb(progress_kb: str | None, kb: str | None) -> str:
    """The knowledge base coverage is about: the one chosen for progress, or, for "All
    knowledge bases", the one chosen for practice."""
    return (kb or DEFAULT_KB) if progress_kb in (None, "", ALL_TOPICS) else progress_kb


@guarded_by(
    lambda exc, _: (
        _error_text(exc), pd.DataFrame([], columns=COVERAGE_HEADERS), "",
        gr.update(interactive=False),
    )
)  # fmt: skip
def show_coverage(
    ctx: UiContext, student: str, progress_kb: str, kb: str, view: str
) -> tuple[Any, Any, Any, Any]:
    """The coverage line and table of "My progress": facts seen and due, per organ system or
    per relation (``view``), weakest first; then the weakest topics of that view and the
    "Practice these" button (pressable when there are some)."""
    empty = pd.DataFrame([], columns=COVERAGE_HEADERS)
    off = gr.update(interactive=False)
    try:
        report = practice.coverage(ctx.db, student or "", kb=_coverage_kb(progress_kb, kb))
    except NotFoundError:  # the progress text above already says there is nothing yet
        return "", empty, "", off
    kind = "system" if view == "system" else "relation"
    rows = coverage_rows(report, kind)
    return (
        coverage_text(report),
        pd.DataFrame(rows, columns=COVERAGE_HEADERS),
        weakest_text(report, kind),
        gr.update(interactive=bool(report.weakest(kind))),
    )


def start_weakest(
    ctx: UiContext,
    student: str,
    progress_kb: str,
    kb: str,
    view: str,
    fmt: str,
    length: float,
    session_id: int | None,
    chat: list[Message] | None,
) -> tuple[Any, ...]:
    """ "Practice these": a session on the weakest topics of the coverage view shown (read
    again here, so it is the student's figures now), in the tab's format and length."""
    chosen = _coverage_kb(progress_kb, kb)
    try:
        report = practice.coverage(ctx.db, student or "", kb=chosen)
        weak = report.weakest("system" if view == "system" else "relation")
        if not weak:
            raise InputError(
                "there are no weak topics to practise yet",
                hint="a topic needs two answers or more, not all right",
            )
    except Exception as exc:  # every error becomes a message, never a traceback
        return _outputs(
            Screen(chat=None, data=_data(error=user_message(exc)), status=_error_text(exc),
                   keep_state=True)
        )  # fmt: skip
    topics = [t.key for t in weak]
    return start(ctx, student, chosen, None, fmt, length, None, session_id, None, chat,
                 topics=topics)  # fmt: skip


@guarded(2)
def send_flag(
    ctx: UiContext,
    reason: str | None,
    comment: str | None,
    session_id: int | None,
    answered: str | None,
) -> tuple[Any, Any]:
    """Flag the question just answered (never one still open) for a reviewer.

    ``answered`` is the id of the question whose feedback the student has seen, kept on the
    server; the browser sends only the reason and the comment. Returns the result message and
    the comment box (cleared once the flag is stored).
    """
    if session_id is None or answered is None:
        return "Answer a question first; you can flag it once you have seen its answer.", gr.skip()
    stored = practice.flag(
        ctx.db, session_id, answered, reason or FlagReason.OTHER.value, comment or ""
    )
    label = dict((v, k) for k, v in FLAG_REASONS).get(stored.reason, stored.reason)
    return (
        f"Thank you: flagged for review ({md_escape(label.lower())}). A reviewer will check it.",
        "",
    )


@guarded_by(lambda exc, _: (_error_text(exc), gr.update(interactive=False), gr.skip()))
def refresh_due(ctx: UiContext, student: str, kb: str) -> tuple[Any, Any, Any]:
    """The panel's text, whether its button can be pressed, and what it counts for (the state
    an answer counts the panel again with, :mod:`quizbot.ui.practice.due`)."""
    return due_panel(ctx, student, kb)


def _due_line(ctx: UiContext, student: str, kb: str | None) -> str:
    """The progress overview's spaced-review line (empty when it cannot be read)."""
    try:
        counts = practice.due_counts(
            ctx.db, student or "", kb=None if kb in (None, "", ALL_TOPICS) else kb
        )
    except Exception as exc:  # the rest of the progress view still stands
        log.warning("due counts not shown: %s", user_message(exc))
        return ""
    return (
        f"\n\nDue for review: **{counts.today}** today, **{counts.week}** within a week "
        "(spaced review)."
    )
