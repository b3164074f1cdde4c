"""The Practice tab's "Due for review" panel as values for its outputs, for the handlers that
show it along with their own screen (an answer, a start, the end of a session) and for the
panel's own refresh (:func:`quizbot.ui.practice.panels.refresh_due`).

The panel is three outputs: its text, its "Review due facts" button, and a server-side state
holding what it counts (``[student, kb]``, see :data:`DueFor`). The state is written wherever
the panel is read from the tab's fields (a name typed, a KB chosen, a session started), so an
answer, whose inputs are the session's states and never the form, counts for the same student
and knowledge base in its own transaction (:func:`quizbot.practice.step.answer_and_next`):
one server request per answer instead of two (docs/performance.md, Part 7).
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from quizbot.kb.registry import DEFAULT_KB
from quizbot.practice import service as practice
from quizbot.ui.context import UiContext
from quizbot.ui.practice.render import _error_text, due_hint, due_panel_text

__all__ = ["DueFor", "DuePanel", "due_for", "due_panel", "panel_of"]

DueFor = list[str]  # [student, kb]: whom and which knowledge base the panel counts for
DuePanel = tuple[Any, Any, Any]  # the panel's text, its button, the DueFor state


def due_for(value: Any) -> tuple[str, str] | None:
    """The (student, kb) of a :data:`DueFor` state, ``None`` when it holds none."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    student, kb = value
    if not isinstance(student, str) or not isinstance(kb, str) or not student.strip():
        return None
    return student, kb


def panel_of(count: int, who: tuple[str, str]) -> DuePanel:
    """The panel showing ``count`` facts due for ``who`` (student, kb)."""
    return due_panel_text(count), gr.update(interactive=count > 0), list(who)


def due_panel(ctx: UiContext, student: str | None, kb: str | None) -> DuePanel:
    """The panel read for ``student`` on ``kb`` (the student's cards are built from their
    answers on first use); without a name, the hint and no state."""
    if not (student or "").strip():
        return due_hint(ctx.accounts_mode()), gr.update(interactive=False), None
    who = (student or "", kb or DEFAULT_KB)
    try:
        count = practice.count_due_now(ctx.db, who[0], kb=who[1])
    except Exception as exc:  # every error becomes a message, never a traceback
        return _error_text(exc), gr.update(interactive=False), list(who)
    return panel_of(count, who)
