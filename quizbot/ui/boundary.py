"""The app's one error boundary: every handler that can fail is wrapped by :func:`guarded` (or
:func:`guarded_by`, for outputs that show a failure their own way).

A wrapped handler that raises returns, instead, the user-safe message
(:func:`quizbot.ui.render.error_markdown`) in the output that shows messages, and "leave as is"
for every other output, so the number of values always matches the outputs it was wired to.
Unexpected errors are logged once with their traceback; the user sees a short apology.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import gradio as gr

from quizbot.ui.render import error_markdown

__all__ = ["error_outputs", "guarded", "guarded_by"]

F = TypeVar("F", bound=Callable[..., Any])


def error_outputs(exc: BaseException, n_outputs: int, at: int = 0, title: str = "") -> Any:
    """What a failed handler returns: the message at position ``at``, ``gr.skip()`` elsewhere."""
    message = error_markdown(exc, title) if title else error_markdown(exc)
    if n_outputs == 1:
        return message
    values: list[Any] = [gr.skip() for _ in range(n_outputs)]
    values[at] = message
    return tuple(values)


def guarded(n_outputs: int, *, at: int = 0, title: str = "") -> Callable[[F], F]:
    """Wrap a Gradio handler (sync or async) so that it never raises into Gradio.

    ``n_outputs`` is the number of outputs the handler is wired to and ``at`` the one that shows
    messages; ``title`` leads the message (default "Could not do that.").
    """
    if not 0 <= at < n_outputs:
        raise ValueError(f"the message output {at} is not one of {n_outputs} outputs")
    return guarded_by(lambda exc, _arguments: error_outputs(exc, n_outputs, at, title))


def guarded_by(fallback: Callable[[Exception, dict[str, Any]], Any]) -> Callable[[F], F]:
    """:func:`guarded` for handlers whose outputs show a failure their own way (the Practice
    tab's screen: the message in the chat or the status line, the rest left as it was): a
    wrapped handler that raises returns ``fallback(error, arguments)`` instead, ``arguments``
    being the call's arguments by parameter name (the chat so far, the answer typed...).
    ``fallback`` renders the message with :func:`quizbot.ui.render.error_markdown` (or
    :func:`~quizbot.ui.render.user_message`), which logs an unexpected error once."""

    def wrap(handler: F) -> F:
        def failed(exc: Exception, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            try:
                arguments = dict(inspect.signature(handler).bind_partial(*args, **kwargs).arguments)
            except TypeError:  # called with arguments it does not take: nothing to show them
                arguments = {}
            return fallback(exc, arguments)

        if inspect.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await handler(*args, **kwargs)
                except Exception as exc:
                    return failed(exc, args, kwargs)

            return run_async  # type: ignore[return-value]

        @functools.wraps(handler)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return handler(*args, **kwargs)
            except Exception as exc:
                return failed(exc, args, kwargs)

        return run  # type: ignore[return-value]

    return wrap
