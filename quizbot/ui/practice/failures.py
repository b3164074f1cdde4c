"""What a failed Practice action shows, for the app's one error boundary
(:func:`quizbot.ui.boundary.guarded_by`): the message in the status line or in the chat, the
error in the tab's JSON, and everything else (session, question, controls) left as it was.

Each function takes the error and the failed call's arguments by name, as ``guarded_by``
passes them.
"""

from __future__ import annotations

from typing import Any

from quizbot.ui.practice.render import Message, _error_text
from quizbot.ui.practice.screen import Screen, _data, _outputs
from quizbot.ui.render import md_escape, user_message

__all__ = ["echo", "in_answer", "in_chat", "in_status"]


def echo(answer: Any) -> Message:
    """The student's answer as their chat bubble (``(empty)`` for nothing typed)."""
    typed = answer if isinstance(answer, str) else ""
    return {"role": "user", "content": md_escape(typed.strip()) or "(empty)"}


def in_status(exc: Exception, arguments: dict[str, Any]) -> tuple[Any, ...]:
    """The message in the status line; the chat as it was (starting a session, ending one)."""
    del arguments
    message = _error_text(exc)
    return _outputs(
        Screen(chat=None, data=_data(error=user_message(exc)), status=message, keep_state=True)
    )


def in_chat(exc: Exception, arguments: dict[str, Any]) -> tuple[Any, ...]:
    """The message as the assistant's next chat bubble (the call's ``chat``)."""
    chat = arguments.get("chat") or []
    return _outputs(
        Screen(
            chat=[*chat, {"role": "assistant", "content": _error_text(exc)}],
            data=_data(error=user_message(exc)),
            keep_state=True,
        )
    )


def in_answer(exc: Exception, arguments: dict[str, Any]) -> tuple[Any, ...]:
    """A failed answer: the student's answer and the message in the chat, the question kept."""
    chat = list(arguments.get("chat") or [])
    shown = echo(arguments.get("answer"))
    return _outputs(
        Screen(
            chat=[*chat, shown, {"role": "assistant", "content": _error_text(exc)}],
            data=_data(question=arguments.get("question"), error=user_message(exc)),
            keep_state=True,
        )
    )
