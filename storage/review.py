"""Repository functions for correcting knowledge without a release: flags, overrides, retirements.

People flag a question they have just answered (:func:`create_flag`); a reviewer decides about the
flagged item (:func:`decide_item`), which in one transaction records the KB overrides and the
retirement the decision implies and closes every open flag on that item. An instructor may also
retire an item from one assignment's scoring only (:func:`retire_from_assignment`,
``assignment_retired_items``): the same idea (the answers stay, the item no longer counts) for
one set of results. Overrides also arrive in
bulk from a clinician's review file (:func:`add_overrides`). Like :mod:`storage.repo`, every
function runs one transaction, takes plain values and returns the frozen records of
:mod:`quizbot.domain` (:class:`~quizbot.domain.ItemFlag`, :class:`~quizbot.domain.KbOverride`,
:class:`~quizbot.domain.RetiredItem`), never table rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from quizbot import domain
from quizbot.domain import MAX_FLAG_COMMENT, FlagDecision, FlagReason, FlagState, OverrideKind
from quizbot.errors import InputError, NotFoundError
from storage.engine import Database
from storage.models import (
    AssignmentItemRow,
    AssignmentRetiredItemRow,
    Item,
    ItemFlagRow,
    KbOverrideRow,
    QuizSession,
    RetiredItemRow,
)
from storage.records import to_record
from storage.repo import _insert_ignore, _integrity
from storage.types import utcnow

__all__ = [
    "Decided",
    "NewOverride",
    "add_overrides",
    "assignment_retired",
    "create_flag",
    "decide_item",
    "get_flag",
    "list_flags",
    "list_overrides",
    "list_retired",
    "restore_to_assignment",
    "retire_from_assignment",
    "retired_item_ids",
]

_BATCH = 500  # ids per IN (...) clause
_MAX_NAME = 200  # decided_by / created_by
_MAX_TEXT = 500  # head, tail


def _clean_text(value: str, field: str, limit: int, *, required: bool = False) -> str:
    """``value`` checked for what both backends would refuse or misstore, with a clear message."""
    if not isinstance(value, str):
        raise InputError("must be text", field=field)
    if "\x00" in value:
        raise InputError(
            "contains a NUL byte (\\x00), which cannot be stored",
            field=field,
            hint="remove the control character and try again",
        )
    if len(value) > limit:
        raise InputError(f"is longer than {limit} characters", field=field, hint="shorten it")
    if required and not value.strip():
        raise InputError("is empty", field=field)
    return value


@dataclass(frozen=True, slots=True)
class NewOverride:
    """A correction of one triplet of knowledge base ``kb_name`` to store."""

    kb_name: str
    head: str
    relation: str
    tail: str
    kind: OverrideKind
    source: str
    note: str = ""
    created_by: str = ""

    def row(self) -> dict[str, object]:
        """The values as a ``kb_overrides`` row (validated)."""
        return {
            "kb_name": _clean_text(self.kb_name, "kb", 100, required=True),
            "head": _clean_text(self.head, "head", _MAX_TEXT, required=True),
            "relation": _clean_text(self.relation, "relation", 100, required=True),
            "tail": _clean_text(self.tail, "tail", _MAX_TEXT, required=True),
            "kind": OverrideKind(self.kind).value,
            "note": _clean_text(self.note, "note", 10_000),
            "source": _clean_text(self.source, "source", 100, required=True),
            "created_by": _clean_text(self.created_by, "created_by", _MAX_NAME),
            "created_at": utcnow(),
        }


# --------------------------------------------------------------------------------------------
# Flags


def create_flag(
    db: Database,
    *,
    item_id: str,
    reason: FlagReason | str,
    comment: str = "",
    quiz_session_id: int | None = None,
) -> domain.ItemFlag:
    """Record an open flag on ``item_id``. Raises :class:`InputError` for an unknown reason, a
    comment over :data:`~quizbot.domain.MAX_FLAG_COMMENT` characters or holding a NUL byte, and
    :class:`NotFoundError` for an unknown item or session."""
    try:
        why = FlagReason(reason)
    except ValueError:
        choices = ", ".join(r.value for r in FlagReason)
        raise InputError(f"unknown reason {reason!r}", field="reason", hint=choices) from None
    text = _clean_text(comment, "comment", MAX_FLAG_COMMENT).strip()

    def _do(session: Session) -> domain.ItemFlag:
        if session.get(Item, item_id) is None:
            raise NotFoundError(f"no item {item_id!r}")
        if quiz_session_id is not None and session.get(QuizSession, quiz_session_id) is None:
            raise NotFoundError(f"no practice session {quiz_session_id}")
        row = ItemFlagRow(
            item_id=item_id, quiz_session_id=quiz_session_id, reason=why.value, comment=text
        )
        session.add(row)
        session.flush()
        return to_record(domain.ItemFlag, row)

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, "a flag") from None


def get_flag(db: Database, flag_id: int) -> domain.ItemFlag:
    """The flag ``flag_id``; :class:`NotFoundError` if there is none."""

    def _do(session: Session) -> domain.ItemFlag:
        row = session.get(ItemFlagRow, flag_id)
        if row is None:
            raise NotFoundError(f"no flag with id {flag_id}", hint="see `quizbot kb flags`")
        return to_record(domain.ItemFlag, row)

    return db.read(_do)


def list_flags(
    db: Database, *, state: FlagState | None = None, item_id: str | None = None
) -> list[domain.ItemFlag]:
    """Flags, oldest first; only those in ``state`` and on ``item_id`` when given."""
    stmt = select(ItemFlagRow).order_by(col(ItemFlagRow.id))
    if state is not None:
        stmt = stmt.where(col(ItemFlagRow.state) == FlagState(state).value)
    if item_id is not None:
        stmt = stmt.where(col(ItemFlagRow.item_id) == item_id)
    return db.read(
        lambda s: [to_record(domain.ItemFlag, r) for r in s.execute(stmt).scalars().all()]
    )


# --------------------------------------------------------------------------------------------
# Decisions, overrides, retirements


@dataclass(frozen=True, slots=True)
class Decided:
    """What :func:`decide_item` did: the flags it closed and what it stored anew."""

    flags: tuple[domain.ItemFlag, ...]
    new_overrides: int
    retired: bool


def decide_item(
    db: Database,
    *,
    item_id: str,
    decision: FlagDecision | str,
    decided_by: str,
    overrides: Sequence[NewOverride] = (),
    retire_reason: str | None = None,
    flag_id: int | None = None,
) -> Decided:
    """Record a decision about ``item_id`` in one transaction.

    Stores ``overrides`` (one already stored is kept as it is), retires the item when
    ``retire_reason`` is given (once; ``flag_id`` is the flag that led to it), and closes every
    open flag on the item: ``dismissed`` for :attr:`FlagDecision.DISMISS`, else ``resolved``,
    with the decision, who decided and when.
    """
    what = FlagDecision(decision)
    who = _clean_text(decided_by, "decided_by", _MAX_NAME, required=True)
    rows = [o.row() for o in overrides]
    reason = None if retire_reason is None else _clean_text(retire_reason, "reason", 10_000)
    state = FlagState.DISMISSED if what is FlagDecision.DISMISS else FlagState.RESOLVED

    def _do(session: Session) -> Decided:
        if session.get(Item, item_id) is None:
            raise NotFoundError(f"no item {item_id!r}")
        new = _insert_ignore(session, KbOverrideRow, rows)
        retired = False
        if reason is not None:
            retired = (
                _insert_ignore(
                    session,
                    RetiredItemRow,
                    [
                        {
                            "item_id": item_id,
                            "reason": reason,
                            "flag_id": flag_id,
                            "retired_at": utcnow(),
                        }
                    ],
                )
                == 1
            )
        open_ids = list(
            session.execute(
                select(col(ItemFlagRow.id)).where(
                    col(ItemFlagRow.item_id) == item_id,
                    col(ItemFlagRow.state) == FlagState.OPEN.value,
                )
            ).scalars()
        )
        if open_ids:
            session.execute(
                update(ItemFlagRow)
                .where(col(ItemFlagRow.id).in_(open_ids))
                .values(state=state.value, decision=what.value, decided_by=who, decided_at=utcnow())
            )
        closed = session.execute(
            select(ItemFlagRow)
            .where(col(ItemFlagRow.id).in_(open_ids))
            .order_by(col(ItemFlagRow.id))
            .execution_options(populate_existing=True)
        ).scalars()
        return Decided(tuple(to_record(domain.ItemFlag, r) for r in closed), new, retired)

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, "a decision") from None


def add_overrides(db: Database, overrides: Sequence[NewOverride]) -> int:
    """Store overrides in one transaction (all or none); return how many were new.

    An override already stored (same KB, triplet and kind) is kept as it is, so storing the same
    corrections twice is a no-op.
    """
    rows = [o.row() for o in overrides]

    def _do(session: Session) -> int:
        return sum(
            _insert_ignore(session, KbOverrideRow, rows[i : i + _BATCH])
            for i in range(0, len(rows), _BATCH)
        )

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, "an override") from None


def list_overrides(db: Database, kb_name: str | None = None) -> list[domain.KbOverride]:
    """Overrides (of ``kb_name`` when given), oldest first."""
    stmt = select(KbOverrideRow).order_by(col(KbOverrideRow.id))
    if kb_name is not None:
        stmt = stmt.where(col(KbOverrideRow.kb_name) == kb_name)
    return db.read(
        lambda s: [to_record(domain.KbOverride, r) for r in s.execute(stmt).scalars().all()]
    )


def list_retired(db: Database) -> list[domain.RetiredItem]:
    """Every retired item, oldest retirement first."""
    stmt = select(RetiredItemRow).order_by(col(RetiredItemRow.id))
    return db.read(
        lambda s: [to_record(domain.RetiredItem, r) for r in s.execute(stmt).scalars().all()]
    )


def retired_item_ids(db: Database, among: Iterable[str] | None = None) -> set[str]:
    """Ids of retired items (only those in ``among`` when given)."""
    column = col(RetiredItemRow.item_id)
    if among is None:
        return db.read(lambda s: set(s.execute(select(column)).scalars()))
    wanted = list(dict.fromkeys(among))

    def _do(session: Session) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(wanted), _BATCH):
            chunk = wanted[start : start + _BATCH]
            found.update(session.execute(select(column).where(column.in_(chunk))).scalars())
        return found

    return db.read(_do)


# --------------------------------------------------------------------------------------------
# Retirement from one assignment's scoring


def retire_from_assignment(
    db: Database, assignment_id: int, item_id: str, *, reason: str = "", by: str = ""
) -> domain.AssignmentRetiredItem:
    """Leave ``item_id`` out of assignment ``assignment_id``'s scoring (once; retiring it again
    returns the first record). :class:`NotFoundError` when the item is not one of the
    assignment's; :class:`InputError` for an unstorable reason or name."""
    why = _clean_text(reason, "reason", 10_000)
    who = _clean_text(by, "retired_by", _MAX_NAME)

    def _do(session: Session) -> domain.AssignmentRetiredItem:
        known = session.execute(
            select(col(AssignmentItemRow.id)).where(
                col(AssignmentItemRow.assignment_id) == assignment_id,
                col(AssignmentItemRow.item_id) == item_id,
            )
        ).first()
        if known is None:
            raise NotFoundError(
                f"item {item_id[:80]!r} is not one of the assignment's items",
                hint="see the item ids in the results' item analysis",
            )
        held = session.execute(
            select(AssignmentRetiredItemRow).where(
                col(AssignmentRetiredItemRow.assignment_id) == assignment_id,
                col(AssignmentRetiredItemRow.item_id) == item_id,
            )
        ).scalar_one_or_none()
        if held is None:
            held = AssignmentRetiredItemRow(
                assignment_id=assignment_id, item_id=item_id, reason=why, retired_by=who
            )
            session.add(held)
            session.flush()
        return to_record(domain.AssignmentRetiredItem, held)

    try:
        return db.write(_do)
    except IntegrityError as exc:  # two retirements at once: the other one stands
        raise _integrity(exc, f"retirement of item {item_id[:80]!r}") from None


def restore_to_assignment(db: Database, assignment_id: int, item_id: str) -> bool:
    """Count ``item_id`` in the assignment's scoring again; False when it was not retired."""

    def _do(session: Session) -> bool:
        held = session.execute(
            select(AssignmentRetiredItemRow).where(
                col(AssignmentRetiredItemRow.assignment_id) == assignment_id,
                col(AssignmentRetiredItemRow.item_id) == item_id,
            )
        ).scalar_one_or_none()
        if held is None:
            return False
        session.delete(held)
        return True

    return db.write(_do)


def assignment_retired(db: Database, assignment_id: int) -> list[domain.AssignmentRetiredItem]:
    """The items retired from the assignment's scoring, oldest retirement first."""
    stmt = (
        select(AssignmentRetiredItemRow)
        .where(col(AssignmentRetiredItemRow.assignment_id) == assignment_id)
        .order_by(col(AssignmentRetiredItemRow.id))
    )
    return db.read(
        lambda s: [
            to_record(domain.AssignmentRetiredItem, r) for r in s.execute(stmt).scalars().all()
        ]
    )
