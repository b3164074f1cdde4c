"""A practice session planned ahead: when a stored plan may stand in for planning at the start.

A free-practice session is a pure function of the student's history in the KB (their answers,
whose sessions' configs name the facts, and their exam sessions' states, which seal answers),
the retired items, the KB (with its reviewers' overrides), what the start asks for (topics,
format, length) and the session's seed, which a start draws at random when none is given. None
of it depends on the date or the clock. So a plan made when the student's previous session
ended (:mod:`quizbot.practice.next_plan`, with a seed drawn then) is exactly the session a start
would plan with that seed, as long as none of those inputs changed.

:func:`basis` digests the inputs (the history by its *mark*: :class:`storage.practice_plans.
HistoryMark`), and a start (:func:`use_stored_plan`) takes a stored plan only when its basis,
its params and (if the start names one) its seed all match; anything else, or a row that
cannot be read as a plan, and the start plans as it always did. A plan is taken once: the
start deletes it in the transaction that records the session, so two starts never share a seed.
A start that finds its plan stale deletes it too (unless stored again meanwhile).
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from quizbot import __version__
from quizbot.domain import Respondent
from quizbot.kb.model import KnowledgeBaseData
from quizbot.practice.facts import _kb_cache
from quizbot.practice.views import CONFIG_VERSION, Topic
from storage import Database
from storage.practice_plans import (
    HistoryMark,
    StartProbe,
    create_session_from_plan,
    delete_plan,
)
from storage.sessions import LoadedSession

__all__ = ["PLAN_VERSION", "basis", "code_digest", "plan_params", "use_stored_plan", "valid_config"]

log = logging.getLogger(__name__)

# Raise when what a stored plan means changes (its row's shape): every stored plan is then
# stale. A change of the code that plans needs no raise: :func:`code_digest` sees it.
PLAN_VERSION = 1

# The code a plan may depend on: the planner, the KB it reads, the questions it generates, the
# transforms and items beside them, the storage that reads the history. The whole of both
# packages, since a module left out would let its change through: any change of their source
# makes every stored plan stale (a start plans again), so a plan made by one release is never
# taken by another, whatever its version number says. About 40 ms, once a process.
_PLANNING_CODE = ("quizbot", "storage")


@functools.cache
def code_digest() -> str:
    """A digest of the source of the packages that plan a session (read once a process)."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for folder in _PLANNING_CODE:
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def plan_params(kb: str, chosen: Sequence[Topic], format: str, length: int) -> dict[str, Any]:
    """What a start asks for, as a stored plan records it."""
    return {"kb": kb, "topics": [t.key for t in chosen], "format": format, "length": length}


def basis(kb: KnowledgeBaseData, retired: set[str], mark: HistoryMark) -> str:
    """A digest of everything a plan is computed from but what the start asks for and the
    seed: the code's versions, the KB's fingerprint, the retired items, the history's mark."""
    parts = (
        PLAN_VERSION,
        code_digest(),
        CONFIG_VERSION,
        __version__,
        _kb_cache(kb).fingerprint(),
        hashlib.sha256("\x1f".join(sorted(retired)).encode()).hexdigest(),
        tuple(mark),
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def valid_config(config: Any) -> bool:
    """Whether ``config`` reads as a free-practice session's config (a stored row may be
    corrupt: never record a session from one that is not)."""
    if not isinstance(config, Mapping):
        return False
    items = config.get("items")
    return (
        isinstance(config.get("seed"), str)
        and config.get("version") == CONFIG_VERSION
        and config.get("review") is False
        and isinstance(items, list)
        and bool(items)
        and all(
            isinstance(e, Mapping)
            and isinstance(e.get("id"), str)
            and isinstance(e.get("fact"), str)
            for e in items
        )
        and isinstance(config.get("labels"), Mapping)
        and isinstance(config.get("relation_labels"), Mapping)
        and isinstance(config.get("notes"), list)
    )


def use_stored_plan(
    db: Database,
    kb: KnowledgeBaseData,
    respondent: Respondent,
    probe: StartProbe,
    params: dict[str, Any],
    *,
    seed: str | None,
    cohort: str | None,
) -> LoadedSession | None:
    """Record the session of the student's stored plan when it is still the one a start would
    plan (see the module docstring) and return it as read back; ``None`` when it is not, or
    is gone: then plan."""
    plan, mark = probe.plan, probe.mark
    if plan is None or mark is None or respondent.id is None:
        return None
    config = plan.config
    if plan.params != params or not valid_config(config):
        return None
    if seed is not None and config["seed"] != seed:
        return None
    if plan.basis != basis(kb, probe.retired, mark):
        # Stale (a release, an edited KB, an answer since): this start plans. Dropping the
        # plan keeps a replica renewing stale plans (next_plan.refresh_stale) from planning
        # it again for a student already practising, in the CPU a class's starts need.
        delete_plan(db, respondent.id, kb.name, basis=plan.basis)
        return None
    row = create_session_from_plan(
        db, respondent.id, kb.name, plan.basis, {**config, "cohort": cohort}
    )
    return None if row is None else LoadedSession(row, respondent, [])
