"""The Practice tab's assignment handlers without a browser: what each action sends out.

The outputs are what Gradio sends to the browser (and to ``gradio_client``), so an exam's
answers before the last must carry no outcome, key or explanation in any of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from quizbot.config import load_settings
from quizbot.domain import AssignmentMode
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.ui import practice as ui
from quizbot.ui.context import UiContext
from storage import Database

NAME = "wk-exam"


@pytest.fixture
def ctx(db: Database) -> Iterator[UiContext]:
    make_assignment(
        db,
        AssignmentRequest(
            name=NAME, kb="clinical-core", points=2, seed="3", mode=AssignmentMode.EXAM
        ),
    )
    yield UiContext(load_settings(models=["openai/stub"]), db)


def start(ctx: UiContext, student: str, session_id: int | None = None) -> tuple[Any, ...]:
    return ui.start(ctx, student, "", "", "", 0, None, session_id, f"  {NAME} ", [])


def sent(out: tuple[Any, ...]) -> str:
    """Everything an action sends that can be serialised (updates are dicts or objects)."""
    return json.dumps(out, default=str)


def test_an_exam_sends_nothing_revealing_until_the_last_answer(ctx: UiContext) -> None:
    out = start(ctx, "Kim")
    session_id, question = out[-3], out[-2]
    assert out[0]["error"] is None and question is not None
    total = question.total
    assert "This is an exam" in out[1][0]["content"]
    asked = []
    for position in range(1, total + 1):
        asked.append(out[-2].text)
        chat = out[-1]
        out = ui.submit(ctx, "true", session_id, out[-2], chat)
        if position < total:
            text = sent(out)
            assert out[0]["feedback"] is None and out[0]["summary"] is None
            assert "Correct answer" not in text and "The statement is" not in text
            assert out[-4] is None  # nothing to flag: its key has not been seen
            assert out[1][-2]["content"].startswith(f"**Answer recorded.** Question {position}")
            assert out[-2].position == position + 1
    assert out[-2] is None and out[0]["summary"]["n_answered"] == total
    assert "That was the last question" in out[1][-2]["content"]
    review = out[3]
    assert "Review of every question" in review
    assert all(f"Answer {p} of {total}:" in review for p in range(1, total + 1))
    # Each card shows its question whole, before the answer; no table of cut-short questions.
    cards = review.split("Review of every question", 1)[1].split("\n\n---\n\n")
    assert len(cards) == total
    for position, (text, card) in enumerate(zip(asked, cards, strict=True), start=1):
        assert f"**Question {position} of {total}**" in card
        assert ui.md_escape(text) in card and card.index(ui.md_escape(text)) < card.index("Answer")
    assert "**Your answers**" not in review


def test_an_exam_is_resumed_and_a_finished_one_is_not_retaken(ctx: UiContext) -> None:
    first = start(ctx, "Lou")
    session_id = first[-3]
    answered = ui.submit(ctx, "false", session_id, first[-2], first[-1])
    again = start(ctx, " lou ")
    assert again[-3] == session_id and again[-2].position == 2
    assert "Welcome back" in again[1][0]["content"]
    out = again
    while out[-2] is not None:
        out = ui.submit(ctx, "idk", session_id, out[-2], out[-1])
    assert answered[0]["feedback"] is None
    finished = start(ctx, "Lou")
    assert finished[-3] == session_id and finished[-2] is None
    assert "already finished" in finished[1][0]["content"]
    assert "Review of every question" in finished[3]


def test_an_unknown_assignment_is_a_message_and_the_running_session_goes_on(
    ctx: UiContext,
) -> None:
    running = ui.start(ctx, "Max", "clinical-core", "all", "statement", 2)
    session_id, chat = running[-3], running[-1]
    out = ui.start(ctx, "Max", "", "", "", 0, None, session_id, "no-such-one", chat)
    assert "There is no assignment called" in out[1][-1]["content"]
    assert out[1][: len(chat)] == chat  # the transcript is kept, the message added
    assert out[0]["error"] == "no assignment 'no-such-one'"
    assert all(ui_skip(value) for value in out[-3:-1])  # session, question


def ui_skip(value: Any) -> bool:
    """Whether an output leaves its component as it was (``gr.skip()``)."""
    return isinstance(value, dict) and value.get("__type__") == "update" and len(value) == 1


def test_ending_an_exam_early_shows_no_results_and_it_can_be_started_afresh(
    ctx: UiContext,
) -> None:
    out = start(ctx, "Ned")
    session_id = out[-3]
    out = ui.submit(ctx, "true", session_id, out[-2], out[-1])
    ended = ui.end(ctx, session_id, out[-1])
    assert ended[0]["error"] is None and ended[0]["summary"] is None
    assert "Exam ended early" in ended[1][-1]["content"]
    assert "Correct answer" not in sent(ended)
    assert ended[-3] is None and ended[-2] is None  # nothing left to answer in this tab
    assert ended[3] == ""
    again = start(ctx, "Ned")
    assert again[-3] != session_id and again[-2].position == 1
