"""What the Practice tab's session start costs beyond the practice service (issue 32).

The ``practice_start`` endpoint, run as Gradio runs it (``Blocks.process_api``), with its
statements counted by a SQLAlchemy event: besides :func:`quizbot.practice.service.start_session`
a start reads the KB's licence alone (never the listing's count of every KB's points) and ends
the session the tab leaves behind in one UPDATE (never reading it first and after). Its outputs:
a start knows what the tab shows (its question and flag states), so the updates that would
leave a control as it is are skipped, and the page ends up exactly as with every update sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from gradio.state_holder import SessionState
from sqlalchemy import event

from quizbot.config import load_settings
from quizbot.kb.registry import get_kb, kb_license, kb_listing
from quizbot.practice import service
from quizbot.practice.service import answer, end_session, start_session
from quizbot.ui import practice as ui
from quizbot.ui.app import build_app
from quizbot.ui.context import UiContext
from quizbot.ui.practice import screen as practice_screen
from quizbot.ui.practice.render import license_note
from storage import Database
from storage.sessions import abandon_if_active, load_session
from tests.ui.test_practice_render import CONTROLS, NEXT, _apply, _initial_controls, is_skip

FLAG_BOX = -5  # among the outputs: ..., flag box, flag state, session, question, chat


@pytest.fixture
def app(db: Database) -> Any:
    settings = load_settings(models=["openai/stub"], database_url=db.url)
    return build_app(settings, db, UiContext(settings, db))


def _start_fn(app: Any) -> Any:
    return next(f for f in app.fns.values() if f.api_name == "practice_start")


def _start(app: Any, state: SessionState, student: str = "ada") -> list[Any]:
    fn = _start_fn(app)
    inputs = [student, "clinical-core", "all", "statement", 10, "", None, None, None]
    inputs += [None] * (len(fn.inputs) - len(inputs))  # the states: Gradio takes them from state
    out = asyncio.run(app.process_api(block_fn=fn, inputs=inputs, state=state, request=None))
    return list(out["data"])


@pytest.fixture
def outside_the_service(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[tuple[str, Any]]]:
    """The statements run meanwhile, with their parameters, but for those of
    ``start_session_and_ask`` (the start and its first question; the service's own cost is
    bounded in tests/practice/test_start_cost.py) and of the due panel's count (read after
    every start in a request of its own before Part 7 of docs/performance.md, now with the
    start's outputs; an answer counts it in one query)."""
    seen: list[tuple[str, Any]] = []
    paused: list[bool] = []
    original = service.start_session_and_ask

    def counted(*args: Any, **kwargs: Any) -> Any:
        paused.append(True)
        try:
            return original(*args, **kwargs)
        finally:
            paused.pop()

    def count(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_args: Any) -> None:
        if not paused:
            seen.append((" ".join(statement.split()), parameters))

    def due_counted(*args: Any, **kwargs: Any) -> Any:
        paused.append(True)
        try:
            return original_due(*args, **kwargs)
        finally:
            paused.pop()

    original_due = service.count_due_now
    monkeypatch.setattr(service, "start_session_and_ask", counted)
    monkeypatch.setattr(service, "count_due_now", due_counted)
    event.listen(db.engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", count)


def test_a_start_reads_the_licence_alone_and_leaves_the_old_session_in_one_update(
    app: Any,
    db: Database,
    outside_the_service: list[tuple[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "No accounts yet" is asked again after 2 s (quizbot.ui.context): on a loaded machine the
    # starts below can be further apart than that, and the re-check is not the start's cost.
    monkeypatch.setattr("quizbot.ui.context.ACCOUNTS_RECHECK_S", 3600.0)
    _start(app, SessionState(app), student="warm")  # the process's one-time reads (accounts?)
    outside_the_service.clear()
    state = SessionState(app)
    _start(app, state)
    first = [s for s, _ in outside_the_service]
    old = state[_state_id(app, "session")]
    outside_the_service.clear()
    data = _start(app, state)
    second = [s for s, _ in outside_the_service]

    assert not [s for s in first + second if "GROUP BY" in s], "the KB listing was read"
    assert any("FROM knowledge_base" in s for s in second)  # the licence, one row
    touching_old = [
        s.split(" ")[0]
        for s, params in outside_the_service
        if "quiz_session" in s and old in _values(params)
    ]
    assert touching_old == ["UPDATE"]  # not read before or after
    # Beyond start_session_and_ask (its first question is built from the session it recorded,
    # not read back: 4 statements less): the licence (1), the old session (1), and
    # transactions; 9 and 22 before Part 6 of docs/performance.md, 2 and 4 now.
    assert len(first) <= 3 and len(second) <= 6, (len(first), len(second))
    assert load_session(db, old).session.status == "abandoned"
    assert data[0].model_dump()["session"]["id"] != old


def _values(params: Any) -> list[Any]:
    """A statement's parameter values (a tuple on SQLite, a dict on PostgreSQL)."""
    return list(params.values()) if isinstance(params, dict) else list(params or ())


def _state_id(app: Any, name: str) -> int:
    """The block id of the practice tab's ``name`` state (its session or question)."""
    fn = _start_fn(app)
    states = [b for b in fn.inputs if b.stateful]
    # the start's inputs: session, chat, question, flag (in that order among the states)
    return int({"session": states[0], "question": states[2], "flag": states[3]}[name]._id)


def test_leaving_a_session_abandons_only_an_active_one(db: Database) -> None:
    running = start_session(db, student="lea", length=2, seed="a")
    assert abandon_if_active(db, running.id) is True
    after = load_session(db, running.id).session
    assert after.status == "abandoned" and after.finished_at is not None
    assert abandon_if_active(db, running.id) is False
    assert load_session(db, running.id).session.finished_at == after.finished_at

    done = start_session(db, student="lea", length=1, seed="b")
    answer(db, done.id, f"s{done.id}q1", "true")
    assert abandon_if_active(db, done.id) is False
    assert load_session(db, done.id).session.status == "finished"
    assert end_session(db, done.id).status == "finished"  # the same rule as End
    assert abandon_if_active(db, 10**9) is False


def test_the_licence_read_alone_is_the_listings(db: Database) -> None:
    get_kb(db, "clinical-core")
    listing = kb_listing(db)
    assert any(e.license for e in listing)  # a licence to compare, not only blanks
    for entry in listing:
        assert kb_license(db, entry.name) == (entry.license or "")
    assert kb_license(db, "no-such-kb") == ""
    licence = kb_license(db, "clinical-core")
    assert license_note("clinical-core", licence) == ui.kb_note(listing, "clinical-core")


def test_a_start_in_a_fresh_tab_sends_only_the_updates_that_change_something(
    app: Any,
) -> None:
    fn = _start_fn(app)
    assert [b._id for b in fn.inputs[-2:]] == [_state_id(app, "question"), _state_id(app, "flag")]
    out = _start(app, SessionState(app))
    controls = out[CONTROLS]
    letters = controls[2 : 2 + len(ui.LETTER_BUTTONS)]
    assert all(is_skip(v) for v in letters)  # hidden, and a statement shows none
    assert is_skip(controls[2 + len(ui.LETTER_BUTTONS)])  # Submit
    assert is_skip(out[NEXT]) and is_skip(out[FLAG_BOX])
    # of 31 (26 before the due panel and the flag form came with the screen: all 26 before
    # the skips); the due panel's three (text, button, what it counts for) are sent
    assert all(not is_skip(v) for v in out[practice_screen._DUE : practice_screen._DUE + 3])
    assert sum(not is_skip(v) for v in out) == 14 + 3


def _flag_of(update: Any, was: bool) -> bool:
    return was if is_skip(update) else bool(update["visible"])


@pytest.mark.parametrize("fmt", ["statement", "choice"])
def test_starts_leave_the_page_as_every_update_would(
    ctx: UiContext, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two browsers followed through starts in every situation a tab can be in (fresh; a
    session over, its last question flaggable; a question of the other format on screen): one
    given the handlers' outputs, the other every update computed without skipping."""
    full_controls: list[list[Any]] = []
    full_flags: list[list[Any]] = []
    original, original_flag = practice_screen._controls, practice_screen._flag_controls

    def unknown(screen: ui.Screen, fn: Any, into: list[list[Any]]) -> list[Any]:
        saved = screen.asked, screen.tab_known
        screen.asked, screen.tab_known = None, False
        into.append(fn(screen))
        screen.asked, screen.tab_known = saved
        return list(fn(screen))

    monkeypatch.setattr(practice_screen, "_controls", lambda s: unknown(s, original, full_controls))
    monkeypatch.setattr(
        practice_screen, "_flag_controls", lambda s: unknown(s, original_flag, full_flags)
    )
    hidden = {"visible": False}
    lean = [*_initial_controls(), dict(hidden), dict(hidden)]
    full = [*_initial_controls(), dict(hidden), dict(hidden)]
    flag = {"lean": False, "full": False}
    skipped = 0

    def step(out: tuple[Any, ...]) -> None:
        nonlocal skipped
        controls = list(out[CONTROLS])
        skipped += sum(map(is_skip, controls)) - sum(map(is_skip, full_controls[-1]))
        _apply(lean, controls)
        _apply(full, full_controls[-1])
        flag["lean"] = _flag_of(out[FLAG_BOX], flag["lean"])
        flag["full"] = _flag_of(full_flags[-1][0], flag["full"])
        assert lean == full and flag["lean"] == flag["full"]

    other = "choice" if fmt == "statement" else "statement"
    state: dict[str, Any] = {"session": None, "question": None, "chat": None, "flag": None}

    def start(kind: str, length: int) -> None:
        out = ui.start(
            ctx, "Ada", "clinical-core", "all", kind, float(length), None, state["session"],
            None, state["chat"], state["question"], state["flag"], tab_known=True,
        )  # fmt: skip
        step(out)
        keep(out)

    def keep(out: tuple[Any, ...]) -> None:
        if not is_skip(out[-3]):
            state["session"], state["question"] = out[-3], out[-2]
        if not is_skip(out[-1]):
            state["chat"] = out[-1]
        if not is_skip(out[FLAG_BOX]):
            state["flag"] = out[-4]

    def answer_one() -> None:
        q = state["question"]
        letters = ui.answer_letters(q)
        if letters:
            out = ui.submit_selection(ctx, letters[0], None, state["session"], q, state["chat"])
        else:
            out = ui.submit(ctx, "true", state["session"], q, state["chat"])
        step(out)
        keep(out)
        if state["question"] is not None and out[NEXT]["visible"]:
            out = ui.show_next(ctx, state["session"], state["question"], state["chat"])
            step(out)
            keep(out)

    start(fmt, 2)  # a fresh tab
    while state["question"] is not None:
        answer_one()
    assert state["flag"] is not None  # the last answer can be flagged: the box shows
    start(other, 3)  # a session over, its flag box showing
    answer_one()
    start(fmt, 2)  # the other format's question on screen (or its feedback)
    assert skipped > 0


@pytest.fixture
def ctx(db: Database) -> Iterator[UiContext]:
    yield UiContext(load_settings(models=["openai/stub"]), db)
