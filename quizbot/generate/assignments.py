"""Making an assignment: one fixed item set, generated once (or read from a file) and stored.

The items come from :mod:`quizbot.generate.service` (``prepare`` + ``store_items``) with the KB
options given, from quizbot's own item JSONL (validated whole before anything is written), or
from an imported item set (:mod:`quizbot.generate.item_banks`), all its items in its order.
With ``all_variants`` every one of the eight variants of each fact and of its negative is kept
(joint accuracy needs them all); without it one variant per fact, drawn by seed. The item ids are
recorded in order once (:func:`storage.assignments.create_assignment`), so every student and every
model of the assignment answers exactly those items. So is its protocol
(:class:`quizbot.generate.protocol.Protocol`: "I do not know" offered or not, the instruction,
worked examples for models, one or two passes), stored in its config under ``"protocol"``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from quizbot.config import Settings
from quizbot.domain import Assignment, AssignmentMode
from quizbot.errors import DuplicateError, InputError
from quizbot.generate.protocol import MAX_SHOTS, Protocol
from quizbot.generate.service import GenerateRequest, load_any_items, prepare, store_items
from quizbot.items import AnyItem, ChoiceItem, RecallItem, StatementItem, any_item_from_json
from quizbot.jsonl import read_objects
from quizbot.kb.model import KnowledgeBaseData
from quizbot.kb.registry import get_kb
from quizbot.names import check_name
from storage import Database
from storage.assignments import create_assignment, find_assignment, get_assignment

__all__ = [
    "PUBLIC_SEED",
    "SECRET_SEED_BYTES",
    "AssignmentRequest",
    "Item",
    "assignment_items",
    "fact_key",
    "make_assignment",
    "parse_moment",
    "read_items_file",
]

Item = StatementItem | ChoiceItem
PUBLIC_SEED = "0"  # the seed of a practice assignment made without --seed (as `quizbot generate`)
SECRET_SEED_BYTES = 16  # an exam's seed: 128 random bits, stored apart, never shown
Format = Literal["statements", "choice", "mixed", "recall"]

_REQUIRED = {
    "statement": ("kb", "kb_version", "relation", "head", "tail", "polarity", "prototype_set",
                  "transform", "label", "text", "prototype"),
    "choice": ("kb", "kb_version", "relation", "head", "question", "options", "answer_keys",
               "subtype", "knowledge_point_ids"),
    "recall": ("kb", "kb_version", "relation", "aspect", "head", "question", "answers"),
}  # fmt: skip


@dataclass(frozen=True)
class AssignmentRequest:
    """Everything ``quizbot assignment create`` can ask for."""

    name: str
    kb: str
    points: int | None = None
    # None: the public default "0", or for an exam a secret random seed (SECRET_SEED_BYTES)
    seed: str | None = None
    format: Format = "statements"
    relations: Sequence[str] | None = None
    all_variants: bool = False
    mode: AssignmentMode = AssignmentMode.PRACTICE
    cohort: str | None = None
    items_file: Path | None = None
    opens_at: datetime | None = None  # students may start it from then (UTC)
    closes_at: datetime | None = None  # no answers from then on
    two_pass: bool = False  # EBMQA: pass 1 with "I do not know", pass 2 guesses on those
    item_set: str | None = None  # an imported item set's items, in its order, instead
    idk: bool = True  # the protocol: "I do not know" among the answers offered
    shots: int = 0  # the protocol: worked examples per question for models (students: none)

    def protocol(self, items: Sequence[AnyItem]) -> Protocol:
        """The protocol the assignment is fixed with (open recall: no answers to offer), after
        checking that every item can be asked under it (:class:`InputError` otherwise)."""
        recall = bool(items) and isinstance(items[0], RecallItem)
        if recall and not self.idk:
            raise InputError(
                "an open recall question offers no answers to choose", field="--no-idk"
            )
        protocol = Protocol(idk=self.idk and not recall, shots=self.shots, two_pass=self.two_pass)
        protocol.check_items(items)
        return protocol

    judge: str | None = None  # open recall: a judge model for entries the KB cannot verify


def parse_moment(text: str, field: str) -> datetime:
    """An ISO 8601 date or date-time as an aware UTC datetime (no zone given: UTC).

    :class:`InputError` naming ``field`` when it is not one.
    """
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InputError(
            f"{text!r} is not an ISO 8601 date or time",
            field=field,
            hint="e.g. 2026-12-01 or 2026-12-01T09:00 (UTC) or 2026-12-01T09:00+01:00",
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _check_options(request: AssignmentRequest) -> None:
    if request.cohort is not None:
        check_name(request.cohort, field="--cohort")  # the name rule, as for every cohort
    if (
        request.opens_at is not None
        and request.closes_at is not None
        and request.closes_at <= request.opens_at
    ):
        raise InputError("must be after --opens", field="--closes")
    if request.format == "recall" and (request.two_pass or request.all_variants):
        raise InputError(
            "does not go with --format recall (one open question per disease and aspect)",
            field="--two-pass" if request.two_pass else "--all-variants",
        )
    if request.format == "recall" and not request.idk:
        raise InputError("an open recall question offers no answers to choose", field="--no-idk")
    if not 0 <= request.shots <= MAX_SHOTS:
        raise InputError(f"must be 0 to {MAX_SHOTS}", field="--shots")
    if request.two_pass and not request.idk:
        raise InputError('pass 1 of a two-pass assignment offers "I do not know"', field="--no-idk")
    if request.two_pass and request.mode is not AssignmentMode.EXAM:
        raise InputError(
            "needs --mode exam: in practice mode the feedback would reveal the answers "
            "before the second pass",
            field="--two-pass",
        )


def fact_key(item: AnyItem) -> str:
    """The fact an item asks about: its KB point for a statement (both sides of it share it),
    its head and relation for a multiple-choice or open recall question."""
    if isinstance(item, StatementItem):
        return item.fact_id
    if isinstance(item, RecallItem):
        return f"recall:{item.kb}\x1f{item.relation}\x1f{item.head}"
    return f"choice:{item.kb}\x1f{item.relation}\x1f{item.head}"


def _rank(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode()).digest()


def read_items_file(path: Path, kb: str) -> list[AnyItem]:
    """Every item of a quizbot item JSONL, validated whole before any is used.

    Raises :class:`InputError` naming the file, line and field of the first problem: a missing
    field, an unknown kind or value, an item of another knowledge base, an ``id`` that does not
    match the item's content, the same item twice, or open recall items mixed with others.
    """
    label = str(path)
    items: list[AnyItem] = []
    seen: dict[str, int] = {}
    for line, record in read_objects(path):
        kind = record.get("kind")
        if kind not in _REQUIRED:
            raise InputError(
                "must be 'statement', 'choice' or 'recall'", path=label, line=line, field="kind"
            )
        if items and (kind == "recall") != isinstance(items[0], RecallItem):
            raise InputError(
                "open recall items cannot be mixed with other kinds in one assignment",
                path=label,
                line=line,
                field="kind",
            )
        for key in _REQUIRED[str(kind)]:
            if key not in record:
                raise InputError("is missing", path=label, line=line, field=key)
        if record["kb"] != kb:
            raise InputError(
                f"is {record['kb']!r}, not the assignment's knowledge base {kb!r}",
                path=label,
                line=line,
                field="kb",
            )
        try:
            item = any_item_from_json(record)
        except (KeyError, ValueError, TypeError) as exc:
            field = exc.args[0] if isinstance(exc, KeyError) else None
            raise InputError(f"not an item ({exc})", path=label, line=line, field=field) from None
        if "id" in record and record["id"] != item.id:
            raise InputError(
                "does not match the item's content (edited after generation?)",
                path=label,
                line=line,
                field="id",
            )
        if item.id in seen:
            raise InputError(
                f"the same item as line {seen[item.id]}", path=label, line=line, field="id"
            )
        seen[item.id] = line
        items.append(item)
    if not items:
        raise InputError("no items", path=label)
    return items


def _one_per_fact(items: Sequence[Item], seed: str) -> list[Item]:
    """One variant per fact, drawn by seed among its (up to 16) variants, in the facts' order."""
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        groups[fact_key(item)].append(item)
    return [min(group, key=lambda i: _rank(seed, i.id)) for group in groups.values()]


def _recall(kb: KnowledgeBaseData, request: AssignmentRequest) -> list[AnyItem]:
    """One open recall item per (disease, aspect), ``points`` of them drawn by seed."""
    from quizbot.generate.recall import plan_recall, recall_items  # noqa: PLC0415

    plan = plan_recall(
        kb, relations=request.relations, limit=request.points, seed=request.seed or PUBLIC_SEED
    )
    return list(recall_items(kb, plan))


def _generate(db: Database, request: AssignmentRequest, settings: Settings | None) -> list[Item]:
    def made(fmt: Literal["statements", "choice"]) -> list[Item]:
        generation = prepare(
            db,
            GenerateRequest(
                kb=request.kb,
                relations=request.relations,
                points=request.points,
                seed=request.seed or PUBLIC_SEED,
                format=fmt,
                store=True,
            ),
            settings,
        )
        return [i for i in generation.items() if not isinstance(i, RecallItem)]

    if request.format == "recall":
        raise ValueError("recall items are made by _recall")
    if request.format == "mixed":
        said = made("statements")
        asked = made("choice")
        # Alternate facts between the two formats, never both formats on one head+relation.
        order = list(dict.fromkeys((i.head, i.relation) for i in [*said, *asked]))
        as_choice = {key for n, key in enumerate(order) if n % 2 == 1}
        chosen_choice = {(i.head, i.relation) for i in asked} & as_choice
        items = [i for i in said if (i.head, i.relation) not in chosen_choice]
        items += [i for i in asked if (i.head, i.relation) in chosen_choice]
    else:
        items = made("choice" if request.format == "choice" else "statements")
    if not request.all_variants:
        items = _one_per_fact(items, f"assignment\x1f{request.seed or PUBLIC_SEED}")
    return list({i.id: i for i in items}.values())  # two facts may share a negative statement


def _secret_seed(request: AssignmentRequest) -> str | None:
    """The seed an exam's items are drawn with: the instructor's ``--seed`` or a random one,
    kept secret either way; ``None`` for a practice assignment (its seed is public)."""
    if request.mode is not AssignmentMode.EXAM:
        return None
    return request.seed or secrets.token_hex(SECRET_SEED_BYTES)


def make_assignment(
    db: Database, request: AssignmentRequest, settings: Settings | None = None
) -> Assignment:
    """Create assignment ``request.name``: make (or read) its items, store them, record them.

    An exam's items (its facts, the false statements made of them, the variants asked) are
    drawn with a secret seed (:func:`_secret_seed`) stored with the assignment and never shown
    (``config`` says ``seed_secret``), so the public defaults of ``quizbot generate`` do not
    rebuild them. A practice assignment's seed is public (``config["seed"]``).

    The same name twice raises :class:`DuplicateError` (exit 65) before anything is generated
    or written; bad options or a bad items file raise :class:`InputError`.
    """
    _check_options(request)
    if find_assignment(db, request.name) is not None:
        raise DuplicateError(
            f"assignment {request.name!r} already exists", hint="choose another name"
        )
    if request.item_set is not None:
        from quizbot.generate.item_banks import item_set_items  # noqa: PLC0415

        info, chosen = item_set_items(db, request.item_set)
        protocol = request.protocol(chosen)
        return create_assignment(
            db,
            name=request.name,
            kb_name=info.kb_name,
            item_ids=[i.id for i in chosen],
            mode=request.mode,
            cohort=request.cohort,
            config={"item_set": info.name, "format": info.format, "protocol": protocol.as_json()},
        )
    kb, kb_id = get_kb(db, request.kb)
    secret = _secret_seed(request)
    if secret is not None:
        request = dataclasses.replace(request, seed=secret)
    config: dict[str, Any] = {
        "points": request.points,
        "seed": None if secret is not None else (request.seed or PUBLIC_SEED),
        "seed_secret": secret is not None,
        "format": request.format,
        "relations": list(request.relations) if request.relations else None,
        "all_variants": request.all_variants,
        "two_pass": request.two_pass,
    }
    items: list[AnyItem]
    if request.items_file is not None:
        items = read_items_file(request.items_file, kb.name)
        secret = None  # the file fixes the items: no seed draws them
        config = {
            "items_file": request.items_file.name,
            "all_variants": request.all_variants,
            "two_pass": request.two_pass,
        }
        if isinstance(items[0], RecallItem):
            config["format"] = "recall"
            if request.two_pass:
                raise InputError("does not go with open recall items", field="--two-pass")
    elif request.format == "recall":
        items = _recall(kb, request)
    else:
        items = list(_generate(db, request, settings))
    if request.judge:
        if config.get("format") != "recall":
            raise InputError("judges open recall answers only", field="--judge")
        config["judge"] = request.judge.strip()
    if not items:
        raise InputError(f"no items could be made from knowledge base {kb.name!r}")
    config["protocol"] = request.protocol(items).as_json()
    store_items(db, kb, kb_id, items)
    return create_assignment(
        db,
        name=request.name,
        kb_name=kb.name,
        item_ids=[i.id for i in items],
        mode=request.mode,
        cohort=request.cohort,
        opens_at=request.opens_at,
        closes_at=request.closes_at,
        config=config,
        secret_seed=secret,
    )


def assignment_items(db: Database, name: str) -> tuple[Assignment, list[AnyItem]]:
    """Assignment ``name`` and its items (open recall ones too), in its order;
    :class:`NotFoundError` if unknown."""
    assignment = get_assignment(db, name)
    return assignment, load_any_items(db, list(assignment.item_ids))
