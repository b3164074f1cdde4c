"""Repository functions: the only way the rest of quizbot reads and writes the database.

Each function takes a :class:`~storage.engine.Database`, runs one transaction, and returns plain
values: the frozen records of :mod:`quizbot.domain` (converted inside the transaction, never table
rows) or small tuples defined here. Constraint violations come back as quizbot errors a user can
read (:class:`~quizbot.errors.DuplicateError`, :class:`~quizbot.errors.NotFoundError`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from sqlalchemy import Select, bindparam, delete, func, inspect, select, text, tuple_
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel, col

from quizbot import domain
from quizbot.errors import (
    DuplicateError,
    InputError,
    NotFoundError,
    QuizbotError,
    StorageError,
    redact,
)
from quizbot.names import check_name
from storage.bulk import RowWriter, sqlite_bulk_cache
from storage.engine import Database
from storage.models import (
    EvalRun,
    Item,
    KnowledgeBase,
    KnowledgePoint,
    ModelCallCache,
    Outcome,
    PrototypeSetRow,
    RephraseCache,
    Respondent,
    RespondentKind,
    Response,
    RunStatus,
)
from storage.records import record_columns, to_record, to_record_or_none
from storage.types import utcnow

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "ItemRow",
    "KnowledgeBaseSummary",
    "NewItem",
    "NewPoint",
    "NewResponse",
    "PointRow",
    "answered_item_ids",
    "count_responses",
    "create_knowledge_base",
    "create_run",
    "delete_error_responses",
    "get_cached_call",
    "get_items",
    "get_knowledge_base",
    "get_or_create_respondent",
    "get_prototype_set",
    "get_rephrasing",
    "get_run",
    "knowledge_point_ids",
    "list_knowledge_bases",
    "list_responses",
    "list_runs",
    "load_knowledge_points",
    "planner_warnings",
    "put_cached_call",
    "put_rephrasing",
    "record_response",
    "record_responses",
    "repeat_group",
    "save_items",
    "save_items_bulk",
    "save_knowledge_points",
    "save_prototype_set",
    "table_counts",
    "update_run",
    "upsert_knowledge_base",
]


@dataclass(frozen=True)
class NewResponse:
    """One answer to store. Exactly one of ``run_id`` and ``quiz_session_id`` must be set."""

    item_id: str
    respondent_id: int
    outcome: Outcome
    run_id: int | None = None
    quiz_session_id: int | None = None
    prompt: str | None = None
    raw_text: str | None = None
    parsed_answer: str | None = None
    parse_reason: str | None = None
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    provider_model: str | None = None
    cached: bool = False
    error_text: str | None = None
    created_at: datetime | None = None
    answer_pass: int | None = None  # 1 or 2 on a two-pass assignment

    def row(self) -> dict[str, Any]:
        """The values as a row for the ``response`` table."""
        if (self.run_id is None) == (self.quiz_session_id is None):
            raise InputError("a response belongs to exactly one run or one practice session")
        # Shallow on purpose: dataclasses.asdict deep-copies, which costs on the hot path.
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["outcome"] = Outcome(self.outcome).value
        # The one door provider messages go through into the database: never with a secret.
        if self.error_text is not None:
            values["error_text"] = redact(self.error_text)
        if self.raw_text is not None and self.run_id is not None:
            values["raw_text"] = redact(self.raw_text)
        values["created_at"] = self.created_at or utcnow()
        return values


def _integrity(exc: IntegrityError, what: str) -> QuizbotError:
    message = str(exc.orig).lower()
    if "unique" in message or "duplicate key" in message:
        return DuplicateError(f"{what} already exists")
    if "foreign key" in message:
        return NotFoundError(f"{what} refers to a record that does not exist")
    return InputError(f"{what} breaks a database rule: {str(exc.orig).splitlines()[0]}")


def _insert(session: Session, table: Any) -> Any:
    """An INSERT for this session's dialect (both support ON CONFLICT)."""
    dialect = session.get_bind().dialect.name
    return (pg_insert if dialect == "postgresql" else sqlite_insert)(table)


def _insert_ignore(session: Session, model: type[SQLModel], rows: Sequence[dict[str, Any]]) -> int:
    """Insert rows, skipping those that collide with a unique key; return how many were new.

    One executemany per call: the statement is compiled once and sent in batches, and RETURNING
    yields exactly the rows inserted on both backends (PostgreSQL's rowcount does not).
    """
    if not rows:
        return 0
    table = model.__table__  # type: ignore[attr-defined]
    stmt = _insert(session, table).on_conflict_do_nothing().returning(*table.primary_key.columns)
    return len(session.execute(stmt, list(rows)).all())


def _upsert_points(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Insert points; a point already stored gets the given types, refs and meta."""
    if not rows:
        return
    stmt = _insert(session, KnowledgePoint.__table__)  # type: ignore[attr-defined]
    stmt = stmt.on_conflict_do_update(
        index_elements=["kb_id", "relation", "head", "tail"],
        set_={
            name: getattr(stmt.excluded, name)
            for name in ("head_type", "tail_type", "head_ref", "tail_ref", "meta")
        },
    )
    session.execute(stmt, list(rows))


@dataclass(frozen=True, slots=True)
class NewPoint:
    """A knowledge point to store (cheap to build in bulk, unlike a table object)."""

    relation: str
    head: str
    tail: str
    head_type: str = ""
    tail_type: str = ""
    head_ref: str | None = None
    tail_ref: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def row(self, kb_id: int, now: datetime) -> dict[str, Any]:
        """The values as a row for the ``knowledge_point`` table."""
        return {
            "kb_id": kb_id,
            "relation": self.relation,
            "head": self.head,
            "tail": self.tail,
            "head_type": self.head_type,
            "tail_type": self.tail_type,
            "head_ref": self.head_ref,
            "tail_ref": self.tail_ref,
            "meta": self.meta,
            "created_at": now,
        }


class NewItem(NamedTuple):
    """A generated item to store, with its lineage.

    A NamedTuple: bulk generation builds 300,000 of them, and a frozen dataclass costs several
    times more to construct. Its ``lineage`` defaults to one shared empty dict: never mutate it.
    """

    id: str
    kind: str
    relation: str
    head: str
    tail: str
    text: str
    generator_version: str
    knowledge_point_id: int | None = None
    polarity: str = "positive"
    transform: str | None = None
    label: bool | None = None
    prototype: str | None = None
    options: list[str] | None = None
    answer_keys: list[str] | None = None
    pair_key: str | None = None
    rephrase_model: str | None = None
    lineage: dict[str, Any] = {}  # noqa: RUF012 - read only, see the docstring

    def row(self, kb_id: int, now: datetime) -> dict[str, Any]:
        """The values as a row for the ``item`` table."""
        values = self._asdict()
        values["kb_id"] = kb_id
        values["created_at"] = now
        return values


_Record = TypeVar("_Record", bound="DataclassInstance")


def _add(db: Database, row: SQLModel, record: type[_Record], what: str) -> _Record:
    """Insert one table object and return its record; constraint errors become user errors."""

    def _do(session: Session) -> _Record:
        session.add(row)
        session.flush()
        return to_record(record, row)

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, what) from None


# --------------------------------------------------------------------------------------------
# Knowledge bases, points, items


def create_knowledge_base(
    db: Database,
    name: str,
    *,
    version: str,
    source: str,
    title: str = "",
    description: str = "",
    license: str = "",
    meta: dict[str, Any] | None = None,
) -> domain.KnowledgeBaseInfo:
    """Create a knowledge base; :class:`DuplicateError` if the name is taken."""
    name = check_name(name)
    kb = KnowledgeBase(
        name=name,
        version=version,
        source=source,
        title=title,
        description=description,
        license=license,
        meta=meta or {},
    )

    return _add(db, kb, domain.KnowledgeBaseInfo, f"knowledge base {name!r}")


def get_knowledge_base(db: Database, name: str) -> domain.KnowledgeBaseInfo:
    """The knowledge base called ``name``; :class:`NotFoundError` if there is none."""
    kb = db.read(
        lambda s: to_record_or_none(
            domain.KnowledgeBaseInfo,
            s.execute(select(KnowledgeBase).where(col(KnowledgeBase.name) == name))
            .scalars()
            .first(),
        )
    )
    if kb is None:
        raise NotFoundError(
            f"no knowledge base named {name!r}", hint="`quizbot kb list` shows the ones there are"
        )
    return kb


def save_knowledge_points(db: Database, kb_id: int, points: Iterable[NewPoint]) -> int:
    """Store knowledge points; ones already present (same kb, relation, head, tail) are skipped.

    Returns how many were new.
    """
    now = utcnow()
    rows = [p.row(kb_id, now) for p in points]
    try:
        return db.write(lambda s: _insert_ignore(s, KnowledgePoint, rows))
    except IntegrityError as exc:
        raise _integrity(exc, "a knowledge point") from None


def save_items(db: Database, kb_id: int, items: Iterable[NewItem]) -> int:
    """Store generated items; an item already stored (same content-hash id) is kept as it is.

    Returns how many were new.
    """
    return save_items_bulk(db, kb_id, [list(items)])


# Which NewItem attribute fills each column of the item table (kb_id and created_at are the
# same for every row of one call).
_ITEM_ATTRIBUTES = {
    name: name
    for name in (
        "id", "kind", "knowledge_point_id", "relation", "head", "tail", "polarity", "transform",
        "label", "text", "prototype", "options", "answer_keys", "pair_key", "rephrase_model",
        "generator_version", "lineage",
    )
}  # fmt: skip


def save_items_bulk(db: Database, kb_id: int, batches: Iterable[Sequence[NewItem]]) -> int:
    """Store items in ONE transaction, a batch at a time as ``batches`` yields them; return how
    many were new.

    All or nothing: if a batch fails, or ``batches`` itself raises (e.g. generation failed
    half-way), nothing is stored. Idempotent: an item already stored (same content-hash id) is
    kept as it is, so running it again stores nothing twice. Every row gets the same
    ``created_at``. Rows go in through the driver's executemany (:class:`storage.bulk.RowWriter`:
    values as SQLAlchemy would bind them), on SQLite with a large page cache for the transaction.

    ``batches`` is consumed once: a transaction that fails after taking a batch is not retried
    (:class:`~quizbot.errors.StorageError`; running again is safe). The write transaction is
    held while ``batches`` produces its rows: on SQLite other writers wait meanwhile.
    """
    now = utcnow()
    taken = False

    def _do(session: Session) -> int:
        nonlocal taken
        if taken:
            raise StorageError(
                "storing the items was interrupted by a busy database; nothing was stored",
                hint="run the command again (items already stored are skipped)",
            )
        conn = session.connection()
        table = Item.__table__  # type: ignore[attr-defined]
        writer = RowWriter(conn, table, _ITEM_ATTRIBUTES, {"kb_id": kb_id, "created_at": now})
        new = 0
        with sqlite_bulk_cache(conn):
            for batch in batches:
                taken = True
                new += writer.insert(batch)
        return new

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, "an item") from None


@dataclass(frozen=True)
class KnowledgeBaseSummary:
    """A knowledge base with its size, for listings."""

    kb: domain.KnowledgeBaseInfo
    n_points: int
    relations: dict[str, int]


def upsert_knowledge_base(
    db: Database,
    *,
    name: str,
    version: str,
    source: str,
    points: Sequence[NewPoint],
    title: str = "",
    description: str = "",
    license: str = "",
    meta: dict[str, Any] | None = None,
    prune: bool = False,
) -> tuple[domain.KnowledgeBaseInfo, int, int]:
    """Create or update a knowledge base and its points in ONE transaction.

    Points already present are kept; with ``prune`` points no longer given are deleted (items keep
    their text; their link to the point becomes empty). Returns (kb, points added, points removed).
    Either everything is written or nothing is.
    """

    def _do(session: Session) -> tuple[domain.KnowledgeBaseInfo, int, int]:
        kb = session.execute(
            select(KnowledgeBase).where(col(KnowledgeBase.name) == name)
        ).scalar_one_or_none()
        now = utcnow()
        if kb is None:
            kb = KnowledgeBase(name=name, version=version, source=source)
        kb.version, kb.source, kb.title = version, source, title
        kb.description, kb.license, kb.meta, kb.updated_at = description, license, meta or {}, now
        session.add(kb)
        session.flush()
        assert kb.id is not None
        rows = [p.row(kb.id, now) for p in points]
        key_cols = (
            col(KnowledgePoint.relation),
            col(KnowledgePoint.head),
            col(KnowledgePoint.tail),
        )
        before = {
            tuple(r)
            for r in session.execute(
                select(*key_cols).where(col(KnowledgePoint.kb_id) == kb.id)
            ).all()
        }
        added = sum((r["relation"], r["head"], r["tail"]) not in before for r in rows)
        _upsert_points(session, rows)
        removed = 0
        if prune:
            keep = {(r["relation"], r["head"], r["tail"]) for r in rows}
            existing = session.execute(
                select(
                    col(KnowledgePoint.id),
                    col(KnowledgePoint.relation),
                    col(KnowledgePoint.head),
                    col(KnowledgePoint.tail),
                ).where(col(KnowledgePoint.kb_id) == kb.id)
            ).all()
            stale = [row[0] for row in existing if (row[1], row[2], row[3]) not in keep]
            for start in range(0, len(stale), 1000):
                session.execute(
                    delete(KnowledgePoint).where(
                        col(KnowledgePoint.id).in_(stale[start : start + 1000])
                    )
                )
            removed = len(stale)
        return to_record(domain.KnowledgeBaseInfo, kb), added, removed

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, f"knowledge base {name!r}") from None


def list_knowledge_bases(db: Database) -> list[KnowledgeBaseSummary]:
    """Every knowledge base in the database with its point counts, by name."""

    def _do(session: Session) -> list[KnowledgeBaseSummary]:
        kbs = session.execute(select(KnowledgeBase).order_by(col(KnowledgeBase.name))).scalars()
        counts: dict[int, dict[str, int]] = {}
        for kb_id, relation, n in session.execute(
            select(col(KnowledgePoint.kb_id), col(KnowledgePoint.relation), func.count()).group_by(
                col(KnowledgePoint.kb_id), col(KnowledgePoint.relation)
            )
        ).all():
            counts.setdefault(int(kb_id), {})[str(relation)] = int(n)
        result = []
        for kb in kbs:
            info = to_record(domain.KnowledgeBaseInfo, kb)
            relations = dict(sorted(counts.get(info.id, {}).items()))
            result.append(KnowledgeBaseSummary(info, sum(relations.values()), relations))
        return result

    return db.read(_do)


class PointRow(NamedTuple):
    """A stored knowledge point, read without ORM overhead (KBs hold tens of thousands)."""

    id: int
    relation: str
    head: str
    tail: str
    head_type: str
    tail_type: str
    head_ref: str | None
    tail_ref: str | None
    meta: dict[str, Any]


def load_knowledge_points(db: Database, kb_id: int) -> list[PointRow]:
    """Every point of a knowledge base, in insertion order."""
    # Core columns, run on the connection: an ORM-enabled select of the same columns spends
    # about 0.5 s in the ORM's row loading for MedLAMA's 43,000 points.
    table = KnowledgePoint.__table__  # type: ignore[attr-defined]
    columns = [table.c[name] for name in PointRow._fields]
    stmt = select(*columns).where(table.c.kb_id == kb_id).order_by(table.c.id)
    return db.read(lambda s: [PointRow(*row) for row in s.connection().execute(stmt)])


def knowledge_point_ids(
    db: Database, kb_id: int, keys: Iterable[tuple[str, str, str]] | None = None
) -> dict[tuple[str, str, str], int]:
    """Database ids of a KB's points by (relation, head, tail); only ``keys`` if given."""
    wanted = list(set(keys)) if keys is not None else None

    def _do(session: Session) -> dict[tuple[str, str, str], int]:
        cols = (
            col(KnowledgePoint.relation),
            col(KnowledgePoint.head),
            col(KnowledgePoint.tail),
            col(KnowledgePoint.id),
        )
        base = select(*cols).where(col(KnowledgePoint.kb_id) == kb_id)
        found: dict[tuple[str, str, str], int] = {}
        batches = (
            [None] if wanted is None else [wanted[i : i + 500] for i in range(0, len(wanted), 500)]
        )
        for batch in batches:
            stmt = base
            if batch is not None:
                stmt = base.where(tuple_(*cols[:3]).in_(batch))
            for relation, head, tail, pid in session.execute(stmt).all():
                found[(relation, head, tail)] = int(pid)
        return found

    return db.read(_do)


def save_prototype_set(
    db: Database, *, name: str, format: str, digest: str, content: str, source_path: str | None
) -> tuple[domain.StoredPrototypeSet, bool]:
    """Store an imported prototype file; returns (the stored set, created).

    The same name with the same content is a no-op; the same name with other content is a
    :class:`DuplicateError` (pick another name), so nothing is silently replaced.
    """
    name = check_name(name)

    def _do(session: Session) -> tuple[domain.StoredPrototypeSet, bool]:
        row = session.execute(
            select(PrototypeSetRow).where(col(PrototypeSetRow.name) == name)
        ).scalar_one_or_none()
        if row is not None:
            if row.digest != digest:
                raise DuplicateError(
                    f"a different prototype set is already named {name!r}",
                    hint="import it under another --name",
                )
            return to_record(domain.StoredPrototypeSet, row), False
        row = PrototypeSetRow(
            name=name, format=format, digest=digest, content=content, source_path=source_path
        )
        session.add(row)
        session.flush()
        return to_record(domain.StoredPrototypeSet, row), True

    return db.write(_do)


def get_prototype_set(db: Database, name: str) -> domain.StoredPrototypeSet | None:
    """The imported prototype set called ``name``, if any."""
    return db.read(
        lambda s: to_record_or_none(
            domain.StoredPrototypeSet,
            s.execute(
                select(PrototypeSetRow).where(col(PrototypeSetRow.name) == name)
            ).scalar_one_or_none(),
        )
    )


def get_rephrasing(db: Database, model: str, statement_hash: str) -> str | None:
    """A cached, validated rephrasing, if one exists."""
    return db.read(
        lambda s: s.execute(
            select(col(RephraseCache.text)).where(
                col(RephraseCache.model) == model,
                col(RephraseCache.statement_hash) == statement_hash,
            )
        ).scalar_one_or_none()
    )


def put_rephrasing(
    db: Database, model: str, statement_hash: str, statement: str, text: str
) -> None:
    """Cache a validated rephrasing (a second put for the same key is ignored)."""
    row = {
        "model": model,
        "statement_hash": statement_hash,
        "statement": statement,
        "text": text,
        "created_at": utcnow(),
    }
    db.write(lambda s: _insert_ignore(s, RephraseCache, [row]))


def get_cached_call(db: Database, key: str) -> domain.CachedCall | None:
    """The cached model call stored under ``key``, if any (interactive use only)."""
    return db.read(
        lambda s: to_record_or_none(
            domain.CachedCall,
            s.execute(
                select(ModelCallCache).where(col(ModelCallCache.key) == key)
            ).scalar_one_or_none(),
        )
    )


def put_cached_call(
    db: Database,
    *,
    key: str,
    model: str,
    text: str,
    provider_model: str,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
    total_tokens: int | None = None,
) -> None:
    """Cache a model call (a second put for the same key is ignored)."""
    data = ModelCallCache(
        key=key,
        model=model,
        text=text,
        provider_model=provider_model,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=total_tokens,
    ).model_dump(exclude={"id"})
    db.write(lambda s: _insert_ignore(s, ModelCallCache, [data]))


# --------------------------------------------------------------------------------------------
# Respondents and runs


def get_or_create_respondent(
    db: Database,
    kind: RespondentKind,
    name: str,
    *,
    display_name: str = "",
    cohort: str | None = None,
) -> domain.Respondent:
    """The respondent ``(kind, name)``, created on first use; safe under concurrent callers."""
    row: dict[str, Any] = {
        "kind": RespondentKind(kind).value,
        "name": name,
        "display_name": display_name or name,
        "cohort": cohort,
        "meta": {},
        "created_at": utcnow(),
    }

    def _do(session: Session) -> domain.Respondent:
        _insert_ignore(session, Respondent, [row])
        found: Respondent = session.execute(
            select(Respondent).where(
                col(Respondent.kind) == row["kind"], col(Respondent.name) == name
            )
        ).scalar_one()
        return to_record(domain.Respondent, found)

    return db.write(_do)


def create_run(
    db: Database,
    *,
    respondent_id: int,
    model_requested: str,
    config: dict[str, Any] | None = None,
    n_items: int = 0,
    name: str | None = None,
    assignment_id: int | None = None,
    repeat_of: int | None = None,
) -> domain.Run:
    """Create an evaluation run in status ``pending`` (made for ``assignment_id`` when given;
    a repeat of the run ``repeat_of`` when given)."""
    run = EvalRun(
        respondent_id=respondent_id,
        model_requested=model_requested,
        config=config or {},
        n_items=n_items,
        name=name,
        assignment_id=assignment_id,
        repeat_of=repeat_of,
    )

    return _add(db, run, domain.Run, f"run for {model_requested!r}")


def get_run(db: Database, run_id: int) -> domain.Run:
    """The run with this id; :class:`NotFoundError` if there is none."""
    run = db.read(lambda s: to_record_or_none(domain.Run, s.get(EvalRun, run_id)))
    if run is None:
        raise NotFoundError(f"no run with id {run_id}", hint="`quizbot runs list` shows the runs")
    return run


def update_run(
    db: Database,
    run_id: int,
    *,
    status: RunStatus | None = None,
    model_reported: str | None = None,
    error_text: str | None = None,
) -> domain.Run:
    """Move a run along its life cycle; start and finish times are set from the status."""

    def _do(session: Session) -> domain.Run:
        run = session.get(EvalRun, run_id)
        if run is None:
            raise NotFoundError(f"no run with id {run_id}")
        if status is not None:
            run.status = RunStatus(status).value
            if status is RunStatus.RUNNING and run.started_at is None:
                run.started_at = utcnow()
            if status in {RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.INTERRUPTED}:
                run.finished_at = utcnow()
        if model_reported is not None:
            run.model_reported = model_reported
        if error_text is not None or status in {RunStatus.RUNNING, RunStatus.COMPLETED}:
            # A run that goes on or completes sheds its old error; a new one is stored redacted.
            run.error_text = redact(error_text) if error_text is not None else None
        session.add(run)
        session.flush()
        return to_record(domain.Run, run)

    return db.write(_do)


# --------------------------------------------------------------------------------------------
# Responses


def record_response(db: Database, response: NewResponse) -> int:
    """Store one answer durably and return its id.

    When this returns, the row is committed. Answering the same item twice in one run or session
    raises :class:`DuplicateError`.
    """
    return record_responses(db, [response])[0]


def record_responses(db: Database, responses: Sequence[NewResponse]) -> list[int]:
    """Store a batch of answers in one transaction (all or none); return their ids in order."""
    if not responses:
        return []
    rows = [r.row() for r in responses]

    def _do(session: Session) -> list[int]:
        stmt = Response.__table__.insert().returning(  # type: ignore[attr-defined]
            Response.__table__.c.id,  # type: ignore[attr-defined]
            sort_by_parameter_order=True,
        )
        return list(session.execute(stmt, rows).scalars())

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, "an answer to this item in this run or session") from None


def record_new_responses(db: Database, responses: Sequence[NewResponse]) -> None:
    """Store a batch of a run's answers in one transaction, skipping any item the run already
    has an answer for (a shard of a queued run asked again after its worker died)."""
    if not responses:
        return
    rows = [r.row() for r in responses]
    table = Response.__table__  # type: ignore[attr-defined]
    insert = pg_insert if db.backend == "postgresql" else sqlite_insert
    stmt = insert(table).on_conflict_do_nothing(index_elements=["run_id", "item_id"])
    db.write(lambda session: session.execute(stmt, rows))


class ItemRow(NamedTuple):
    """A stored item with its KB's name, as needed to rebuild it."""

    id: str
    kind: str
    kb: str
    relation: str
    head: str
    tail: str
    polarity: str
    transform: str | None
    label: bool | None
    text: str
    prototype: str | None
    options: list[str] | None
    answer_keys: list[str] | None
    rephrase_model: str | None
    lineage: dict[str, Any]


@cache
def _items_statement() -> Select[Any]:
    """:func:`get_items`' statement, built once (the ids bound per call): every answer reads
    its item, and building the statement cost about as much as running it."""
    columns = [col(KnowledgeBase.name)] + [getattr(Item, f) for f in ItemRow._fields if f != "kb"]
    return (
        select(*columns)
        .join(KnowledgeBase, col(KnowledgeBase.id) == col(Item.kb_id))
        .where(col(Item.id).in_(bindparam("ids", expanding=True)))
    )


def get_items(db: Database, ids: Sequence[str]) -> list[ItemRow]:
    """Stored items by id, in the order asked; :class:`NotFoundError` if any is missing."""
    wanted = list(dict.fromkeys(ids))
    stmt = _items_statement()

    def _do(session: Session) -> dict[str, ItemRow]:
        found: dict[str, ItemRow] = {}
        for start in range(0, len(wanted), 500):
            for row in session.execute(stmt, {"ids": wanted[start : start + 500]}).all():
                kb_name, item_id, *rest = row
                found[item_id] = ItemRow(item_id, rest[0], kb_name, *rest[1:])
        return found

    found = db.read(_do)
    missing = [i for i in wanted if i not in found]
    if missing:
        raise NotFoundError(f"{len(missing)} item(s) not in the database, e.g. {missing[0]}")
    return [found[i] for i in ids]


def delete_error_responses(db: Database, run_id: int) -> int:
    """Remove a run's ``error`` responses so those items can be asked again; return how many."""
    stmt = delete(Response).where(
        col(Response.run_id) == run_id, col(Response.outcome) == Outcome.ERROR.value
    )
    return int(db.write(lambda s: s.execute(stmt).rowcount or 0))  # type: ignore[attr-defined]


def list_runs(db: Database, limit: int = 100) -> list[tuple[domain.Run, int]]:
    """Recent runs, newest first, with how many responses each has."""

    def _do(session: Session) -> list[tuple[domain.Run, int]]:
        counts = dict(
            session.execute(
                select(col(Response.run_id), func.count())
                .where(col(Response.run_id).is_not(None))
                .group_by(col(Response.run_id))
            ).all()
        )
        runs = session.execute(
            select(EvalRun).order_by(col(EvalRun.id).desc()).limit(limit)
        ).scalars()
        return [(to_record(domain.Run, run), int(counts.get(run.id, 0))) for run in runs]

    return db.read(_do)


def repeat_group(db: Database, run_id: int) -> list[domain.Run]:
    """The repeat group of a run, first run first (``[run]`` alone for an ordinary run).

    :class:`NotFoundError` if there is no such run.
    """
    run = get_run(db, run_id)
    first = run.repeat_of if run.repeat_of is not None else run.id
    stmt = (
        select(EvalRun)
        .where((col(EvalRun.id) == first) | (col(EvalRun.repeat_of) == first))
        .order_by(col(EvalRun.id))
    )
    return db.read(lambda s: [to_record(domain.Run, r) for r in s.execute(stmt).scalars()])


def answered_item_ids(db: Database, run_id: int) -> set[str]:
    """Items of a run that already have a stored response (what a resume must skip)."""
    return db.read(
        lambda s: set(
            s.execute(select(col(Response.item_id)).where(col(Response.run_id) == run_id)).scalars()
        )
    )


def count_responses(db: Database, *, run_id: int | None = None, usable: bool = False) -> int:
    """How many responses are stored, in one run or in all (``usable``: leaving out errors)."""
    stmt = select(func.count()).select_from(Response)
    if run_id is not None:
        stmt = stmt.where(col(Response.run_id) == run_id)
    if usable:
        stmt = stmt.where(col(Response.outcome) != Outcome.ERROR.value)
    return int(db.read(lambda s: s.execute(stmt).scalar_one()))


def list_responses(db: Database, *, run_id: int) -> list[domain.ResponseRecord]:
    """Every response of a run, oldest first (read as plain columns: runs can be large)."""
    stmt = (
        select(*record_columns(domain.ResponseRecord, Response))
        .where(col(Response.run_id) == run_id)
        .order_by(col(Response.id))
    )
    return db.read(lambda s: [domain.ResponseRecord(*row) for row in s.execute(stmt).all()])


# --------------------------------------------------------------------------------------------
# Whole-database facts


UNANALYZED_ROWS = 10_000  # a table this big, planned without statistics, may be read whole


def planner_warnings(db: Database, *, min_rows: int = UNANALYZED_ROWS) -> list[str]:
    """What leaves PostgreSQL's query planner without statistics, for the operator: autovacuum
    turned off, and quizbot tables of more than ``min_rows`` rows never analyzed. Empty on
    SQLite, whose deployments plan without statistics by design.

    Without statistics the planner guesses, and at a million answers it guessed a start's
    ``quiz_session_id IN (...)`` to match a sixth of the table and read it in parallel, on
    every start (docs/performance.md, Part 17)."""
    if db.backend != "postgresql":
        return []
    ours = {table.name for table in SQLModel.metadata.sorted_tables}
    never = text(
        "SELECT relname, n_live_tup FROM pg_stat_user_tables"
        " WHERE schemaname = current_schema() AND n_live_tup > :rows"
        " AND last_analyze IS NULL AND last_autoanalyze IS NULL ORDER BY relname"
    )

    def _do(session: Session) -> list[str]:
        warnings = []
        if session.execute(text("SHOW autovacuum")).scalar_one() != "on":
            warnings.append(
                "PostgreSQL's autovacuum is off: nothing keeps the query planner's statistics "
                "up to date; turn it on, or run ANALYZE after large imports and regularly"
            )
        for name, rows in session.execute(never, {"rows": min_rows}).all():
            if name in ours:
                warnings.append(
                    f"table {name} ({rows:,} rows) has never been analyzed: its queries are "
                    f"planned without statistics; run ANALYZE {name}"
                )
        return warnings

    return db.read(_do)


def table_counts(db: Database) -> dict[str, int]:
    """Row counts for every quizbot table present in the database, by table name."""

    def _do(session: Session) -> dict[str, int]:
        present = set(inspect(session.connection()).get_table_names())
        counts: dict[str, int] = {}
        for table in SQLModel.metadata.sorted_tables:
            if table.name in present:
                n = session.execute(select(func.count()).select_from(table)).scalar_one()
                counts[table.name] = int(n)
        return dict(sorted(counts.items()))

    return db.read(_do)
