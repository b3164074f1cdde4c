"""Planning a student's next practice session when their last one ends (issue 32).

A start used to plan at the start: read the student's whole history, rank the KB's facts with
the session's seed, draw the variants. When a free-practice session ends (its last answer,
or End), :func:`plan_next` plans the next one the same way (same KB, topics, format and
length; a seed drawn now, as a start draws one) and stores it with the basis it was computed
from (:mod:`quizbot.practice.stored_plans`); the start that finds it still valid records it.
A plan made for nothing costs only CPU off the request path: :func:`schedule_next` runs it on
one background thread, and every failure there is logged and dropped (the start then plans).
"""

from __future__ import annotations

import logging
import secrets
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from quizbot.domain import SessionStatus
from quizbot.errors import QuizbotError
from quizbot.practice.facts import _history_of, _session_config, _store_planned_items
from quizbot.practice.planning import _chosen_topics, _plan_session
from quizbot.practice.stored_plans import basis, plan_params
from quizbot.practice.topics import _load_kb
from storage import Database
from storage.practice_plans import plan_inputs, store_plan
from storage.sessions import load_session

__all__ = ["plan_next", "schedule_next", "wait_planned"]

log = logging.getLogger(__name__)

_FREE_FORMATS = ("statement", "choice", "mixed")
_pools: list[ThreadPoolExecutor] = []  # the one background thread, made on first use
_pending: list[Future[bool]] = []
_lock = threading.Lock()


def plan_next(db: Database, session_id: int) -> bool:
    """Plan and store the next session after ``session_id`` (no longer active) of its student,
    when it was a free-practice session (not an assignment, a review or recall); returns
    whether a plan was stored. Nothing is stored when nothing can be asked."""
    loaded = load_session(db, session_id)
    row, config = loaded.session, loaded.session.config
    respondent_id = loaded.respondent.id
    if (
        respondent_id is None
        or row.status == SessionStatus.ACTIVE.value
        or row.assignment_id is not None
        or config.get("assignment") is not None
        or config.get("mode") is not None
        or config.get("review") is not False
        or config.get("format") not in _FREE_FORMATS
    ):
        return False
    topics = config.get("topics")
    keys = [str(k) for k in topics] if isinstance(topics, list) else []
    if not keys and isinstance(config.get("topic"), str):
        keys = [config["topic"]]
    length, format = config.get("length"), str(config["format"])
    if not isinstance(length, int):
        return False
    kb_data, kb_id = _load_kb(db, row.kb_name)
    chosen = _chosen_topics(kb_data, None, keys)
    inputs = plan_inputs(db, respondent_id, kb_data.name)
    history = _history_of(inputs.history)
    history.retired = inputs.retired
    try:
        planned, plan = _plan_session(
            kb_data,
            chosen,
            format=format,
            length=length,
            seed=secrets.token_hex(4),
            review=False,
            history=history,
            cohort=None,
        )
    except QuizbotError:  # nothing left to ask: the start will say so
        return False
    _store_planned_items(db, kb_data, kb_id, planned)
    store_plan(
        db,
        respondent_id,
        kb_data.name,
        params=plan_params(kb_data.name, chosen, format, length),
        basis=basis(kb_data, inputs.retired, inputs.mark),
        config=_session_config(kb_data, planned, plan),
    )
    return True


def _run(db: Database, session_id: int) -> bool:
    try:
        return plan_next(db, session_id)
    except Exception:  # off the request path: a failure only means the start plans
        log.exception("practice: could not plan the session after %s", session_id)
        return False


def schedule_next(db: Database, session_id: int) -> None:
    """Run :func:`plan_next` for ``session_id`` on the background thread (one for the
    process: planning is CPU bound, and the GIL gives more threads nothing)."""
    with _lock:
        if not _pools:
            _pools.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="practice-plan"))
        _pending[:] = [f for f in _pending if not f.done()]
        _pending.append(_pools[0].submit(_run, db, session_id))


def wait_planned(timeout: float | None = None) -> None:
    """Wait until every plan scheduled so far is made (tests and benchmarks)."""
    with _lock:
        waiting = list(_pending)
    for future in waiting:
        future.result(timeout=timeout)
