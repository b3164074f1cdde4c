"""``SkippingBlocks``: Gradio's postprocessing without the cost of ``gr.skip()`` outputs, sending
the browser exactly what plain ``gr.Blocks`` sends. Checked on the Practice tab's real answer
handler over a real database (both backends)."""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Iterator
from typing import Any

import gradio as gr
import pytest
from gradio.state_holder import SessionState

from quizbot.config import load_settings
from quizbot.ui import practice as ui
from quizbot.ui.app import build_app
from quizbot.ui.context import UiContext
from quizbot.ui.skips import SkippingBlocks, is_skip
from storage import Database


@pytest.fixture
def app(db: Database) -> Iterator[tuple[UiContext, Any]]:
    settings = load_settings(models=["openai/stub"], database_url=db.url)
    ctx = UiContext(settings, db)
    yield ctx, build_app(settings, db, ctx)


def _answer_fn(blocks: Any) -> Any:
    (fn,) = (f for f in blocks.fns.values() if f.api_name == "practice_answer")
    return fn


def _both(blocks: Any, fn: Any, out: tuple[Any, ...]) -> tuple[list[Any], list[Any], Any, Any]:
    lean, full = SessionState(blocks), SessionState(blocks)
    # Gradio pops the value from update dicts it processes: each gets its own copy
    sent = asyncio.run(blocks.postprocess_data(fn, copy.deepcopy(out), lean))
    plain = asyncio.run(gr.Blocks.postprocess_data(blocks, fn, copy.deepcopy(list(out)), full))
    return sent, plain, lean, full


def test_the_app_sends_what_plain_gradio_sends_for_every_answer_and_next(
    app: tuple[UiContext, Any],
) -> None:
    ctx, blocks = app
    assert isinstance(blocks, SkippingBlocks)
    fn = _answer_fn(blocks)
    out = ui.start(ctx, "Ada", "clinical-core", "all", "mixed", 4.0)
    session_id, question, chat = out[-3], out[-2], out[-1]
    screens = [out]
    while question is not None:
        out = ui.submit(ctx, "banana", session_id, question, chat)  # unreadable: state kept
        screens.append(out)
        out = ui.submit(
            ctx, "A" if question.kind == "choice" else "true", session_id, question, chat
        )
        screens.append(out)
        question, chat = out[-2], out[-1]
        if question is not None:
            out = ui.show_next(ctx, session_id, question, chat)
            screens.append(out)
            chat = out[-1]
    skips = 0
    for out in screens:
        sent, plain, lean, full = _both(blocks, fn, out)
        assert sent == plain
        for block, value in zip(fn.outputs, out, strict=True):
            if not block.stateful and not is_skip(value):  # processed alike in both
                assert lean.config_values.get(block._id) == full.config_values.get(block._id)
        skips += sum(
            1 for block, v in zip(fn.outputs, out, strict=True) if not block.stateful and is_skip(v)
        )
    assert skips > 0


def test_skipped_outputs_are_not_postprocessed(app: tuple[UiContext, Any]) -> None:
    """The point of it: Gradio builds a component per update, skip or not; here skips are nearly
    free. The CPU time of the answer's outputs, all skipped, against plain Gradio's."""
    ctx, blocks = app
    fn = _answer_fn(blocks)
    out = ui.start(ctx, "Ada", "clinical-core", "all", "statement", 2.0)
    skips = [gr.skip() if not b.stateful else out[i] for i, b in enumerate(fn.outputs)]
    loop = asyncio.new_event_loop()

    def cpu(postprocess: Any) -> float:
        states = [SessionState(blocks) for _ in range(30)]
        began = time.process_time()
        for state in states:
            loop.run_until_complete(postprocess(blocks, fn, list(skips), state))
        return time.process_time() - began

    try:
        cpu(SkippingBlocks.postprocess_data)  # warm up
        assert cpu(SkippingBlocks.postprocess_data) * 3 < cpu(gr.Blocks.postprocess_data)
    finally:
        loop.close()
