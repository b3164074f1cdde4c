"""The Practice tab on a two-pass assignment, without a browser: pass 1 ends in the second pass.

Pass 1's answers (the last included, since a second pass follows) reveal nothing; the chat then
moves to the second pass on the items answered "I don't know", which refuses "I don't know" and
asks for a guess, and only after it are the answers shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from quizbot.config import load_settings
from quizbot.domain import AssignmentMode
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.ui import practice as ui
from quizbot.ui.context import UiContext
from storage import Database
from storage.sessions import load_session

NAME = "wk-two"


@pytest.fixture
def ctx(db: Database) -> Iterator[UiContext]:
    make_assignment(
        db,
        AssignmentRequest(
            name=NAME, kb="clinical-core", points=3, seed="3", mode=AssignmentMode.EXAM,
            two_pass=True,
        ),
    )  # fmt: skip
    yield UiContext(load_settings(models=["openai/stub"]), db)


def test_pass_one_leads_into_a_second_pass_that_wants_a_guess(ctx: UiContext) -> None:
    out = ui.start(ctx, "Lee", "", "", "", 0, None, None, NAME, [])
    first_session, question = out[-3], out[-2]
    total = question.total
    for position in range(1, total + 1):
        said = "I don't know" if position <= 2 else "true"
        out = ui.submit(ctx, said, out[-3], out[-2], out[-1])
        text = json.dumps(out, default=str)
        assert "Correct answer" not in text and "The statement is" not in text
        assert out[0]["summary"] is None
    second_session, question = out[-3], out[-2]
    assert second_session != first_session and question is not None
    assert "Second pass" in out[1][-2]["content"] and question.total == 2
    assert "Question 1 of 2" in out[1][-1]["content"]
    refused = ui.submit(ctx, "I don't know", second_session, question, out[-1])
    assert "best guess" in refused[1][-1]["content"]
    assert load_session(ctx.db, second_session).answers == []
    for _ in range(2):
        out = ui.submit(ctx, "false", out[-3], out[-2], out[-1])
    assert out[0]["summary"] is not None  # both passes done: the summary and review
    passes = [a.item_id for a in load_session(ctx.db, first_session).answers]
    assert len(passes) == total
    assert "Review of every question" in out[3]
