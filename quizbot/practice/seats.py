"""Who may sit an assignment: an exam is open only to its cohort.

The app knows who is asking in accounts mode (a logged-in account, with its cohort) and in
proxy mode (a name an authenticating proxy sends, which may have no account here); the UI hands
that to the service as a :class:`Sitter`. Local mode and the command line pass none: there is
one trusted user and the typed cohort is only a label.

The rules (:func:`check_seat`), for a known sitter:

* another cohort's assignment (exam or practice) is unknown to them (:class:`NotFoundError`,
  the same answer as for a name that does not exist), so its instructor never sees them;
* an exam of a cohort is refused to a student with no cohort: without this an account made
  without ``--cohort`` sat every cohort's exam, and could answer it before that cohort did;
* an exam is refused to a name with no account here (proxy mode): an exam's results belong to
  a known person of its cohort, and the proxy gives no cohort.

Exams of no cohort stay open to every account; practice assignments of a cohort stay open to
accounts of no cohort (their feedback reveals the answers anyway).
"""

from __future__ import annotations

from dataclasses import dataclass

from quizbot.domain import Assignment, AssignmentMode
from quizbot.errors import InputError, NotFoundError
from quizbot.practice.topics import _cohort

__all__ = ["Sitter", "check_seat"]


@dataclass(frozen=True)
class Sitter:
    """Who starts an assignment, as the server knows them (accounts and proxy modes)."""

    cohort: str | None  # the account's cohort; None: it has none
    account: bool = True  # False: a name a login proxy sent, with no account here


def check_seat(found: Assignment, sitter: Sitter | None, cohort: str | None = None) -> None:
    """Refuse ``found`` to ``sitter`` when it is not theirs to sit (see the module docstring).

    ``sitter`` None (local mode, the command line): only ``cohort``, when given, is checked as
    before: another cohort's assignment is unknown. Raises :class:`NotFoundError` for another
    cohort's assignment and :class:`InputError` (a message a student can act on) otherwise.
    """
    mine = sitter.cohort if sitter is not None else cohort
    if mine and found.cohort and _cohort(found.cohort) != _cohort(mine):
        raise NotFoundError(f"no assignment {found.name!r}", hint="see `quizbot assignment list`")
    if sitter is None or found.mode != AssignmentMode.EXAM.value:
        return
    if not sitter.account:
        raise InputError(
            f"assignment {found.name!r} is an exam, and exams are open only to students with "
            "an account here (your sign-in names you, but no account of this app is yours)",
            hint="ask your instructor to make you an account in the exam's cohort",
        )
    if found.cohort and not sitter.cohort:
        raise InputError(
            f"assignment {found.name!r} is an exam for one cohort, and your account belongs to "
            "no cohort",
            hint="ask your instructor to put your account in the exam's cohort",
        )
