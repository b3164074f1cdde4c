"""Practice state keyed by the account (issue 25, N3): a handler of the Practice tab or its Recall
section refuses a practice session id that belongs to another account, whatever put it in the
call's ``gr.State``.

The gate binds a Gradio session hash to the account that first used it, so a browser cannot
borrow another account's state; these tests do what the attacker of N3 did one step further
in: they call the functions Gradio runs (from the built app, role guard included) as account
``s2`` with the session id and question of account ``s1``, on SQLite and PostgreSQL, and check
that nothing is answered, ended, flagged or marked for ``s1``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gradio as gr
import pytest

from quizbot import accounts
from quizbot.config import load_settings
from quizbot.practice import service as practice
from quizbot.ui.app import build_app
from quizbot.ui.context import UiContext
from quizbot.ui.identity import NOT_YOURS
from storage import Database
from storage.review import list_flags
from tests.ui.test_practice import stored

PASSWORD = "a long enough password"


def _by(name: str) -> Any:
    return SimpleNamespace(username=name)


def _handler(app: gr.Blocks, elem_id: str, event: str = "click") -> Callable[..., Any]:
    """The function Gradio runs for ``event`` of the component ``elem_id`` (role guard on)."""
    (target,) = [b for b in app.blocks.values() if getattr(b, "elem_id", None) == elem_id]
    for block_fn in app.fns.values():
        if (target._id, event) in [(t[0], t[1]) for t in block_fn.targets] and block_fn.fn:
            return block_fn.fn
    raise AssertionError(f"no {event} handler on {elem_id}")


def _as(who: str, fn: Callable[..., Any], *args: Any) -> Any:
    """Call ``fn`` as Gradio does for account ``who``: the request is passed when the function
    asks for one (a ``gr.Request`` parameter), as the account the gate let in."""
    wants = any(p.annotation is gr.Request for p in inspect.signature(fn).parameters.values())
    return fn(*args, _by(who)) if wants else fn(*args)


@pytest.fixture
def school(db: Database, tmp_path: Path) -> tuple[UiContext, gr.Blocks]:
    """Two student accounts and the app built in accounts mode over ``db``."""
    for name in ("s1", "s2"):
        accounts.create_user(db, name, "student", PASSWORD)
    ctx = UiContext(load_settings(home=str(tmp_path / "home"), database_url=db.url), db)
    assert ctx.accounts_mode()
    return ctx, build_app(ctx.settings, db, ctx)


def _start(app: gr.Blocks, who: str, session: int | None = None) -> tuple[int, Any]:
    """Start a 3-question true/false session as ``who``: (session id, first question)."""
    start = _handler(app, "qb-practice-start")
    form = ["typed name", "clinical-core", "all", "statement", 3, "", session, "", []]
    out = _as(who, start, *form)
    session_id, question = out[-3], out[-2]
    assert isinstance(session_id, int) and question is not None, out
    return session_id, question


def test_practice_handlers_refuse_another_accounts_session(
    school: tuple[UiContext, gr.Blocks],
) -> None:
    ctx, app = school
    mine, question = _start(app, "s1")
    true = _handler(app, "qb-practice-true")
    attempts: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
        ("True", true, (mine, question, [])),
        ("typed", _handler(app, "qb-practice-answer", "submit"), ("T", mine, question, [])),
        ("Submit", _handler(app, "qb-practice-submit"), ("Submit A", None, mine, question, [])),
        ("Next", _handler(app, "qb-practice-next"), (mine, question, [])),
        ("End", _handler(app, "qb-practice-end"), (mine, [])),
        ("Resume", _handler(app, "qb-practice-resume-go"), (mine, None, [])),
        ("a flag", _handler(app, "qb-practice-flag-send"), ("wrong key", "", mine, question.id)),
        # Start ends the session the tab ran before: not another account's
        ("Start", _handler(app, "qb-practice-start"),
         ("x", "clinical-core", "all", "statement", 3, "", mine, "", [])),
    ]  # fmt: skip
    for what, fn, args in attempts:
        with pytest.raises(gr.Error, match=NOT_YOURS):
            _as("s2", fn, *args)
        view = practice.session_view(ctx.db, mine)
        assert (view.status, view.answered) == ("active", 0), what
        assert stored(ctx.db, mine) == [], what
    assert list_flags(ctx.db) == []
    # s2's own session, and s1 in s1's session, work as before
    theirs, _ = _start(app, "s2")
    assert theirs != mine and practice.session_belongs_to(ctx.db, theirs, "s2")
    out = _as("s1", true, mine, question, [])
    assert out[-3] == mine and len(stored(ctx.db, mine)) == 1
    # a session id that does not exist is refused the same way
    with pytest.raises(gr.Error, match=NOT_YOURS):
        _as("s2", true, 10**9, question, [])


def test_recall_handlers_refuse_another_accounts_session(
    school: tuple[UiContext, gr.Blocks],
) -> None:
    ctx, app = school
    start = _handler(app, "qb-recall-start")
    form = ["typed name", "clinical-core", "all", 2, "", "", None]
    out = _as("s1", start, *form)
    mine, question = out[8], out[9]
    assert isinstance(mine, int) and question is not None, out
    attempts: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
        ("Submit", _handler(app, "qb-recall-submit"), ("fever", mine, question)),
        ("Next", _handler(app, "qb-recall-next"), (mine,)),
        ("End", _handler(app, "qb-recall-end"), (mine,)),
        ("a mark", _handler(app, "qb-recall-mark-save"), (mine, f"{question.id}\x1fx", "right")),
        ("Start", start, ("x", "clinical-core", "all", 2, "", "", mine)),
        ("Resume", _handler(app, "qb-recall-resume-go"), (mine, None)),
        ("Resume over", _handler(app, "qb-recall-resume-go"), (None, mine)),
        # a review or due session ends the section's earlier session: not another account's
        ("Review", _handler(app, "qb-recall-review"), ("x", "clinical-core", "all", 2, mine)),
        ("Due", _handler(app, "qb-recall-due-start"), ("x", "clinical-core", "all", 2, mine)),
    ]  # fmt: skip
    for what, fn, args in attempts:
        with pytest.raises(gr.Error, match=NOT_YOURS):
            _as("s2", fn, *args)
        view = practice.session_view(ctx.db, mine)
        assert (view.status, view.answered) == ("active", 0), what
        assert stored(ctx.db, mine) == [], what
    # s1 answers its own question
    _as("s1", _handler(app, "qb-recall-submit"), "fever", mine, question)
    assert len(stored(ctx.db, mine)) == 1
