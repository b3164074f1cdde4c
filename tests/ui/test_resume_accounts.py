"""Resuming practice in accounts mode: the page load offers the account's own active session
(there is no pseudonym to type), never another student's; local mode still waits for the
pseudonym. The page-load handler is taken from the built app, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gradio as gr

from quizbot import accounts
from quizbot.config import load_settings
from quizbot.ui import practice as ui
from quizbot.ui.app import build_app
from quizbot.ui.context import UiContext
from storage import Database

PASSWORD = "a long enough password"


def _offer_on_load(app: gr.Blocks) -> Callable[..., Any]:
    """The page-load handler whose outputs are the resume offer."""
    (text,) = [
        b for b in app.blocks.values() if getattr(b, "elem_id", None) == "qb-practice-resume-text"
    ]
    found = [
        f.fn
        for f in app.fns.values()
        if any(event == "load" for _, event in f.targets) and text in f.outputs
    ]
    assert len(found) == 1
    return found[0]  # type: ignore[return-value]


def _session(ctx: UiContext, student: str, answered: int) -> int:
    out = ui.start(ctx, student, "clinical-core", "all", "statement", 4)
    session_id, question, chat = out[-3], out[-2], out[-1]
    for _ in range(answered):
        out = ui.submit(ctx, "true", session_id, question, chat)
        question, chat = out[-2], out[-1]
    return int(session_id)


def test_the_account_is_offered_its_own_session_on_page_load(db: Database, tmp_path: Path) -> None:
    ctx = UiContext(load_settings(home=str(tmp_path / "home"), database_url=db.url), db)
    local_app = build_app(ctx.settings, db, ctx)
    ida = _session(ctx, "ida", 2)
    # local mode: the page load offers nothing (the pseudonym is typed, then the offer comes)
    nobody = SimpleNamespace(username=None)
    assert all(v == gr.skip() for v in _offer_on_load(local_app)(nobody))
    assert ui.offer_resume(ctx, "Ida", None)[2] == ida

    for name in ("ida", "max", "new"):
        accounts.create_user(db, name, "student", PASSWORD, cohort="year-1")
    ctx = UiContext(ctx.settings, db)  # accounts mode from now on
    app = build_app(ctx.settings, db, ctx)
    max_ = _session(ctx, "max", 1)
    offer = _offer_on_load(app)
    box, text, offered = offer(SimpleNamespace(username="ida"))
    assert box["visible"] is True and offered == ida and "(2/4 answered" in text
    box, text, offered = offer(SimpleNamespace(username="max"))
    assert offered == max_ and "(1/4 answered" in text
    # an account with no active session of its own gets no offer (nobody else's)
    box, _, offered = offer(SimpleNamespace(username="new"))
    assert box["visible"] is False and offered is None
    # Resume goes on with the offered session at its next question
    out = ui.resume(ctx, offered_id := ida, None, [])
    assert out[-3] == offered_id and out[-2].position == 3


def _recall_offer_on_load(app: gr.Blocks) -> Callable[..., Any]:
    """The page-load handler whose outputs are the Recall section's resume offer."""
    (text,) = [
        b for b in app.blocks.values() if getattr(b, "elem_id", None) == "qb-recall-resume-text"
    ]
    found = [
        f.fn
        for f in app.fns.values()
        if any(event == "load" for _, event in f.targets) and text in f.outputs
    ]
    assert len(found) == 1
    return found[0]  # type: ignore[return-value]


def test_the_account_is_offered_its_own_recall_session_on_page_load(
    db: Database, tmp_path: Path
) -> None:
    from quizbot.ui import recall_practice as recall

    ctx = UiContext(load_settings(home=str(tmp_path / "home"), database_url=db.url), db)
    local_app = build_app(ctx.settings, db, ctx)
    out = recall.start(ctx, "ria", "clinical-core", "all", 3, None, None)
    ria, question = out[8], out[9]
    recall.submit(ctx, "I don't know", ria, question)
    nobody = SimpleNamespace(username=None)
    assert all(v == gr.skip() for v in _recall_offer_on_load(local_app)(nobody))
    assert recall.offer(ctx, "Ria", None)[2] == ria  # local mode: once the pseudonym is typed

    for name in ("ria", "new"):
        accounts.create_user(db, name, "student", PASSWORD, cohort="year-1")
    ctx = UiContext(ctx.settings, db)  # accounts mode from now on
    offer = _recall_offer_on_load(build_app(ctx.settings, db, ctx))
    box, text, offered = offer(SimpleNamespace(username="ria"))
    assert box["visible"] is True and offered == ria and "(1/3 answered" in text
    box, _, offered = offer(SimpleNamespace(username="new"))
    assert box["visible"] is False and offered is None
    # Resume asks the offered session's next question
    out = recall.resume(ctx, ria, None)
    assert out[8] == ria and out[9].position == 2
