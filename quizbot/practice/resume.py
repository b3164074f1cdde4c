"""Coming back to practice: idle sessions closed, the student's active session offered again.

A page reload loses the browser's state, not the session: it stays ``active`` in the database
with its answers. When the student enters their pseudonym again (in accounts mode: when their
account loads the page; the account's name is their pseudonym), :func:`resumable_session`
offers their newest active free-practice session (assignments are resumed by entering the
assignment's name); :func:`quizbot.practice.feedback.next_question` then goes on where they left.

A session nobody answers for :data:`IDLE_TIMEOUT` (``QUIZBOT_PRACTICE_IDLE_HOURS``, 12 hours by
default) is closed as ``abandoned``, lazily: whenever a student's sessions are looked up here,
listed (:func:`quizbot.practice.reports.progress`) or a new one is started
(:func:`quizbot.practice.planning.start_session`). Nothing runs in the background. Sessions on
an assignment are never closed for idleness.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from quizbot.domain import RespondentKind
from quizbot.errors import InputError
from quizbot.practice.facts import _view
from quizbot.practice.topics import _display_name
from quizbot.practice.views import IDLE_TIMEOUT, RECALL_FORMAT, SessionView
from storage import Database
from storage.practice_queries import active_sessions, close_idle_sessions
from storage.sessions import find_respondent, load_session
from storage.types import utcnow

__all__ = ["IDLE_TIMEOUT", "close_idle", "resumable_session"]


def close_idle(
    db: Database,
    respondent_id: int,
    *,
    idle_timeout: timedelta = IDLE_TIMEOUT,
    now: datetime | None = None,
) -> list[int]:
    """Close (``abandoned``) the respondent's free-practice sessions with no answer for
    ``idle_timeout``; returns their ids. ``now`` is for tests."""
    return close_idle_sessions(db, respondent_id, (now or utcnow()) - idle_timeout)


def resumable_session(
    db: Database,
    student: str,
    *,
    idle_timeout: timedelta = IDLE_TIMEOUT,
    now: datetime | None = None,
) -> SessionView | None:
    """The student's newest active free-practice session, to offer it again, or ``None``.

    Idle sessions are closed first, so a session left overnight is not offered. An unknown or
    unusable pseudonym has nothing to resume (``None``, no error: it is asked while typing).
    """
    try:
        name = _display_name(student).casefold()
    except InputError:
        return None
    respondent = find_respondent(db, RespondentKind.HUMAN, name)
    if respondent is None or respondent.id is None:
        return None
    close_idle(db, respondent.id, idle_timeout=idle_timeout, now=now)
    for newest in reversed(active_sessions(db, respondent.id)):
        loaded = load_session(db, newest.id)
        # The chat resumes its own sessions; an open recall session has its own section.
        if loaded.session.config.get("format") != RECALL_FORMAT:
            return _view(loaded)
    return None
