"""Generation as a service: what ``quizbot generate`` and the app call.

Resolves the KB, the prototype set and the knowledge points, generates the items, stores them in
the database (so every response can point at its item and lineage) and writes JSONL.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path
from typing import Any, Literal

from orjson import OPT_SORT_KEYS as SORT_KEYS
from orjson import dumps

from quizbot.config import Settings
from quizbot.errors import InputError
from quizbot.generate.candidates import DEFAULT_DIFFICULTY, Difficulty
from quizbot.generate.negatives import NegativeSampler
from quizbot.generate.points import candidate_points, stratified
from quizbot.generate.prototypes import (
    PrototypeSet,
    default_prototypes,
    load_pool_csv,
    load_pretex_csv,
    read_prototypes,
)
from quizbot.generate.rephrase import (
    CompletionText,
    Rephraser,
    ScriptedCompleter,
    statement_key,
)
from quizbot.generate.statements import PointPlan, plan_for, plan_generation, statements
from quizbot.items import (
    GENERATOR_VERSION,
    AnyItem,
    ChoiceItem,
    RecallItem,
    StatementEncoder,
    StatementIds,
    StatementItem,
    StatementSide,
)
from quizbot.jsonl import read_objects
from quizbot.kb.model import KnowledgeBaseData, Triplet
from quizbot.kb.registry import get_kb
from quizbot.providers import (
    Provider,
    ProviderError,
    Request,
    get_provider,
    resolve_model_settings,
)
from quizbot.providers.judge import ask_rephrase_judge
from quizbot.providers.retry import call_with_retries
from quizbot.transforms import Polarity, Transform
from storage import Database
from storage.repo import (
    ItemRow,
    NewItem,
    get_items,
    get_prototype_set,
    get_rephrasing,
    knowledge_point_ids,
    put_rephrasing,
    save_items_bulk,
)

__all__ = [
    "DbRephraseCache",
    "GenerateRequest",
    "Generation",
    "GenerationSummary",
    "ProviderCompleter",
    "ProviderRephraseJudge",
    "any_item_from_row",
    "item_from_row",
    "item_rows",
    "load_any_items",
    "load_items",
    "load_script",
    "prepare",
    "read_points_file",
    "rephrased",
    "resolve_prototypes",
    "resolve_rephraser",
    "store_items",
    "write",
]

Progress = Callable[[int], None]
# From this many knowledge points on, write() reads all of the KB's point ids at once.
ALL_POINT_IDS_FROM = 2000


@dataclass(frozen=True)
class GenerateRequest:
    """Everything ``quizbot generate`` can ask for."""

    kb: str
    relations: Sequence[str] | None = None
    points: int | None = None
    seed: int | str = 0
    prototypes: str | None = None  # a file path or the name of an imported set
    format: Literal["statements", "choice", "multi", "numeric", "recall"] = "statements"
    points_file: Path | None = None
    store: bool = True
    rephrase: str | None = None  # a model, or "scripted:FILE.jsonl"
    judge: str | None = None  # a model that may confirm rephrasings the rules cannot decide
    # How negatives and distractors are chosen (quizbot/generate/candidates.py).
    difficulty: Difficulty = DEFAULT_DIFFICULTY


@dataclass
class Generation:
    """A resolved generation: the KB, prototypes and points; items are produced on demand."""

    request: GenerateRequest
    kb: KnowledgeBaseData
    kb_id: int
    prototypes: PrototypeSet
    facts: list[Triplet]
    plans: list[PointPlan]
    skipped_no_negative: int = 0  # points left out: no safe negative (or one already stated)
    notes: list[str] = field(default_factory=list)
    rephraser: Rephraser | None = None
    # Multiple-choice questions not made, by reason (filled while items() runs).
    questions_skipped: Counter[str] = field(default_factory=Counter)

    @property
    def expected_items(self) -> int | None:
        """How many items :meth:`items` will yield, when known in advance."""
        if self.request.format != "statements":
            return None
        return 16 * (len(self.plans) - self.skipped_no_negative)

    def items(self) -> Iterator[AnyItem]:
        """Generate the items (streams; nothing is held in memory)."""
        if self.request.format == "recall":
            from quizbot.generate.recall import plan_recall, recall_items  # noqa: PLC0415

            plan = plan_recall(
                self.kb,
                relations=self.request.relations,
                limit=self.request.points,
                seed=str(self.request.seed),
            )
            yield from recall_items(self.kb, plan)
        elif self.request.format == "choice":
            from quizbot.generate.choice import choice_questions  # noqa: PLC0415 - optional

            yield from choice_questions(
                self.kb,
                self.facts,
                seed=self.request.seed,
                difficulty=self.request.difficulty,
                skipped=self.questions_skipped,
            )
        elif self.request.format == "multi":
            from quizbot.generate.choice import multi_answer_questions  # noqa: PLC0415 - optional

            yield from multi_answer_questions(
                self.kb, self.facts, seed=self.request.seed, difficulty=self.request.difficulty
            )
        elif self.request.format == "numeric":
            from quizbot.generate.numeric import numeric_questions  # noqa: PLC0415 - optional

            yield from numeric_questions(self.kb, self.facts)
        elif self.rephraser is None:
            yield from statements(self.kb, self.plans, self.prototypes, balanced=True)
        else:
            made = statements(self.kb, self.plans, self.prototypes, balanced=True)
            yield from rephrased(self.rephraser, made)


def rephrased(rephraser: Rephraser, items: Iterable[StatementItem]) -> Iterator[StatementItem]:
    """``items`` with each text replaced by its validated rephrasing, where there is one."""
    for made in items:
        done = rephraser.rephrase(
            made.text, head=made.head, tail=made.tail, negated=made.transform.negated
        )
        yield made._replace(text=done.text, rephrase_model=done.model) if done.rephrased else made


@dataclass(frozen=True)
class GenerationSummary:
    """What writing a generation produced."""

    n_items: int
    stored_new: int


class DbRephraseCache:
    """Validated rephrasings kept in the database, shared by every run and process."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, model: str, statement: str) -> str | None:
        """A cached rephrasing, if any."""
        return get_rephrasing(self.db, model, statement_key(statement))

    def put(self, model: str, statement: str, text: str) -> None:
        """Remember a validated rephrasing."""
        put_rephrasing(self.db, model, statement_key(statement), statement, text)


def load_script(path: Path) -> dict[str, str]:
    """A scripted rephraser's answers: JSONL objects ``{"statement", "rephrased"}``."""
    script: dict[str, str] = {}
    label = str(path)
    for number, record in read_objects(path):
        for key in ("statement", "rephrased"):
            if not isinstance(record.get(key), str):
                raise InputError("missing or not text", path=label, line=number, field=key)
        script[record["statement"]] = record["rephrased"]
    return script


class ProviderCompleter:
    """Rephrasing through any provider of the evaluation seam (litellm models, local servers).

    The rephraser is synchronous; provider calls are async. One event loop in a background
    thread serves every call, so connection pools live as long as the completer.
    """

    def __init__(self, provider: Provider, *, attempts: int = 3, give_up_after: int = 3) -> None:
        self.provider = provider
        self.model = provider.name
        self.attempts = attempts
        self.give_up_after = give_up_after
        self._failures = 0  # consecutive; past give_up_after the model is taken as unavailable
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def complete(self, prompt: str) -> CompletionText:
        """One rephrasing, with the shared retry policy and a circuit breaker.

        After ``give_up_after`` failed statements in a row the model is taken as unavailable and
        further calls fail at once, so an unreachable model costs seconds, not the full retry
        schedule for every statement (the rephraser then keeps the prototype statements).
        """
        if self._failures >= self.give_up_after:
            raise ProviderError(
                f"{self.model} failed {self._failures} times in a row; not asked again",
                retryable=False,
            )
        request = Request(
            text=prompt, messages=({"role": "user", "content": prompt},), max_tokens=120
        )
        future = asyncio.run_coroutine_threadsafe(
            call_with_retries(lambda: self.provider.complete(request), attempts=self.attempts),
            self._loop,
        )
        try:
            completion = future.result()
        except Exception:
            self._failures += 1
            raise
        self._failures = 0
        return CompletionText(completion.text, completion.model)

    def close(self) -> None:
        """Release the provider's connections and stop the background loop."""
        asyncio.run_coroutine_threadsafe(self.provider.aclose(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)


class ProviderRephraseJudge:
    """A :class:`~quizbot.generate.rephrase.CandidateJudge` through any provider: asks
    :func:`~quizbot.providers.judge.ask_rephrase_judge` on a background event loop. Only a plain
    "Yes" confirms; "No", an unclear reply or a failure leaves the rejection standing."""

    def __init__(self, provider: Provider, *, attempts: int = 3) -> None:
        self.provider = provider
        self.model = provider.name
        self.attempts = attempts
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def confirm(self, statement: str, rewrite: str) -> bool:
        """Whether the judge says ``rewrite`` states the same claim as ``statement``."""
        future = asyncio.run_coroutine_threadsafe(
            ask_rephrase_judge(self.provider, statement, rewrite, attempts=self.attempts),
            self._loop,
        )
        return future.result().verdict == "correct"

    def close(self) -> None:
        """Release the provider's connections and stop the background loop."""
        asyncio.run_coroutine_threadsafe(self.provider.aclose(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)


def resolve_rephraser(
    db: Database,
    spec: str | None,
    settings: Settings | None = None,
    *,
    synonyms: Mapping[str, Sequence[str]] | None = None,
    judge: str | None = None,
) -> Rephraser | None:
    """The rephrasing stage for ``--rephrase``, or ``None`` without it.

    A model is reached as :func:`~quizbot.providers.resolve_model_settings` says for ``settings``.
    ``synonyms`` (the KB's ``Lexicon.synonyms``) let the validator accept an entity's other names.
    ``judge`` names a model that may confirm a rephrasing the rules reject for a reason they
    cannot weigh (:data:`~quizbot.generate.rephrase.JUDGEABLE`); it needs ``spec``.
    """
    if spec is None:
        if judge is not None:
            raise InputError("--judge confirms rephrasings: it needs --rephrase MODEL")
        return None
    checker = (
        ProviderRephraseJudge(get_provider(judge, resolve_model_settings(judge, settings)))
        if judge is not None
        else None
    )
    if spec.startswith("scripted:"):
        path = Path(spec.removeprefix("scripted:")).expanduser()
        script = load_script(path)
        # A statement the script does not cover is offered back unchanged, which the validator
        # declines quietly (counted as "unchanged"), rather than logged as a failure.
        completer = ScriptedCompleter(
            lambda statement: script.get(statement, statement), model=f"scripted/{path.stem}"
        )
        return Rephraser(completer, DbRephraseCache(db), synonyms=synonyms, judge=checker)
    provider = get_provider(spec, resolve_model_settings(spec, settings))
    return Rephraser(
        ProviderCompleter(provider), DbRephraseCache(db), synonyms=synonyms, judge=checker
    )


def resolve_prototypes(db: Database, spec: str | None) -> PrototypeSet:
    """The default pool, a prototype file, or an imported set by name."""
    if spec is None:
        return default_prototypes()
    path = Path(spec).expanduser()
    if path.is_file():
        return read_prototypes(path, path.name)[0]
    row = get_prototype_set(db, spec)
    if row is None:
        raise InputError(
            f"no prototype file or imported prototype set named {spec!r}",
            hint="give a path to a CSV, or import one with "
            "`quizbot kb import --format prototypes PATH --name NAME`",
        )
    load = load_pool_csv if row.format == "pool" else load_pretex_csv
    return load(text=row.content, name=row.name, source=f"imported set {row.name!r}")


def read_points_file(
    path: Path, kb: KnowledgeBaseData, difficulty: Difficulty = DEFAULT_DIFFICULTY
) -> list[PointPlan]:
    """Explicit points, one JSON object per line: head, relation, tail, optional negative_tail."""
    plans: list[PointPlan] = []
    sampler = NegativeSampler(kb, difficulty=difficulty)
    label = str(path)
    for number, record in read_objects(path):
        for key in ("head", "relation", "tail"):
            if not isinstance(record.get(key), str) or not record[key].strip():
                raise InputError("missing or not text", path=label, line=number, field=key)
        negative = record.get("negative_tail")
        if negative is not None and (not isinstance(negative, str) or not negative.strip()):
            raise InputError(
                "must be non-empty text", path=label, line=number, field="negative_tail"
            )
        fact = Triplet(record["head"].strip(), record["relation"].strip(), record["tail"].strip())
        plans.append(
            PointPlan(fact, negative.strip(), "given") if negative else plan_for(sampler, fact)
        )
    if not plans:
        raise InputError("no points", path=label)
    return plans


def _select_facts(kb: KnowledgeBaseData, request: GenerateRequest) -> list[Triplet]:
    relations = list(request.relations) if request.relations else None
    if relations:
        unknown = sorted(set(relations) - set(kb.relations))
        if unknown:
            raise InputError(
                f"knowledge base {kb.name!r} has no relation {unknown[0]!r}",
                hint=f"its relations: {', '.join(sorted(kb.relations))}",
            )
    pool = candidate_points(kb, relations)
    if request.points is None:
        return pool  # every point, in KB order
    return stratified(kb.name, pool, f"seed\x1f{request.seed}", limit=request.points)


def prepare(db: Database, request: GenerateRequest, settings: Settings | None = None) -> Generation:
    """Resolve a request: KB, prototypes, points and their negatives. Raises on bad input.

    ``settings`` tell how to reach a rephrasing model (see :func:`resolve_rephraser`).
    """
    kb, kb_id = get_kb(db, request.kb)
    prototypes = resolve_prototypes(db, request.prototypes)
    notes: list[str] = []
    if request.format == "recall":
        return _prepare_recall(request, kb, kb_id, prototypes)
    if request.points_file is not None:
        plans = read_points_file(request.points_file, kb, request.difficulty)
        facts = [p.fact for p in plans]
    else:
        if request.format == "numeric" and not request.relations:
            # Numeric questions exist only where the KB holds numbers (HPO frequencies).
            from quizbot.generate.choice import PHENOTYPE_RELATION  # noqa: PLC0415

            if PHENOTYPE_RELATION not in kb.relations:
                raise InputError(
                    f"knowledge base {kb.name!r} holds no numbers to ask about",
                    hint="numeric questions need HPO phenotype frequencies (--kb hpo)",
                )
            request = replace(request, relations=[PHENOTYPE_RELATION])
        uncovered = prototypes.missing(kb.relations) if request.format == "statements" else []
        if uncovered and not request.relations:
            # Like the paper with MedLAMA: state only the relations the prototypes cover.
            request = replace(request, relations=sorted(set(kb.relations) - set(uncovered)))
            notes.append(f"skipped relations the prototypes do not cover: {', '.join(uncovered)}")
        facts = _select_facts(kb, request)
        if not facts:
            raise InputError(f"knowledge base {kb.name!r} has no points for that selection")
        plans = []
    if request.format == "statements":
        missing = prototypes.missing({f.relation for f in facts})
        if missing:
            raise InputError(
                f"prototype set {prototypes.name!r} has no prototypes for: {', '.join(missing)}",
                hint="choose relations it covers (--relations) or another --prototypes file",
            )
        if not plans:
            sampler = NegativeSampler(kb, request.seed, difficulty=request.difficulty)
            plans = plan_generation(sampler, facts)
    generation = Generation(
        request,
        kb,
        kb_id,
        prototypes,
        facts,
        plans,
        notes=notes,
        rephraser=resolve_rephraser(
            db,
            request.rephrase,
            settings,
            synonyms=kb.lexicon.synonyms,
            judge=request.judge,
        ),
    )
    generation.skipped_no_negative = _unstated(plans)
    return generation


def _unstated(plans: Sequence[PointPlan]) -> int:
    """Points a balanced generation leaves out: no safe negative, or one already stated."""
    seen: set[tuple[str, str, str]] = set()
    left_out = 0
    for plan in plans:
        key = (plan.fact.relation, plan.fact.head, plan.negative_tail or "")
        if plan.negative_tail is None or key in seen:
            left_out += 1
        else:
            seen.add(key)
    return left_out


def _prepare_recall(
    request: GenerateRequest, kb: KnowledgeBaseData, kb_id: int, prototypes: PrototypeSet
) -> Generation:
    """Recall items need no points or negatives: the plan checks the request now."""
    from quizbot.generate.recall import plan_recall  # noqa: PLC0415

    if request.points_file is not None or request.rephrase is not None or request.judge:
        raise InputError("--points-file, --rephrase and --judge do not apply to --format recall")
    plan = plan_recall(
        kb, relations=request.relations, limit=request.points, seed=str(request.seed)
    )
    if not plan.pairs:
        raise InputError(f"knowledge base {kb.name!r} has no disease lists for that selection")
    facts = [Triplet(h, aspect.relation, tail) for aspect, h, gold in plan.pairs for tail in gold]
    return Generation(request, kb, kb_id, prototypes, facts, [], notes=list(plan.notes))


def write(
    db: Database,
    generation: Generation,
    out: Path | None,
    progress: Progress | None = None,
    chunk: int = 5000,
) -> GenerationSummary:
    """Stream a generation's items to a JSONL file and, if asked, the database; all or nothing.

    The items are stored in one transaction (:func:`storage.repo.save_items_bulk`, ``chunk``
    rows at a time) that commits after the last line is written, and the file is renamed into
    place only then: a failure leaves neither a partial file nor partly stored items (only that
    rename, after the commit, can fail alone; running again is then safe). Storing is
    idempotent (an item already stored is kept as it is). Statements are encoded by a
    :class:`~quizbot.items.StatementEncoder` (each point's ids computed once for its statements);
    the records are the bytes of ``orjson.dumps(item.to_json(), option=OPT_SORT_KEYS)``.
    """
    n = 0
    store = generation.request.store
    encoder = StatementEncoder()
    record = encoder.record  # without storing, the ids are not needed: the records alone
    # Many points: read every point id of the KB once (0.16 s for MedLAMA's 43,647) rather than
    # chunk by chunk by key (0.9 s); few points (HPO --points 30): by key, not all 140,000.
    point_ids = (
        knowledge_point_ids(db, generation.kb_id)
        if store and len(generation.facts) >= ALL_POINT_IDS_FROM
        else None
    )
    tmp = out.with_name(out.name + ".tmp") if out is not None else None
    try:
        handle = tmp.open("wb") if tmp is not None else None
    except OSError as exc:
        raise InputError(f"cannot write ({exc.strerror})", path=str(out)) from None

    def batches() -> Iterator[list[NewItem]]:
        """The rows to store, a chunk at a time; each chunk's lines are written first."""
        nonlocal n
        lines: list[bytes] = []
        buffer: list[AnyItem] = []
        known: list[StatementIds | None] = []
        for item in chain(generation.items(), [None]):
            if item is not None:
                if not store:
                    lines.append(
                        record(item)
                        if type(item) is StatementItem
                        else dumps(item.to_json(), option=SORT_KEYS)
                    )
                else:
                    if type(item) is StatementItem:
                        ids, line = encoder.encode(item)
                    else:
                        ids, line = None, dumps(item.to_json(), option=SORT_KEYS)
                    lines.append(line)
                    buffer.append(item)
                    known.append(ids)
                if len(lines) < chunk:
                    continue
            if not lines:
                break
            if handle is not None:
                handle.writelines((b"\n".join(lines), b"\n"))
            n += len(lines)
            if buffer:
                yield (
                    item_rows(buffer, point_ids, known)
                    if point_ids is not None
                    else _rows_of(db, generation.kb_id, buffer, known)
                )
            if progress is not None:
                progress(len(lines))
            lines, buffer, known = [], [], []

    stored = 0
    try:
        if store:
            stored = save_items_bulk(db, generation.kb_id, batches())
        else:
            for _ in batches():
                pass
        if handle is not None:
            handle.close()
            handle = None
            assert tmp is not None and out is not None
            tmp.replace(out)
    except OSError as exc:
        raise InputError(f"cannot write ({exc.strerror})", path=str(out)) from None
    finally:
        if handle is not None:
            handle.close()
        if tmp is not None:
            tmp.unlink(missing_ok=True)
    return GenerationSummary(n, stored)


def _lineage(item: ChoiceItem | RecallItem) -> dict[str, Any]:
    """The lineage stored with a choice or recall item (statements': :func:`item_rows`)."""
    if isinstance(item, RecallItem):
        return {
            "kb_version": item.kb_version,
            "aspect": item.aspect,
            "synonyms": {k: list(v) for k, v in item.synonyms.items()},
            "broader": {k: list(v) for k, v in item.broader.items()},
            "narrower": {k: list(v) for k, v in item.narrower.items()},
            "knowledge_point_ids": list(item.knowledge_point_ids),
            "meta": dict(item.meta),
        }
    return {
        "kb_version": item.kb_version,
        "question": item.question,
        "subtype": item.subtype,
        "knowledge_point_ids": list(item.knowledge_point_ids),
        "meta": dict(item.meta),
    }


def _recall_from_row(row: ItemRow) -> RecallItem:
    lineage = row.lineage

    def lists(key: str) -> dict[str, tuple[str, ...]]:
        return {k: tuple(v) for k, v in (lineage.get(key) or {}).items()}

    return RecallItem(
        kb=row.kb,
        kb_version=lineage.get("kb_version", ""),
        relation=row.relation,
        aspect=lineage.get("aspect", row.relation),
        head=row.head,
        question=row.text,
        answers=tuple(row.answer_keys or ()),
        synonyms=lists("synonyms"),
        broader=lists("broader"),
        narrower=lists("narrower"),
        knowledge_point_ids=tuple(lineage.get("knowledge_point_ids", ())),
        meta=lineage.get("meta", {}),
    )


def any_item_from_row(row: ItemRow) -> AnyItem:
    """Rebuild any stored item, recall items included."""
    return _recall_from_row(row) if row.kind == "recall" else item_from_row(row)


def load_any_items(db: Database, ids: Sequence[str]) -> list[AnyItem]:
    """Stored items of any kind (recall included) by id, rebuilt, in the order asked."""
    return [any_item_from_row(row) for row in get_items(db, ids)]


def item_from_row(row: ItemRow) -> StatementItem | ChoiceItem:
    """Rebuild a generated item from its database row (the inverse of :func:`store_items`).

    Recall items are rebuilt by :func:`any_item_from_row` (ValueError here).
    """
    lineage = row.lineage
    if row.kind == "recall":
        raise ValueError(f"item {row.id} is a recall item; read it with any_item_from_row")
    if row.kind == "choice":
        return ChoiceItem(
            kb=row.kb,
            kb_version=lineage.get("kb_version", ""),
            relation=row.relation,
            head=row.head,
            question=lineage.get("question") or row.text.split("\n", 1)[0],
            options=tuple(row.options or ()),
            answer_keys=tuple(row.answer_keys or ()),
            subtype=lineage.get("subtype", "semantic"),
            knowledge_point_ids=tuple(lineage.get("knowledge_point_ids", ())),
            meta=lineage.get("meta", {}),
        )
    side = StatementSide(
        kb=row.kb,
        kb_version=lineage.get("kb_version", ""),
        relation=row.relation,
        head=row.head,
        tail=row.tail,
        polarity=Polarity(row.polarity),
        prototype_set=lineage.get("prototype_set", ""),
        positive_tail=lineage.get("positive_tail"),
        meta=lineage.get("meta", {}),
    )
    return StatementItem(
        side,
        Transform(row.transform or "none"),
        bool(row.label),
        row.text,
        row.prototype or "",
        row.rephrase_model,
    )


def load_items(db: Database, ids: Sequence[str]) -> list[StatementItem | ChoiceItem]:
    """Stored items by id, rebuilt, in the order asked."""
    return [item_from_row(row) for row in get_items(db, ids)]


def item_rows(
    items: Iterable[AnyItem],
    point_ids: Mapping[tuple[str, str, str], int] | None = None,
    known: Sequence[StatementIds | None] | None = None,
) -> list[NewItem]:
    """The rows that store ``items``; ``point_ids`` links statements to their stored points by
    (relation, head, tail). ``known`` may give, item by item, the ids a
    :class:`~quizbot.items.StatementEncoder` already computed for a statement (else they are
    computed here). Used by :func:`store_items`, :func:`write` and by item-set imports."""
    ids = point_ids or {}
    encoder = StatementEncoder()
    rows: list[NewItem] = []
    # The statements of one side (eight in a row, as generated) share one lineage dict: the
    # storage layer then serialises it once for them all (storage.bulk.RowWriter).
    last_side: StatementSide | None = None
    lineage: dict[str, Any] = {}
    stored_point: int | None = None
    for index, item in enumerate(items):
        if isinstance(item, StatementItem):
            side = item.side
            got = known[index] if known is not None else None
            if got is None:
                got = encoder.ids(item)
            if side is not last_side:
                last_side = side
                lineage = {
                    "kb_version": side.kb_version,
                    "prototype_set": side.prototype_set,
                    "knowledge_point_id": got.knowledge_point_id,
                    "fact_id": got.fact_id,
                    "positive_tail": side.positive_tail,
                    "meta": dict(side.meta),
                }
                stored_point = ids.get((side.relation, side.head, side.positive_tail or side.tail))
            # Positional, in NewItem's field order: keywords cost about 1 us more per row.
            rows.append(
                NewItem(
                    got.id,  # id
                    "statement",  # kind
                    side.relation,  # relation
                    side.head,  # head
                    side.tail,  # tail
                    item.text,  # text
                    GENERATOR_VERSION,  # generator_version
                    stored_point,  # knowledge_point_id
                    side.polarity,  # polarity (a StrEnum is already a str)
                    item.transform,  # transform
                    item.label,  # label
                    item.prototype,  # prototype
                    None,  # options
                    None,  # answer_keys
                    got.pair_id,  # pair_key
                    item.rephrase_model,  # rephrase_model
                    lineage,  # lineage
                )
            )
        else:  # a choice or recall question: no tail or label, its keys listed
            options: list[str] | None
            if isinstance(item, RecallItem):
                text, options, keys = item.question, None, list(item.answers)
            else:
                text, options, keys = item.text, list(item.options), list(item.answer_keys)
            rows.append(
                NewItem(
                    id=item.id,
                    kind=item.kind,
                    relation=item.relation,
                    head=item.head,
                    tail="",
                    polarity="positive",
                    text=text,
                    options=options,
                    answer_keys=keys,
                    generator_version=GENERATOR_VERSION,
                    lineage=_lineage(item),
                )
            )
    return rows


def _rows_of(
    db: Database,
    kb_id: int,
    items: Sequence[AnyItem],
    known: Sequence[StatementIds | None] | None = None,
) -> list[NewItem]:
    """``items`` as rows, their statements linked to the KB's stored points."""
    keys = {
        (i.relation, i.head, i.positive_tail or i.tail)
        for i in items
        if isinstance(i, StatementItem)
    }
    ids = knowledge_point_ids(db, kb_id, keys) if keys else {}
    return item_rows(items, ids, known)


def store_items(db: Database, kb: KnowledgeBaseData, kb_id: int, items: Iterable[AnyItem]) -> int:
    """Write items to the database in one transaction (idempotent by content id); return how
    many were new."""
    items = list(items)
    return save_items_bulk(db, kb_id, [_rows_of(db, kb_id, items)])
