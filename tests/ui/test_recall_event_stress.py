"""The handlers a recall session's last answer sets off, in the order the browser fires them,
from many threads at once, on both backends, with stored practice plans being made on the
background thread: none waits on another (issue 31's hung "Review my recall mistakes").

The browser runs a click's handler, then its ``.then`` steps, one after the other; a student who
presses "Review my recall mistakes" as the last answer comes back makes the review start run
beside the due-line refresh that follows the answer. Here every student does that on a thread
of their own, while other students end free-practice sessions (each ending schedules a stored
plan on the background thread, :mod:`quizbot.practice.next_plan`). A deadlock would leave
threads waiting: :func:`faulthandler.dump_traceback_later` writes every stack then, and the
test fails on the bound instead of hanging.
"""

from __future__ import annotations

import faulthandler
import sys
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from quizbot.config import load_settings
from quizbot.practice import next_plan
from quizbot.practice.service import answer, end_session, next_question, start_session
from quizbot.ui import recall_practice as recall
from quizbot.ui.context import UiContext
from storage import Database

STUDENTS = 6
ROUNDS = 3
BOUND_S = 240.0  # the whole run under load; a lock cycle waits forever


def _screen_ok(screen: tuple[Any, ...], what: str) -> None:
    status = screen[0]
    assert not (isinstance(status, str) and "Could not" in status), f"{what}: {status}"


def _student_rounds(ctx: UiContext, name: str, errors: list[str]) -> None:
    try:
        for _ in range(ROUNDS):
            screen = recall.start(ctx, name, "", "relation:has_symptom", 2, None, None, None)
            _screen_ok(screen, "start")
            session_id, question = screen[8], screen[9]
            screen = recall.submit(ctx, "I don't know", session_id, question)
            _screen_ok(screen, "first answer")
            screen = recall.show_next(ctx, session_id)
            _screen_ok(screen, "next")
            question = screen[9]
            screen = recall.submit(ctx, "fever", session_id, question)  # the last answer
            _screen_ok(screen, "last answer")
            # The answer's .then (the due line) and the click on "Review my recall mistakes"
            # run together.
            due = threading.Thread(target=recall.refresh_due, args=(ctx, name, ""))
            due.start()
            screen = recall.start_review(ctx, name, "", "relation:has_symptom", 2, session_id)
            _screen_ok(screen, "review start")
            recall.settle(ctx, None, screen[8])
            recall.refresh_due(ctx, name, "")
            due.join(BOUND_S)
            assert not due.is_alive(), "the due line never came back"
            recall.end(ctx, screen[8])
    except BaseException as exc:  # reported by the main thread
        errors.append(f"{name}: {type(exc).__name__}: {exc}")


def _planner(db: Database, stop: threading.Event, errors: list[str]) -> None:
    """Free-practice sessions ended one after another: a stored plan is made after each."""
    try:
        n = 0
        while not stop.is_set():
            n += 1
            view = start_session(db, student=f"Planner {n % 3}", length=2, seed=f"p{n}")
            question = next_question(db, view.id)
            assert question is not None
            answer(db, view.id, question.id, "idk")
            end_session(db, view.id)
            next_plan.schedule_next(db, view.id)
    except BaseException as exc:
        errors.append(f"planner: {type(exc).__name__}: {exc}")


def _run_all(targets: list[Callable[[], None]]) -> list[threading.Thread]:
    threads = [threading.Thread(target=t, daemon=True) for t in targets]
    for thread in threads:
        thread.start()
    return threads


@pytest.mark.slow
def test_a_last_answer_its_due_refresh_and_a_review_start_never_wait_on_each_other(
    db: Database,
) -> None:
    ctx = UiContext(load_settings(), db)
    errors: list[str] = []
    stop = threading.Event()
    faulthandler.dump_traceback_later(BOUND_S, exit=False, file=sys.stderr)
    try:
        planner = _run_all([partial(_planner, db, stop, errors)])[0]
        students = _run_all(
            [partial(_student_rounds, ctx, f"Stress Student {i}", errors) for i in range(STUDENTS)]
        )
        for thread in students:
            thread.join(BOUND_S)
        stop.set()
        planner.join(BOUND_S)
        next_plan.wait_planned(timeout=BOUND_S)
        stuck = [t.name for t in [*students, planner] if t.is_alive()]
    finally:
        faulthandler.cancel_dump_traceback_later()
    assert not stuck, f"threads still waiting after {BOUND_S} s: {stuck}"
    assert not errors, errors
