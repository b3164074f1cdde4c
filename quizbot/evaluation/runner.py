"""Evaluation runs: put items to a provider, score every answer, store it as it arrives.

A run is a model + items + prompt settings, recorded before the first call (items, demonstration
pool and settings in the run's config). Each answer is committed as soon as the single writer is
free (answers that arrive together share a transaction), so it can be resumed after Ctrl-C,
SIGKILL or a crash, losing at most the answers not yet committed (requests in flight, the
writer's current batch and what queued behind it while the database was busy):
:func:`execute` asks only the items that have no stored response. A call that still fails after
the retry policy is stored as an ``error`` outcome; ``retry_errors`` asks those again.

Failure is reported as failure. A run stops early when :data:`FAIL_FAST_AFTER` attempts in a row
fail with the same kind of error that means the model cannot be used (connection refused,
authentication, not found, bad request): items not yet asked are left unasked, nothing is retried
any more, and the run is ``failed`` with the first provider error (redacted) as its error text. A
run that ends with no usable answer at all is ``failed`` too. A failed run can be resumed
(``retry_errors``) once the cause is fixed; comparisons never offer it as a model.
Model calls are never served from a cache here unless the caller allows it for an
interactive batch: runs measure the model as it is now.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from quizbot.domain import Outcome, RespondentKind, Run, RunStatus
from quizbot.errors import ConfigError, InputError
from quizbot.evaluation.parse import parse_and_score
from quizbot.evaluation.prompts import build_prompt, select_demonstrations
from quizbot.evaluation.recall import Verdict, cosine, parse_tiers, score_recall
from quizbot.evaluation.recall import parse_list as parse_recall_list
from quizbot.evaluation.recall_judge import judge_of
from quizbot.generate.choice import choice_questions
from quizbot.generate.points import candidate_points, stratified
from quizbot.generate.service import load_any_items, store_items
from quizbot.generate.statements import plan_points, statements
from quizbot.items import ChoiceItem, RecallItem, StatementItem, is_idk_option
from quizbot.kb.registry import get_kb
from quizbot.providers import (
    Completion,
    ModelSettings,
    Provider,
    ProviderError,
    Request,
    embed,
)
from quizbot.providers.base import FATAL_KINDS
from quizbot.providers.cache import is_caching
from quizbot.providers.retry import call_with_retries
from storage import Database
from storage.repo import (
    NewResponse,
    answered_item_ids,
    count_responses,
    create_run,
    delete_error_responses,
    get_or_create_respondent,
    get_run,
    record_new_responses,
    record_responses,
    update_run,
)

__all__ = [
    "FAIL_FAST_AFTER",
    "RunConfig",
    "RunSummary",
    "Shard",
    "build_request",
    "demonstration_pool",
    "execute",
    "majority_answer",
    "prepare_run",
    "score_text",
]

log = logging.getLogger(__name__)

Item = StatementItem | ChoiceItem | RecallItem
_MAX_BATCH = 256
FAIL_FAST_AFTER = 5  # attempts in a row failing with one fatal kind of error stop the run
Progress = Callable[[int], None]


class _Breaker:
    """Counts attempts in a row that failed with one fatal kind of error; trips at a limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kind: str | None = None
        self.count = 0
        self.first: ProviderError | None = None
        self.tripped: ProviderError | None = None

    def failure(self, exc: ProviderError) -> None:
        if self.first is None:
            self.first = exc
        if exc.kind not in FATAL_KINDS:
            self.kind, self.count = None, 0
            return
        self.count = self.count + 1 if exc.kind == self.kind else 1
        self.kind = exc.kind
        if self.count >= self.limit and self.tripped is None:
            self.tripped = exc

    def success(self) -> None:
        self.kind, self.count = None, 0

    def open(self) -> bool:
        return self.tripped is not None


@dataclass(frozen=True)
class RunConfig:
    """Prompt and call settings of a run (stored with it; no secrets)."""

    model: str
    shots: int = 0
    idk: bool = False
    style: Literal["chat", "completion"] = "chat"
    max_tokens: int = 16
    concurrency: int = 8
    seed: str = "0"
    api_base: str | None = None
    attempts: int = 6
    forced: bool = False  # ask for a guess (the second pass of a two-pass assignment)
    recall_tiers: str | None = None  # "metric:low:high" for recall items (None: the defaults)
    embedding_model: str | None = None  # recall items: cosine of answer and gold embeddings
    embedding_api_base: str | None = None
    embedding_api_key_env: str | None = None  # the variable's name, never the key
    prompt: Literal["standard", "sdak"] = "standard"  # sdak: verdict first, then the reason
    temperature: float = 0.0  # sampling temperature of every call (repeats may set it higher)
    judge: str | None = None  # recall items: a judge model for unverified entries
    judge_api_base: str | None = None
    judge_api_key_env: str | None = None  # the variable's name, never the key
    judge_prompt_version: str | None = None
    judge_prompt: str | None = None  # the fixed prompt the judge is asked with

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunConfig:
        """Rebuild from a run's stored config."""
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**fields)


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` of a queued run: the run's items from position
    ``index * n // count`` up to (not including) ``(index + 1) * n // count``."""

    index: int
    count: int

    def item_ids(self, item_ids: Sequence[str]) -> list[str]:
        """This shard's part of the run's item ids (in the run's order)."""
        n = len(item_ids)
        return list(item_ids[self.index * n // self.count : (self.index + 1) * n // self.count])


@dataclass(frozen=True)
class RunSummary:
    """What a call to :func:`execute` did."""

    run_id: int
    model: str
    n_items: int
    asked: int
    errors: int
    status: str
    model_reported: str | None
    error: str | None = None  # why a failed run failed (redacted)


def majority_answer(items: Sequence[Item]) -> str:
    """The most frequent answer key of ``items`` ("True"/"False", or letters), for the baseline.

    Recall items have no answer key to repeat and are not counted.
    """
    keys = Counter(
        ("True" if item.label else "False")
        if isinstance(item, StatementItem)
        else ",".join(item.answer_keys)
        for item in items
        if not isinstance(item, RecallItem)
    )
    return sorted(keys.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] if keys else "True"


def demonstration_pool(
    db: Database, items: Sequence[Item], seed: str, n_points: int = 40
) -> list[Item]:
    """Demonstration items from KB facts outside the evaluated items (stored, for resume).

    Recall items: questions about diseases that are not asked in the run (any of their aspects).
    """
    if not items:
        return []
    kb, kb_id = get_kb(db, items[0].kb)
    if isinstance(items[0], RecallItem):
        from quizbot.generate.recall import plan_recall, recall_items  # noqa: PLC0415

        plan = plan_recall(
            kb,
            relations=sorted({i.relation for i in items}),
            limit=n_points,
            seed=f"demos\x1f{seed}",
            exclude_heads=frozenset(i.head for i in items),
        )
        recall_pool: list[Item] = list(recall_items(kb, plan))
        store_items(db, kb, kb_id, recall_pool)
        return recall_pool
    asked = {(i.relation, i.head) for i in items}
    relations = {i.relation for i in items}
    others = [t for t in candidate_points(kb, relations) if (t.relation, t.head) not in asked]
    chosen = stratified(kb.name, others, f"demos\x1f{seed}")[:n_points]
    pool: list[Item]
    if isinstance(items[0], ChoiceItem):
        pool = list(choice_questions(kb, chosen, seed=seed))
    else:
        from quizbot.generate.prototypes import default_prototypes  # noqa: PLC0415

        protos = default_prototypes()
        plans = [p for p in plan_points(kb, chosen, seed) if protos.covers(p.fact.relation)]
        pool = list(statements(kb, plans, protos))
    store_items(db, kb, kb_id, pool)
    return pool


def prepare_run(
    db: Database,
    items: Sequence[Item],
    config: RunConfig,
    *,
    name: str | None = None,
    demonstrations: Sequence[Item] | None = None,
    extra: Mapping[str, Any] | None = None,
    assignment_id: int | None = None,
    repeat_of: int | None = None,
) -> int:
    """Record a run (items, demonstrations, settings) before anything is asked; return its id.

    ``extra`` is stored with the run's config (e.g. a monitor's night and anchor item ids);
    ``assignment_id`` marks the run as made for that assignment; ``repeat_of`` as a repeat of
    that run (``--repeats``).
    """
    if not items:
        raise InputError("no items to evaluate")
    by_kb: dict[str, list[Item]] = {}
    for item in items:
        by_kb.setdefault(item.kb, []).append(item)
    for kb_name, kb_items in by_kb.items():
        kb, kb_id = get_kb(db, kb_name)
        store_items(db, kb, kb_id, kb_items)
    demos = (
        list(demonstrations)
        if demonstrations is not None
        else (demonstration_pool(db, items, config.seed) if config.shots else [])
    )
    kind = RespondentKind.BASELINE if config.model.startswith("baseline/") else RespondentKind.MODEL
    respondent = get_or_create_respondent(db, kind, config.model)
    assert respondent.id is not None
    stored = {
        **asdict(config),
        "item_ids": [i.id for i in items],
        "demo_ids": [d.id for d in demos],
        "majority_answer": majority_answer(items),
        **(extra or {}),
    }
    run = create_run(
        db,
        respondent_id=respondent.id,
        model_requested=config.model,
        config=stored,
        n_items=len(items),
        name=name,
        assignment_id=assignment_id,
        repeat_of=repeat_of,
    )
    assert run.id is not None
    return run.id


def build_request(
    item: Item, demos: Sequence[Item], config: RunConfig, evaluated: set[str]
) -> Request:
    """The request a run sends for ``item`` (demonstrations chosen, prompt built, stops set)."""
    chosen = (
        select_demonstrations(item, demos, config.shots, config.seed, exclude_ids=evaluated)
        if config.shots
        else ()
    )
    prompt = build_prompt(
        item,
        demonstrations=chosen,
        idk=config.idk,
        style=config.style,
        forced=config.forced,
        sdak=config.prompt == "sdak",
    )
    options: tuple[str, ...] = ()
    if isinstance(item, ChoiceItem):
        # The letters of the options offered, less any "I do not know" (baselines never abstain).
        offered = item.offered_options(config.idk)
        options = tuple(
            letter
            for letter, option in zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", offered, strict=False)
            if not is_idk_option(option)
        )
    return Request(
        text=prompt.text,
        messages=prompt.messages,
        style=config.style,
        max_tokens=config.max_tokens,
        temperature=config.temperature,
        options=options,
        # A base model continues the few-shot pattern past its answer; stop at the line's end.
        stop=("\n",) if config.style == "completion" else (),
    )


async def recall_cosine(item: RecallItem, text: str, config: RunConfig) -> float | None:
    """Cosine of the embeddings of the answer's entities and the gold list (each joined by
    spaces), when the run has an embedding model; None without one, for an answer with no list,
    or when the embedding call fails (logged; the lexical scores still stand)."""
    if not config.embedding_model:
        return None
    answers, _ = parse_recall_list(text, item.answers)
    if not answers:
        return None
    reach = ModelSettings(
        api_base=config.embedding_api_base, api_key_env=config.embedding_api_key_env
    )
    try:
        vectors = await call_with_retries(
            lambda: embed(
                config.embedding_model or "", [" ".join(answers), " ".join(item.answers)], reach
            ),
            attempts=3,
        )
    except ProviderError as exc:
        log.warning("embedding for item %s failed: %s", item.id, exc.message)
        return None
    return cosine(vectors[0], vectors[1])


def score_text(
    item: Item,
    text: str,
    config: RunConfig,
    *,
    cosine: float | None = None,
    verdicts: Mapping[str, Verdict] | None = None,
) -> tuple[str | None, str, Outcome]:
    """(parsed answer, reason, outcome) of a model's ``text`` for ``item`` under ``config``.

    Statements and choice items go through :mod:`quizbot.evaluation.parse`; recall items through
    :mod:`quizbot.evaluation.recall` with the run's tiers (the parsed answer is then a summary
    such as "recalled 2/4, wrong 1"; reports recompute every score from the raw text).
    """
    if isinstance(item, RecallItem):
        scored = score_recall(
            item, text, tiers=parse_tiers(config.recall_tiers), cosine=cosine, verdicts=verdicts
        )
        return scored.summary, scored.reason, scored.outcome
    parsed, outcome = parse_and_score(text, item, idk_offered=config.idk)
    return ("idk" if parsed.abstained else parsed.answer), parsed.reason, outcome


async def execute(
    db: Database,
    run_id: int,
    provider: Provider,
    *,
    retry_errors: bool = False,
    progress: Progress | None = None,
    allow_cache: bool = False,
    shard: Shard | None = None,
) -> RunSummary:
    """Ask every item of the run that has no stored response; store each answer as it comes.

    A caching provider is refused unless ``allow_cache`` (interactive batches in the app); the
    CLI and monitoring never allow it, so their runs measure the model as it answers now.

    ``shard`` (a queued run, :func:`quizbot.evaluation.service.enqueue`): ask only that
    shard's items, while other workers ask the others. An answer stored meanwhile for the same
    item is kept (never stored twice); an interruption leaves the run's status to the other
    shards; the run is finished (completed, or failed with no usable answers) by the shard
    that stores its last answer, and failed at once by a shard that finds the model cannot be
    used.
    """
    if is_caching(provider) and not allow_cache:
        raise ConfigError(
            f"run {run_id}: {provider.name} answers from a cache, which runs do not allow",
            hint="evaluate with the provider itself; caching is for interactive questions only",
        )
    run = get_run(db, run_id)
    config = RunConfig.from_json(run.config)
    if shard is not None and run.status == RunStatus.FAILED:
        await provider.aclose()  # another shard found the model unusable: nothing to ask
        return RunSummary(
            run_id, config.model, run.n_items, 0, 0, run.status, run.model_reported, run.error_text
        )
    item_ids: list[str] = run.config["item_ids"]
    todo, demos = await _to_ask(db, run, item_ids, shard, retry_errors=retry_errors)
    update_run(db, run_id, status=RunStatus.RUNNING)
    asking = _Asking(db, run, config, provider, demos, set(item_ids), todo)
    store = record_new_responses if shard is not None else record_responses
    writing = asyncio.create_task(_write(db, asking.queue, store, progress))
    try:
        await asyncio.gather(*(asking.ask(item_id, item) for item_id, item in todo))
        asking.queue.put_nowait(None)
        await writing
    except BaseException:
        writing.cancel()
        if shard is None:  # a shard is released: the run goes on in the other shards
            update_run(db, run_id, status=RunStatus.INTERRUPTED)
        raise
    finally:
        await provider.aclose()
        if asking.judge is not None:
            await asking.judge.aclose()
    return await _finish(db, run, asking, n_items=len(item_ids), n_asked=len(todo), shard=shard)


async def _to_ask(
    db: Database,
    run: Run,
    item_ids: list[str],
    shard: Shard | None,
    *,
    retry_errors: bool,
) -> tuple[list[tuple[str, Item]], list[Item]]:
    """The (id, item) pairs still to ask (a shard's only) and the demonstration pool; with
    ``retry_errors`` the stored errors are cleared first, so those items are asked again."""
    # The run's stored ids, in the items' order (load_any_items keeps it): an item's id is a
    # content hash, computed again on every access. A shard builds only its own items.
    asked_ids = shard.item_ids(item_ids) if shard is not None else item_ids
    items = load_any_items(db, asked_ids)
    demos = load_any_items(db, run.config.get("demo_ids", []))
    if retry_errors:
        cleared = await asyncio.to_thread(delete_error_responses, db, run.id)
        if cleared:  # a night's first run has none: say nothing then
            log.info("run %d: asking %d failed item(s) again", run.id, cleared)
    done = await asyncio.to_thread(answered_item_ids, db, run.id)
    todo = [
        (item_id, item)
        for item_id, item in zip(asked_ids, items, strict=True)
        if item_id not in done
    ]
    return todo, demos


class _Asking:
    """The asking side of one :func:`execute`: at most ``concurrency`` calls in flight, the
    retry policy, the breaker that stops a run whose model cannot be used, scoring (with the
    run's judge for recall items), and the queue of responses for the writer."""

    def __init__(
        self,
        db: Database,
        run: Run,
        config: RunConfig,
        provider: Provider,
        demos: Sequence[Item],
        evaluated: set[str],
        todo: Sequence[tuple[str, Item]],
    ) -> None:
        self.run = run
        self.config = config
        self.provider = provider
        self.demos = demos
        self.evaluated = evaluated
        stored_pass = run.config.get("pass")  # 1 or 2 on a two-pass assignment, else absent
        self.answer_pass = stored_pass if stored_pass in (1, 2) else None
        self.limit = asyncio.Semaphore(max(1, min(config.concurrency, provider.max_concurrency)))
        self.reported: Counter[str] = Counter()
        self.errors = 0
        self.breaker = _Breaker(FAIL_FAST_AFTER)
        has_recall = any(isinstance(i, RecallItem) for _, i in todo)
        self.judge = judge_of(db, config) if has_recall else None
        self.queue: asyncio.Queue[NewResponse | None] = asyncio.Queue()

    async def _attempt(self, request: Request) -> Completion:
        try:
            completion = await self.provider.complete(request)
        except ProviderError as exc:
            self.breaker.failure(exc)
            raise
        self.breaker.success()
        return completion

    async def _answer(self, request: Request) -> Completion:
        """One call; the retry policy takes over only if it fails (its set-up costs CPU)."""
        try:
            return await self._attempt(request)
        except ProviderError as exc:
            failed: list[ProviderError] = [exc]

        async def again() -> Completion:
            if failed:  # the policy's first attempt is the one that just failed
                raise failed.pop()
            return await self._attempt(request)

        return await call_with_retries(
            again, attempts=self.config.attempts, give_up=self.breaker.open
        )

    async def ask(self, item_id: str, item: Item) -> None:
        """Ask ``item`` (unless the breaker is open) and queue its scored response or error."""
        request = build_request(item, self.demos, self.config, self.evaluated)
        async with self.limit:
            if self.breaker.open():
                return  # the model cannot be used: leave the item for a resume
            try:
                completion = await self._answer(request)
            except ProviderError as exc:
                self.errors += 1
                response = NewResponse(
                    item_id=item_id,
                    respondent_id=self.run.respondent_id,
                    run_id=self.run.id,
                    answer_pass=self.answer_pass,
                    outcome=Outcome.ERROR,
                    prompt=request.text,
                    error_text=exc.message,
                )
            else:
                response = await self._scored(item_id, item, request, completion)
        self.queue.put_nowait(response)

    async def _scored(
        self, item_id: str, item: Item, request: Request, completion: Completion
    ) -> NewResponse:
        """The response to store for an answer: parsed and scored (recall: with the cosine and
        the judge's verdicts when the run has them)."""
        config = self.config
        similarity = (
            await recall_cosine(item, completion.text, config)
            if isinstance(item, RecallItem)
            else None
        )
        verdicts = (
            await self.judge.verdicts(item, completion.text)
            if self.judge is not None and isinstance(item, RecallItem)
            else None
        )
        parsed_answer, reason, outcome = score_text(
            item, completion.text, config, cosine=similarity, verdicts=verdicts
        )
        self.reported[completion.model] += 1
        return NewResponse(
            item_id=item_id,
            respondent_id=self.run.respondent_id,
            run_id=self.run.id,
            answer_pass=self.answer_pass,
            outcome=outcome,
            prompt=request.text,
            raw_text=completion.text,
            parsed_answer=parsed_answer,
            parse_reason=reason,
            latency_ms=completion.latency_ms,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            total_tokens=completion.total_tokens,
            provider_model=completion.model,
            cached=completion.cached,
        )


async def _write(
    db: Database,
    queue: asyncio.Queue[NewResponse | None],
    store: Callable[[Database, list[NewResponse]], Any],
    progress: Progress | None,
) -> None:
    """The one writer: drains ``queue`` until its ``None``.

    Each response is written as soon as the writer is free, and whatever arrived meanwhile goes
    in the same transaction (group commit). One thread doing the writes, instead of one per
    response, keeps the event loop free of GIL contention.
    """
    done = False
    while not done:
        batch: list[NewResponse] = []
        first = await queue.get()
        if first is None:
            break
        batch.append(first)
        while not queue.empty() and len(batch) < _MAX_BATCH:
            nxt = queue.get_nowait()
            if nxt is None:
                done = True
                break
            batch.append(nxt)
        await asyncio.to_thread(store, db, batch)
        if progress is not None:
            progress(len(batch))


async def _finish(
    db: Database, run: Run, asking: _Asking, *, n_items: int, n_asked: int, shard: Shard | None
) -> RunSummary:
    """Close the run once asked: failed (the breaker tripped, or no usable answer at all) or
    completed; a shard leaves a run with unanswered items to the other shards."""
    run_id, model = run.id, asking.config.model
    reported = asking.reported
    model_reported = reported.most_common(1)[0][0] if reported else run.model_reported
    usable = await asyncio.to_thread(count_responses, db, run_id=run_id, usable=True)
    breaker = asking.breaker
    error: str | None = None
    if breaker.tripped is not None:
        first = breaker.first or breaker.tripped
        error = (
            f"stopped after {breaker.limit} {breaker.tripped.kind.replace('_', ' ')} errors "
            f"in a row; first error: {first.message}"
        )
    elif shard is not None and not _all_answered(db, run_id, n_items):
        return RunSummary(
            run_id, model, n_asked, n_asked, asking.errors, RunStatus.RUNNING, model_reported
        )  # the other shards finish the run
    elif usable == 0:
        cause = breaker.first.message if breaker.first else "nothing was answered"
        error = f"no usable answers; first error: {cause}"
    status = RunStatus.FAILED if error else RunStatus.COMPLETED
    if shard is not None and get_run(db, run_id).status == RunStatus.FAILED:
        status, error = RunStatus.FAILED, None  # another shard failed it: failure stands
    if error:
        log.error("run %d (%s) failed: %s", run_id, model, error)
    finished = update_run(
        db, run_id, status=status, model_reported=model_reported, error_text=error
    )
    if shard is not None and status == RunStatus.FAILED:
        error = finished.error_text
    return RunSummary(
        run_id, model, n_items, n_asked, asking.errors, finished.status, model_reported, error
    )


def _all_answered(db: Database, run_id: int, n_items: int) -> bool:
    """Whether every item of the run has a stored answer (the last shard finishes the run)."""
    return count_responses(db, run_id=run_id) >= n_items
