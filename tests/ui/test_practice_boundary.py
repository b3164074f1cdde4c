"""The Practice tab's handlers behind the app's one error boundary (issue 27).

Each handler of the tab is wrapped by :func:`quizbot.ui.boundary.guarded_by` with the way its
failure is shown (:mod:`quizbot.ui.practice.failures`): starting and ending report in the status
line, an assignment or a resume in the chat, an answer in the chat after the student's own
words. A failure the code did not expect (here: the service raising ``RuntimeError``) is shown
as an apology, never a traceback, and the running session is left as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr
import pytest

from quizbot.config import load_settings
from quizbot.practice import service
from quizbot.practice.service import Question
from quizbot.ui.context import UiContext
from quizbot.ui.practice import panels, sessions
from storage import Database

APOLOGY = "Something went wrong (RuntimeError)"
CHAT = [{"role": "assistant", "content": "earlier"}]
QUESTION = Question(7, "s7q1", 1, 5, "statement", "Insulin lowers glucose.", None, "t", "", [])


def _broken(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("internal detail")


def _text(value: Any) -> str:
    return str(value)


@pytest.fixture
def ctx(db: Database, monkeypatch: pytest.MonkeyPatch) -> UiContext:
    for name in ("start_session", "start_session_and_ask", "start_assignment_session",
                 "session_view", "end_session", "start_review_session", "answer_and_next",
                 "topics", "progress", "coverage", "count_due_now"):  # fmt: skip
        monkeypatch.setattr(service, name, _broken)
    return UiContext(load_settings(database_url=db.url), db)


def _status_failure(out: tuple[Any, ...]) -> None:
    data, chat, status = out[0], out[1], out[2]
    assert APOLOGY in status and "internal detail" not in _text(out)
    assert chat == gr.skip() and out[-3:] == (gr.skip(), gr.skip(), gr.skip())  # state kept
    assert data["error"].startswith(APOLOGY)


def _chat_failure(out: tuple[Any, ...], *before: dict[str, str]) -> None:
    data, chat = out[0], out[1]
    assert chat[: len(CHAT) + len(before)] == [*CHAT, *before]
    assert chat[-1]["role"] == "assistant" and APOLOGY in chat[-1]["content"]
    assert "internal detail" not in _text(out) and data["error"].startswith(APOLOGY)
    assert out[-3:-1] == (gr.skip(), gr.skip())  # the session and its question kept


def test_starting_and_ending_report_in_the_status_line(ctx: UiContext) -> None:
    _status_failure(sessions.start(ctx, "Ada", "clinical-core", None, "statement", 5.0))
    _status_failure(sessions.start_due(ctx, "Ada", "clinical-core", 5.0))
    _status_failure(sessions.end(ctx, 7, CHAT))
    _status_failure(sessions.show_next(ctx, 7, QUESTION, CHAT))


def test_an_assignment_a_resume_and_an_answer_report_in_the_chat(ctx: UiContext) -> None:
    _chat_failure(sessions.start_assignment(ctx, "Ada", "week-1", None, CHAT))
    _chat_failure(sessions.resume(ctx, 3, None, CHAT))
    out = sessions.submit(ctx, " true ", 7, QUESTION, CHAT)
    _chat_failure(out, {"role": "user", "content": "true"})
    assert out[0]["question"] == QUESTION.as_json()  # the question still waits for an answer


def test_the_side_panels_report_in_their_own_message(ctx: UiContext) -> None:
    calls: list[Callable[[], tuple[Any, ...]]] = [
        lambda: panels.kb_changed(ctx, "clinical-core"),
        lambda: panels.show_progress(ctx, "Ada", "clinical-core", "day"),
        lambda: panels.show_coverage(ctx, "Ada", "clinical-core", "clinical-core", "system"),
        lambda: panels.refresh_due(ctx, "Ada", "clinical-core"),
    ]
    for call in calls:
        out = call()
        assert any(APOLOGY in _text(v) for v in out) and "internal detail" not in _text(out)
