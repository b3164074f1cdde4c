"""Reviewing flagged items: the queue of open flags and the four decisions about a flagged item.

A student flags a question they have just answered (:func:`quizbot.practice.service.flag`). A
reviewer (the Admin tab's review queue, or ``quizbot kb flags`` / ``quizbot kb decide``) sees each
flagged item once, with its text, its answer key, the KB fact behind it (and, for a false
statement, the true tail it replaced), how many open flags it has and their comments, and decides:

``retire``
    the item is never asked again (practice sessions, monitor nights); its past answers stay.
``true``
    the triplet the item offers as false is true: stored as a ``true_not_negative`` override, so
    it is never again a negative or a distractor; the item, whose key is wrong, is retired.
``false``
    the fact the KB lists is wrong: stored as a ``false_remove`` override of (head, relation,
    true tail), so the fact is no longer asked; the item is retired.
``dismiss``
    nothing is wrong.

Every decision closes every open flag on that item, in the same transaction
(:func:`storage.review.decide_item`). The corrections take effect the next time the KB is loaded
(:func:`quizbot.kb.registry.get_kb`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from quizbot.domain import FlagDecision, FlagState, ItemFlag, OverrideKind
from quizbot.errors import InputError
from storage import Database
from storage.repo import ItemRow, get_items
from storage.review import Decided, NewOverride, decide_item, get_flag, list_flags

__all__ = ["ACTIONS", "FlaggedItem", "decide", "flagged_item", "review_queue"]

ACTIONS: dict[str, FlagDecision] = {d.value: d for d in FlagDecision}
_LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class FlaggedItem:
    """A flagged item as a reviewer sees it, with its open flags (oldest first).

    For a statement ``tail`` is the tail the statement asks about and ``true_tail`` (for a false
    statement) the tail the KB lists; for a multiple-choice question ``correct_tails`` and
    ``distractors`` are the options offered as right and as wrong.
    """

    item_id: str
    kb: str
    kind: str  # "statement" or "choice"
    text: str
    answer_key: str
    head: str
    relation: str
    tail: str
    true_tail: str | None
    negative: bool
    correct_tails: tuple[str, ...]
    distractors: tuple[str, ...]
    flags: tuple[ItemFlag, ...]

    @property
    def n_flags(self) -> int:
        """How many open flags the item has."""
        return len(self.flags)

    @property
    def comments(self) -> list[str]:
        """The non-empty comments of its flags."""
        return [f.comment for f in self.flags if f.comment]

    def as_json(self) -> dict[str, Any]:
        """The item and its flags as plain JSON types."""
        return {
            "item_id": self.item_id,
            "kb": self.kb,
            "kind": self.kind,
            "text": self.text,
            "answer_key": self.answer_key,
            "head": self.head,
            "relation": self.relation,
            "tail": self.tail,
            "true_tail": self.true_tail,
            "negative": self.negative,
            "correct_tails": list(self.correct_tails),
            "distractors": list(self.distractors),
            "flags": [
                {
                    "id": f.id,
                    "reason": f.reason,
                    "comment": f.comment,
                    "quiz_session_id": f.quiz_session_id,
                    "created_at": f.created_at.isoformat(),
                }
                for f in self.flags
            ],
        }


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list | tuple) else ()


def _describe(row: ItemRow, flags: Sequence[ItemFlag]) -> FlaggedItem:
    meta = row.lineage.get("meta") or {}
    if row.kind == "choice":
        options = row.options or []
        keys = row.answer_keys or []
        key = "; ".join(
            f"{k}. {options[_LETTERS.index(k)]}"
            for k in keys
            if k in _LETTERS and _LETTERS.index(k) < len(options)
        )
        found = meta.get("tail")
        frequency_tail = found if isinstance(found, str) else ""
        return FlaggedItem(
            item_id=row.id,
            kb=row.kb,
            kind=row.kind,
            text=row.text,
            answer_key=key,
            head=row.head,
            relation=row.relation,
            tail=frequency_tail,
            true_tail=None,
            negative=False,
            correct_tails=_strings(meta.get("correct_tails"))
            or ((frequency_tail,) if frequency_tail else ()),
            distractors=_strings(meta.get("distractors")),
            flags=tuple(flags),
        )
    negative = row.polarity == "negative"
    true_tail = row.lineage.get("positive_tail") if negative else None
    return FlaggedItem(
        item_id=row.id,
        kb=row.kb,
        kind=row.kind,
        text=row.text,
        answer_key="True" if row.label else "False",
        head=row.head,
        relation=row.relation,
        tail=row.tail,
        true_tail=str(true_tail) if true_tail else None,
        negative=negative,
        correct_tails=(str(true_tail) if negative and true_tail else row.tail,),
        distractors=(row.tail,) if negative else (),
        flags=tuple(flags),
    )


def review_queue(db: Database) -> list[FlaggedItem]:
    """Every item with open flags, the item flagged first first."""
    by_item: dict[str, list[ItemFlag]] = defaultdict(list)
    for flag in list_flags(db, state=FlagState.OPEN):
        by_item[flag.item_id].append(flag)
    if not by_item:
        return []
    rows = get_items(db, list(by_item))
    return [_describe(row, by_item[row.id]) for row in rows]


def flagged_item(db: Database, flag_id: int) -> FlaggedItem:
    """The item flag ``flag_id`` is about, with the item's open flags."""
    flag = get_flag(db, flag_id)
    (row,) = get_items(db, [flag.item_id])
    flags = list_flags(db, state=FlagState.OPEN, item_id=flag.item_id)
    return _describe(row, flags)


def _pick(tail: str | None, choices: Sequence[str], what: str) -> str:
    if tail is not None and tail.strip():
        if tail.strip() not in choices:
            raise InputError(
                f"{tail.strip()!r} is not one of the item's {what}",
                field="tail",
                hint="choose one of: " + ", ".join(choices),
            )
        return tail.strip()
    if len(choices) == 1:
        return choices[0]
    if not choices:
        raise InputError(f"this item has no {what} to mark", hint="retire or dismiss it instead")
    raise InputError(
        f"say which of the item's {what} you mean",
        field="tail",
        hint="one of: " + ", ".join(choices),
    )


def decide(db: Database, flag_id: int, action: str, *, by: str, tail: str | None = None) -> Decided:
    """Decide about the item of flag ``flag_id`` (see the module docstring for ``action``).

    ``tail`` picks the triplet of a multiple-choice question (one of its distractors for
    ``true``, one of its right options for ``false``); a statement has only one. Raises
    :class:`InputError` for an unknown action, a flag already decided, or a decision that does
    not fit the item (``true`` about a true statement).
    """
    decision = ACTIONS.get(action.strip().lower() if isinstance(action, str) else "")
    if decision is None:
        raise InputError(
            f"unknown action {action!r}", field="action", hint="one of: " + ", ".join(ACTIONS)
        )
    flag = get_flag(db, flag_id)
    if flag.state != FlagState.OPEN:
        raise InputError(
            f"flag {flag_id} was already {flag.state} ({flag.decision} by {flag.decided_by})",
            hint="see the open ones with `quizbot kb flags`",
        )
    item = flagged_item(db, flag_id)
    overrides: list[NewOverride] = []
    retire: str | None = None
    note = f"flag {flag_id} ({flag.reason})" + (f": {flag.comment}" if flag.comment else "")
    if decision is FlagDecision.RETIRE:
        retire = f"retired on {note}"
    elif decision is FlagDecision.TRUE:
        if item.kind == "statement" and not item.negative:
            raise InputError(
                "this statement is already asked as true",
                hint="if its fact is wrong choose 'false'; otherwise retire or dismiss it",
            )
        chosen = _pick(tail, item.distractors, "options offered as false")
        overrides.append(
            NewOverride(
                item.kb, item.head, item.relation, chosen, OverrideKind.TRUE_NOT_NEGATIVE,
                source=f"flag:{flag_id}", note=note, created_by=by,
            )
        )  # fmt: skip
        retire = f"its key was wrong: {item.head} {item.relation} {chosen} is true ({note})"
    elif decision is FlagDecision.FALSE:
        chosen = _pick(tail, item.correct_tails, "facts offered as true")
        overrides.append(
            NewOverride(
                item.kb, item.head, item.relation, chosen, OverrideKind.FALSE_REMOVE,
                source=f"flag:{flag_id}", note=note, created_by=by,
            )
        )  # fmt: skip
        retire = f"its fact was wrong: {item.head} {item.relation} {chosen} ({note})"
    return decide_item(
        db,
        item_id=item.item_id,
        decision=decision,
        decided_by=by,
        overrides=overrides,
        retire_reason=retire,
        flag_id=flag_id,
    )
