"""Planning a student's next practice session when their last one ends (issue 32).

A start used to plan at the start: read the student's whole history, rank the KB's facts with
the session's seed, draw the variants. When a free-practice session ends (its last answer,
or End), :func:`plan_next` plans the next one the same way (same KB, topics, format and
length; a seed drawn now, as a start draws one) and stores it with the basis it was computed
from (:mod:`quizbot.practice.stored_plans`); the start that finds it still valid records it.
A plan made for nothing costs only CPU off the request path: :func:`schedule_next` runs it on
one background thread, and every failure there is logged and dropped (the start then plans).

A stored plan is stale after any release (:func:`quizbot.practice.stored_plans.code_digest`
covers the source), so the first start of every returning student after a deployment would
plan at the start, the whole class at once. :func:`refresh_stale`, which ``quizbot serve``
schedules on the same thread when it starts (:func:`schedule_refresh`), plans those again
with what each asked for, so the class finds fresh plans. Replicas starting together each
walk the plans in an order of their own and skip one another's fresh ones, so they mostly
share the work.
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

from quizbot.domain import SessionStatus
from quizbot.errors import QuizbotError
from quizbot.practice.facts import _history_of, _session_config, _store_planned_items
from quizbot.practice.planning import _chosen_topics, _plan_session
from quizbot.practice.stored_plans import basis, plan_params
from quizbot.practice.topics import _load_kb
from storage import Database
from storage.practice_plans import PlanKey, plan_inputs, plan_keys, plan_mark, store_plan
from storage.sessions import load_session

__all__ = [
    "Refreshed",
    "plan_next",
    "refresh_stale",
    "schedule_next",
    "schedule_refresh",
    "wait_planned",
]

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
    return _plan_and_store(db, respondent_id, row.kb_name, keys, format, length) == "stored"


def _plan_and_store(
    db: Database,
    respondent_id: int,
    kb_name: str,
    keys: list[str],
    format: str,
    length: int,
) -> Literal["stored", "nothing to ask"]:
    """Plan the student's next free-practice session on ``kb_name`` with a fresh seed and
    store it."""
    kb_data, kb_id = _load_kb(db, kb_name)
    chosen = _chosen_topics(kb_data, None, keys)
    inputs = plan_inputs(db, respondent_id, kb_data.name)
    now = basis(kb_data, inputs.retired, inputs.mark)
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
        return "nothing to ask"
    _store_planned_items(db, kb_data, kb_id, planned)
    store_plan(
        db,
        respondent_id,
        kb_data.name,
        params=plan_params(kb_data.name, chosen, format, length),
        basis=now,
        config=_session_config(kb_data, planned, plan),
    )
    return "stored"


@dataclass(frozen=True)
class Refreshed:
    """What :func:`refresh_stale` did: plans stored again, found fresh, left (a failure or
    nothing left to ask: the start plans), and the seconds it took."""

    planned: int
    fresh: int
    left: int
    seconds: float


def _asked(params: Any) -> tuple[list[str], str, int] | None:
    """The topics, format and length a stored plan's ``params`` ask for; None if unreadable."""
    if not isinstance(params, Mapping):
        return None
    topics, format, length = params.get("topics"), params.get("format"), params.get("length")
    if not isinstance(topics, list) or format not in _FREE_FORMATS or not isinstance(length, int):
        return None
    return [str(t) for t in topics], str(format), length


def _still_fresh(db: Database, key: PlanKey) -> bool:
    """Whether the plan needs nothing: its basis, read now (another replica may have renewed
    it since :func:`plan_keys`), is the current one, or a start has taken it."""
    kb_data, _kb_id = _load_kb(db, key.kb_name)
    mark, retired, stored = plan_mark(db, key.respondent_id, key.kb_name)
    return stored is None or basis(kb_data, retired, mark) == stored


def refresh_stale(
    db: Database, *, order: Callable[[list[PlanKey]], None] | None = None
) -> Refreshed:
    """Plan again every stored plan whose basis is not the current one (a release, an edited
    KB, a retired item), with the topics, format and length it asked for and a fresh seed.

    A plan found fresh (this release made it, or another replica just did) is left as it is.
    ``order`` shuffles the plans in place (default: at random, so replicas starting together
    mostly take different plans first). One plan's failure is logged and the rest go on.
    """
    began = time.perf_counter()
    keys = plan_keys(db)
    (order or random.SystemRandom().shuffle)(keys)
    planned = fresh = left = 0
    for key in keys:
        asked = _asked(key.params)
        if asked is None:
            left += 1
            continue
        try:
            if _still_fresh(db, key):  # the usual case on a restart: no history read
                fresh += 1
                continue
            done = _plan_and_store(db, key.respondent_id, key.kb_name, *asked)
        except QuizbotError as exc:  # a KB or topic that is gone
            log.info(
                "practice: stored plan of respondent %s not renewed: %s", key.respondent_id, exc
            )
            left += 1
            continue
        except Exception:  # off the request path: the student's start plans instead
            log.exception("practice: stored plan of respondent %s not renewed", key.respondent_id)
            left += 1
            continue
        if done == "stored":
            planned += 1
        else:
            left += 1
    return Refreshed(planned, fresh, left, time.perf_counter() - began)


def _refresh(db: Database) -> bool:
    try:
        done = refresh_stale(db)
    except Exception:  # e.g. the database went away: the starts plan
        log.exception("practice: stale plans not renewed")
        return False
    if done.planned or done.left:
        log.info(
            "practice: %d stale stored plans made again in %.1f s "
            "(%d already fresh, %d left to their starts)",
            done.planned, done.seconds, done.fresh, done.left,
        )  # fmt: skip
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
    _submit(_run, db, session_id)


def _submit(fn: Callable[..., bool], *args: Any) -> None:
    with _lock:
        if not _pools:
            _pools.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="practice-plan"))
        _pending[:] = [f for f in _pending if not f.done()]
        _pending.append(_pools[0].submit(fn, *args))


def schedule_refresh(db: Database) -> None:
    """Run :func:`refresh_stale` on the background planner thread (``quizbot serve`` at its
    start; a session's own next plan queues behind it)."""
    _submit(_refresh, db)


def wait_planned(timeout: float | None = None) -> None:
    """Wait until every plan scheduled so far is made (tests and benchmarks)."""
    with _lock:
        waiting = list(_pending)
    for future in waiting:
        future.result(timeout=timeout)
