"""An assignment's window: when students may start it and answer it.

An assignment may have an opening and a closing moment (``opens_at``, ``closes_at``, UTC).
Before it opens nothing can be started or answered; from the moment it closes no session can be
started and no answer is taken (a session begun in time is not finished for the student: the
answers given stand, the rest stay unanswered). Both ends are checked on the server, when a
session starts and when each answer arrives, so a page left open past the close cannot slip an
answer in. Models are not bound by the window: an instructor runs them when they choose.
"""

from __future__ import annotations

from datetime import UTC, datetime

from quizbot import clock
from quizbot.domain import Assignment
from quizbot.errors import InputError

__all__ = ["check_window", "window_text"]


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def window_text(assignment: Assignment) -> str:
    """The window in words ("always open", "opens ..., closes ...")."""
    parts = []
    if assignment.opens_at is not None:
        parts.append(f"opens {_when(assignment.opens_at)}")
    if assignment.closes_at is not None:
        parts.append(f"closes {_when(assignment.closes_at)}")
    return ", ".join(parts) or "always open"


def check_window(assignment: Assignment, doing: str, now: datetime | None = None) -> None:
    """:class:`InputError` when ``assignment`` is not open at ``now`` (default: the clock).

    ``doing`` names what was refused ("started", "answered") for the message.
    """
    at = now or clock.now()
    if assignment.opens_at is not None and at < assignment.opens_at:
        raise InputError(
            f"assignment {assignment.name!r} opens on {_when(assignment.opens_at)}; "
            f"it cannot be {doing} before then",
            hint="come back once it has opened",
        )
    if assignment.closes_at is not None and at >= assignment.closes_at:
        raise InputError(
            f"assignment {assignment.name!r} closed on {_when(assignment.closes_at)}; "
            f"it can no longer be {doing}",
            hint="ask your instructor if you think this is a mistake",
        )
