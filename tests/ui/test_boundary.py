"""The one error boundary: a failing handler returns a message and leaves other outputs alone."""

from __future__ import annotations

import asyncio
import inspect
import logging
import typing

import gradio as gr
import pytest

from quizbot.errors import InputError
from quizbot.ui.boundary import guarded, guarded_by


def test_a_user_error_becomes_the_message_at_its_output() -> None:
    @guarded(3, at=1, title="Could not compare.")
    def handler(x: int) -> tuple[str, str, str]:
        raise InputError("choose *two* models", hint="pick more")

    out = handler(1)
    assert isinstance(out, tuple) and len(out) == 3
    assert out[1] == "**Could not compare.** choose \\*two\\* models  \n**Fix:** pick more"
    assert out[0] == out[2] == gr.skip()


def test_success_passes_through_untouched() -> None:
    @guarded(2)
    def handler(x: int) -> tuple[int, int]:
        return x, x + 1

    assert handler(4) == (4, 5)


def test_async_handlers_and_unexpected_errors(caplog: pytest.LogCaptureFixture) -> None:
    @guarded(1)
    async def handler() -> str:
        raise KeyError("internal detail sk-abcdefghijklmnop")

    with caplog.at_level(logging.ERROR, logger="quizbot.ui"):
        out = asyncio.run(handler())
    assert isinstance(out, str) and "KeyError" in out and "internal detail" not in out
    assert any(r.exc_info for r in caplog.records)


def test_gradio_still_sees_the_handlers_parameters() -> None:
    @guarded(1)
    def handler(admin: bool, evt: gr.SelectData) -> str:
        return "ok"

    assert list(inspect.signature(handler).parameters) == ["admin", "evt"]
    assert typing.get_type_hints(handler)["evt"] is gr.SelectData
    assert inspect.iscoroutinefunction(guarded(1)(_async_noop))


async def _async_noop() -> str:
    return ""


def test_the_message_output_must_exist() -> None:
    with pytest.raises(ValueError, match="not one of 2 outputs"):
        guarded(2, at=2)


def test_guarded_by_hands_the_fallback_the_calls_arguments_by_name() -> None:
    seen: list[tuple[str, dict[str, object]]] = []

    def fallback(exc: Exception, arguments: dict[str, object]) -> str:
        seen.append((str(exc), arguments))
        return "shown"

    @guarded_by(fallback)
    def handler(ctx: object, answer: str, chat: list[str] | None = None) -> str:
        raise InputError("no")

    assert handler("c", "B", chat=["hi"]) == "shown"
    assert seen == [("no", {"ctx": "c", "answer": "B", "chat": ["hi"]})]
    assert list(inspect.signature(handler).parameters) == ["ctx", "answer", "chat"]
    assert guarded_by(fallback)(lambda: "fine")() == "fine"
