"""The Practice tab's intro (issue 29): local mode asks for a pseudonym; in accounts mode there
is no pseudonym to type, so the intro says answers are kept with the account and, on page load,
names the account the login gave the server. The page-load handler is taken from the built
app, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gradio as gr

from quizbot import accounts
from quizbot.config import load_settings
from quizbot.ui.app import build_app
from quizbot.ui.context import UiContext
from storage import Database

PASSWORD = "a long enough password"


def _block(app: gr.Blocks, elem_id: str) -> Any:
    (found,) = [b for b in app.blocks.values() if getattr(b, "elem_id", None) == elem_id]
    return found


def _intro_on_load(app: gr.Blocks) -> Callable[..., Any]:
    """The page-load handler whose output is the intro."""
    intro = _block(app, "qb-practice-intro")
    found = [
        f.fn
        for f in app.fns.values()
        if any(event == "load" for _, event in f.targets) and intro in f.outputs
    ]
    assert len(found) == 1
    return found[0]  # type: ignore[return-value]


def test_the_intro_names_the_account_in_accounts_mode(db: Database, tmp_path: Path) -> None:
    ctx = UiContext(load_settings(home=str(tmp_path / "home"), database_url=db.url), db)
    local_app = build_app(ctx.settings, db, ctx)
    # Local mode: the pseudonym is asked for, and the page load leaves the intro as it is.
    assert "Use a pseudonym or code name" in _block(local_app, "qb-practice-intro").value
    assert "pseudonym" in _block(local_app, "qb-practice-progress-text").value
    assert _intro_on_load(local_app)(SimpleNamespace(username=None)) == gr.skip()

    accounts.create_user(db, "ida_k", "student", PASSWORD, cohort="year-1")
    ctx = UiContext(ctx.settings, db)  # accounts mode from now on
    app = build_app(ctx.settings, db, ctx)
    before = _block(app, "qb-practice-intro").value  # what shows before the load event
    assert "pseudonym" not in before and "kept with your account" in before
    assert "pseudonym" not in _block(app, "qb-practice-progress-text").value
    shown = _intro_on_load(app)(SimpleNamespace(username="ida_k"))
    assert "Signed in as **ida\\_k**: your answers and progress are kept with your account." in (
        shown
    )
    assert "pseudonym" not in shown
