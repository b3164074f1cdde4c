"""The one evaluation entry point: items + model + prompt settings -> a stored, scored run.

Every front end evaluates through here: ``quizbot eval`` (new runs and ``--resume``), the app's
"Ask a model" batches and the nightly monitors. What they used to decide each on their own is
decided once:

* how the model is reached (:func:`quizbot.providers.resolve_model_settings`: command line, then
  ``QUIZBOT_MODEL_SETTINGS``, then the local server, then litellm's own variables);
* the prompt style (:func:`prompt_style`: asked for, else the model's settings entry, else text
  completion for ``local/`` base models and chat for everything else);
* that the provider is built *before* the run is recorded, so a model that cannot be reached, a
  mistyped baseline or a missing local server is a user error that leaves no pending run behind;
* that runs never answer from a cache unless an interactive caller says so.

:func:`run` carries out a :class:`RunRequest` (a new run or repeat group, a resume, a queued
run, a worker's shard, pass 2 of a two-pass assignment) and is the only caller of the runner:
the CLI, the app's batches, monitors and workers build a request and call it, watching each run
with a progress callback of their own (:data:`Watch`). Its parts: :func:`start` records a run
and returns it ready to execute; :func:`reopen` readies a stored run (resume, a monitor night
taken over); :func:`evaluate` is :func:`run` for one new run; :func:`ask_once` puts one item to
one model with no run (the app's single questions).

Assignments. A run made for an assignment (``EvalSpec.assignment_id``) is asked under the
assignment's protocol (:mod:`quizbot.generate.protocol`): its answer options ("I do not know" or
not), its instruction and its worked examples, whatever the caller's defaults; a setting the caller
gave that says otherwise (``EvalSpec.flags_given``) is an error naming the assignment's setting.

Two-pass assignments (EBMQA). A run made for an assignment whose protocol is two-pass is
pass 1: :func:`start` offers "I do not know" (``idk``) and records ``"pass": 1``.
:func:`start_second_pass` then records pass 2 as a run of its own on the items pass 1 abstained
on, with the forced-answer prompt (``forced``:
:data:`quizbot.evaluation.prompts.FORCED_INSTRUCTION`), ``"pass": 2`` and ``"first_run"``;
the runner stores the pass on every answer (``answer_pass``).

Permutation runs (EBMQA). ``EvalSpec.permutations`` (K option orders) and ``EvalSpec.idk_both``
(each order with and without "I do not know") make :func:`start` ask every choice item as K
(or 2K) variant items with their keys remapped (:mod:`quizbot.evaluation.permutations`), and
store the plan in the run's config under ``"permutations"`` for the stability report.
SDAK (self-diagnostic atomic knowledge). ``EvalSpec.prompt = "sdak"`` asks statements with
:data:`quizbot.evaluation.prompts.SDAK_TEMPLATE` (the verdict "Correct"/"Incorrect" first, then
the reason); :func:`start` refuses it for choice or recall items, with demonstrations
(``shots``) and with "I do not know" (``idk``), none of which the SDAK question has. The answer
is scored like any statement answer; the SDAK reading (verdict at the start, reason) is taken
again from the raw text by the report (:mod:`quizbot.analysis.sdak`).

Repeats. :func:`start_repeats` records N runs of the same items and settings at once, the
second to the last pointing at the first (``eval_run.repeat_of``); each is an ordinary run of
its own (resumable, reportable) and the report of any of them adds mean ± SD over the group
(:func:`quizbot.analysis.repeats.repeat_summary`). ``EvalSpec.temperature`` is sent with every
call (0 unless asked: repeats then measure only the provider's own nondeterminism).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from quizbot.config import Settings
from quizbot.domain import MAX_TOKENS, RECALL_MAX_TOKENS, SDAK_MAX_TOKENS, Outcome, RunStatus
from quizbot.errors import ConfigError, InputError, QuizbotError, redact
from quizbot.evaluation.permutations import MAX_PERMUTATIONS, permute
from quizbot.evaluation.recall import parse_tiers
from quizbot.evaluation.runner import (
    Item,
    Progress,
    RunConfig,
    RunSummary,
    Shard,
    build_request,
    execute,
    majority_answer,
    prepare_run,
    recall_cosine,
    score_text,
)
from quizbot.generate.protocol import Protocol
from quizbot.generate.service import load_items
from quizbot.items import ChoiceItem, RecallItem, StatementItem
from quizbot.providers import (
    ModelSettings,
    Provider,
    ProviderError,
    get_provider,
    resolve_model_settings,
)
from quizbot.providers.cache import CachedProvider, CallStore
from quizbot.providers.judge import prompt_config
from quizbot.providers.retry import call_with_retries
from storage import Database
from storage.assignments import assignment_by_id, assignment_runs
from storage.repo import delete_error_responses, get_run, list_responses, repeat_group, update_run

__all__ = [
    "EvalSpec",
    "ModelAnswer",
    "ModelOverrides",
    "ProviderFactory",
    "ReadyRun",
    "RunOutcome",
    "RunRequest",
    "Watch",
    "ask_once",
    "enqueue",
    "evaluate",
    "prompt_style",
    "reopen",
    "reopen_group",
    "reply_tokens",
    "requeue",
    "run",
    "run_shard",
    "start",
    "start_repeats",
    "start_second_pass",
]

Style = Literal["chat", "completion"]
Wording = Literal["standard", "sdak"]
MAX_REPEATS = 50
MAX_SHARDS = 1000
DEFAULT_SHARDS = 8

ProviderFactory = Callable[[str, Settings | None, Mapping[str, Any]], Provider]
"""(model, settings, the run's stored config) -> provider. Tests pass scripted providers."""


@dataclass(frozen=True)
class ModelOverrides:
    """What the caller says about reaching the model; ``None`` leaves it to the settings."""

    api_base: str | None = None
    api_key_env: str | None = None
    timeout: float | None = None
    max_concurrency: int | None = None


@dataclass(frozen=True)
class EvalSpec:
    """A model and the prompt settings to ask it with (the items come separately)."""

    model: str
    shots: int = 0
    idk: bool = False
    style: Style | None = None  # None: decided by :func:`prompt_style`
    max_tokens: int | None = None  # None: :func:`reply_tokens` (by the items and the prompt)
    seed: str = "0"
    name: str | None = None
    overrides: ModelOverrides = ModelOverrides()
    extra: Mapping[str, Any] | None = None  # stored with the run's config (e.g. a monitor night)
    assignment_id: int | None = None  # the run is made for this assignment (its exact items)
    forced: bool = False  # ask for a guess, never "I do not know" (a second pass)
    recall_tiers: str | None = None  # recall items: "metric:low:high" (else settings, defaults)
    embedding_model: str | None = None  # recall items: cosine by this model (else settings')
    permutations: int = 1  # choice items asked in this many option orders (EBMQA)
    idk_both: bool = False  # each order asked with and without "I do not know"
    prompt: Wording = "standard"  # "sdak": verdict first, then the reason (statements only)
    temperature: float = 0.0  # sent with every call
    # Which of "idk", "shots" and "prompt" the caller set itself (None: those not at their
    # defaults). An assignment's run takes them from its protocol; one set otherwise is an error.
    flags_given: frozenset[str] | None = None
    judge: str | None = None  # recall items: a judge model for entries the KB cannot verify


@dataclass(frozen=True)
class ReadyRun:
    """A recorded run and the provider that will answer it."""

    run_id: int
    config: RunConfig
    provider: Provider
    n_items: int


def reply_tokens(items: Sequence[Item], prompt: Wording = "standard") -> int:
    """How many tokens a model may answer with when the caller does not say: room for a list
    when any item is an open recall question (:data:`~quizbot.domain.RECALL_MAX_TOKENS`), for a
    verdict and its reason with the SDAK prompt (:data:`~quizbot.domain.SDAK_MAX_TOKENS`), else
    for a verdict or a letter (:data:`~quizbot.domain.MAX_TOKENS`). Every front end (command
    line, app, monitors) gets the same length for the same items."""
    if any(isinstance(item, RecallItem) for item in items):
        return RECALL_MAX_TOKENS
    return SDAK_MAX_TOKENS if prompt == "sdak" else MAX_TOKENS


def prompt_style(model: str, reach: ModelSettings, requested: str | None = None) -> Style:
    """The prompt style for ``model``: asked for, else its settings entry, else by kind.

    ``local/`` models are base models (Gemma 3 270M): few-shot text completion, as the
    PretexEval paper asks base models. Everything else gets chat messages.
    """
    style = requested or reach.style or ("completion" if model.startswith("local/") else "chat")
    return "completion" if style == "completion" else "chat"


def _reach(model: str, settings: Settings | None, overrides: ModelOverrides) -> ModelSettings:
    return resolve_model_settings(
        model,
        settings,
        api_base=overrides.api_base,
        api_key_env=overrides.api_key_env,
        timeout=overrides.timeout,
        max_concurrency=overrides.max_concurrency,
    )


def _factory(overrides: ModelOverrides) -> ProviderFactory:
    def build(model: str, settings: Settings | None, run: Mapping[str, Any]) -> Provider:
        return get_provider(
            model,
            _reach(model, settings, overrides),
            seed=str(run.get("seed", "0")),
            majority_answer=str(run.get("majority_answer", "True")),
        )

    return build


def _recall_tiers(spec: EvalSpec, settings: Settings | None, items: Sequence[Item]) -> str | None:
    """The tiers a run with recall items is graded by, checked now and stored with the run."""
    if not any(item.kind == "recall" for item in items):
        return None
    asked = spec.recall_tiers or (settings.recall_tiers if settings is not None else None)
    tiers = parse_tiers(asked)
    return f"{tiers.metric}:{tiers.low}:{tiers.high}"


@dataclass(frozen=True)
class _Embedding:
    model: str
    api_base: str | None
    api_key_env: str | None


def _embedding(
    spec: EvalSpec, settings: Settings | None, items: Sequence[Item]
) -> _Embedding | None:
    """The embedding model a recall run computes cosines with, and how it is reached."""
    model = spec.embedding_model or (settings.embedding_model if settings is not None else None)
    if not model or not any(item.kind == "recall" for item in items):
        return None
    reach = resolve_model_settings(model, settings)
    if reach.api_key_env and not os.environ.get(reach.api_key_env):
        raise ConfigError(
            f"embedding model {model!r} reads its API key from {reach.api_key_env}, "
            "which is not set",
            hint=f"export {reach.api_key_env}=... before running",
        )
    return _Embedding(model, reach.api_base, reach.api_key_env)


def _judge(spec: EvalSpec, settings: Settings | None, items: Sequence[Item]) -> dict[str, Any]:
    """The run config's judge fields: the model, how it is reached, the fixed prompt and its
    version (:mod:`quizbot.providers.judge`); none without a judge or without recall items."""
    if not spec.judge or not any(item.kind == "recall" for item in items):
        return {}
    if spec.judge.startswith("baseline/"):
        raise InputError(f"{spec.judge} cannot judge answers", hint="name a model, e.g. openai/...")
    reach = resolve_model_settings(spec.judge, settings)
    if reach.api_key_env and not os.environ.get(reach.api_key_env):
        raise ConfigError(
            f"judge model {spec.judge!r} reads its API key from {reach.api_key_env}, "
            "which is not set",
            hint=f"export {reach.api_key_env}=... before running",
        )
    judge = prompt_config()
    return {
        "judge": spec.judge,
        "judge_api_base": reach.api_base,
        "judge_api_key_env": reach.api_key_env,
        "judge_prompt_version": judge["version"],
        "judge_prompt": judge["prompt"],
    }


def _permuted(items: Sequence[Item], spec: EvalSpec) -> tuple[Sequence[Item], EvalSpec]:
    """The items as asked in a permutation run, and the spec with the plan stored in ``extra``.

    See :mod:`quizbot.evaluation.permutations`; ``idk_both`` asks with and without "I do not
    know" itself, so it is refused with ``idk`` (the run then adds none).
    """
    if spec.permutations == 1 and not spec.idk_both:
        return items, spec
    if not 1 <= spec.permutations <= MAX_PERMUTATIONS:
        raise InputError(f"--permutations must be 1 to {MAX_PERMUTATIONS}")
    if spec.assignment_id is not None or spec.forced:
        raise InputError(
            "--permutations and --idk-both do not go with an assignment",
            hint="an assignment's run asks its exact items; evaluate them with --items instead",
        )
    if spec.idk and spec.idk_both:
        raise InputError("--idk-both already asks every order with and without I do not know")
    if not any(isinstance(item, ChoiceItem) for item in items):
        raise InputError(
            "--permutations and --idk-both need multiple-choice items",
            hint="e.g. --format choice, or an item set of multiple-choice questions",
        )
    plan = permute(items, k=spec.permutations, idk_both=spec.idk_both, idk=spec.idk, seed=spec.seed)
    extra = {**(spec.extra or {}), "permutations": plan.as_json()}
    return list(plan.items), replace(spec, extra=extra)


async def start(
    db: Database,
    spec: EvalSpec,
    items: Sequence[Item],
    *,
    settings: Settings | None = None,
    provider_factory: ProviderFactory | None = None,
    demonstrations: Sequence[Item] | None = None,
    repeat_of: int | None = None,
) -> ReadyRun:
    """Record a new run of ``spec.model`` on ``items`` and build its provider.

    The provider is built first: a model that cannot be reached (unknown baseline, no local
    server, no provider prefix) raises its user error and nothing is written. ``repeat_of``
    records the run as a repeat of that run (see :func:`start_repeats`).

    ``spec.permutations`` / ``spec.idk_both`` (permutation runs): the choice items are asked in
    several option orders, with or without "I do not know", each a variant item of its own; the
    plan (which variant is which order of which item) is stored in the run's config under
    ``"permutations"`` (:mod:`quizbot.evaluation.permutations`).
    """
    if not spec.model:
        raise InputError("no model given", hint="e.g. --model baseline/random")
    if not items:
        raise InputError("no items to evaluate")
    items, spec = _permuted(items, spec)
    _check_wording(spec, items)
    if not 0.0 <= spec.temperature <= 2.0:
        raise InputError(f"temperature must be between 0 and 2, got {spec.temperature}")
    if spec.assignment_id is not None and not spec.forced:
        assignment = await asyncio.to_thread(assignment_by_id, db, spec.assignment_id)
        spec = _under_protocol(spec, assignment.name, assignment.config)
    reach = _reach(spec.model, settings, spec.overrides)
    embedding = _embedding(spec, settings, items)
    config = RunConfig(
        **_judge(spec, settings, items),
        recall_tiers=_recall_tiers(spec, settings, items),
        embedding_model=embedding.model if embedding else None,
        embedding_api_base=embedding.api_base if embedding else None,
        embedding_api_key_env=embedding.api_key_env if embedding else None,
        model=spec.model,
        shots=spec.shots,
        idk=spec.idk,
        style=prompt_style(spec.model, reach, spec.style),
        max_tokens=spec.max_tokens or reply_tokens(items, spec.prompt),
        concurrency=reach.max_concurrency,
        seed=spec.seed,
        api_base=spec.overrides.api_base,
        forced=spec.forced,
        prompt=spec.prompt,
        temperature=spec.temperature,
    )
    factory = provider_factory or _factory(spec.overrides)
    # The config the run will be stored with (less its demonstration ids, chosen on recording).
    preview = {
        **asdict(config),
        "item_ids": [i.id for i in items],
        "majority_answer": majority_answer(items),
        **(spec.extra or {}),
    }
    provider = factory(spec.model, settings, preview)
    try:
        run_id = await asyncio.to_thread(
            prepare_run,
            db,
            items,
            config,
            name=spec.name,
            demonstrations=demonstrations,
            extra=spec.extra,
            assignment_id=spec.assignment_id,
            repeat_of=repeat_of,
        )
    except BaseException:
        await provider.aclose()
        raise
    return ReadyRun(run_id, config, provider, len(items))


def _under_protocol(spec: EvalSpec, name: str, config: Mapping[str, Any]) -> EvalSpec:
    """``spec`` asked under assignment ``name``'s protocol (:mod:`quizbot.generate.protocol`):
    its answer options, instruction and worked examples, whatever the caller's defaults; pass 1
    of a two-pass assignment records ``"pass": 1``. A setting the caller gave that says
    otherwise is an :class:`InputError` naming the assignment's setting."""
    protocol = Protocol.of_assignment(config)
    given = spec.flags_given
    if given is None:
        given = frozenset(
            flag
            for flag, changed in (
                ("idk", spec.idk),
                ("shots", spec.shots != 0),
                ("prompt", spec.prompt != "standard"),
            )
            if changed
        )
    fixed = "its protocol, fixed when it was made"
    hint = "leave the flag out: an assignment's run is always asked under its protocol"
    if "idk" in given and spec.idk != protocol.idk:
        offered = "offers" if protocol.idk else "does not offer"
        raise InputError(
            f'--idk conflicts with assignment {name!r}: it {offered} "I do not know" ({fixed}: '
            f"answers {protocol.options_text()})",
            hint=hint,
        )
    if "shots" in given and spec.shots != protocol.shots:
        raise InputError(
            f"--shots {spec.shots} conflicts with assignment {name!r}: it asks models with "
            f"{protocol.shots} worked example(s) per question ({fixed})",
            hint=hint,
        )
    if "prompt" in given and spec.prompt != protocol.instruction:
        raise InputError(
            f"--prompt {spec.prompt} conflicts with assignment {name!r}: it asks with "
            f"{protocol.instruction_name()} ({fixed})",
            hint=hint,
        )
    extra = {**(spec.extra or {}), **({"pass": 1} if protocol.two_pass else {})}
    return replace(
        spec, idk=protocol.idk, shots=protocol.shots, prompt=protocol.instruction, extra=extra
    )


def _check_wording(spec: EvalSpec, items: Sequence[Item]) -> None:
    """The SDAK question asks statements, zero-shot, with no "I do not know" (InputError)."""
    if spec.prompt == "standard":
        return
    if spec.prompt != "sdak":
        raise InputError(f"unknown prompt {spec.prompt!r}", hint="use standard or sdak")
    other = next((item for item in items if not isinstance(item, StatementItem)), None)
    if other is not None:
        raise InputError(
            f"the SDAK prompt asks true/false statements; item {other.id} is a {other.kind} item",
            hint="evaluate statements (`--format statements`) with --prompt sdak",
        )
    if spec.shots:
        raise InputError("the SDAK prompt is zero-shot", hint="leave out --shots")
    if spec.idk or spec.forced:
        raise InputError('the SDAK prompt offers no "I do not know"', hint="leave out --idk")


async def start_repeats(
    db: Database,
    spec: EvalSpec,
    items: Sequence[Item],
    repeats: int,
    *,
    settings: Settings | None = None,
    provider_factory: ProviderFactory | None = None,
) -> list[ReadyRun]:
    """Record ``repeats`` runs of ``spec`` on the same ``items``: one repeat group.

    Every run is recorded before any is asked (so an interrupted group can be resumed whole,
    :func:`reopen_group`); the first is an ordinary run and the others point at it. Each is
    stored with ``"repeat"`` (1..N) and ``"repeats"`` (N) in its config. ``repeats = 1`` is a
    plain run.
    """
    if not 1 <= repeats <= MAX_REPEATS:
        raise InputError(f"--repeats must be between 1 and {MAX_REPEATS}, got {repeats}")
    if spec.assignment_id is not None and repeats > 1:
        raise InputError("an assignment's run cannot be repeated", hint="leave out --repeats")
    ready: list[ReadyRun] = []
    try:
        for index in range(1, repeats + 1):
            extra = {**(spec.extra or {}), "repeat": index, "repeats": repeats}
            this = replace(spec, extra=extra) if repeats > 1 else spec
            ready.append(
                await start(
                    db,
                    this,
                    items,
                    settings=settings,
                    provider_factory=provider_factory,
                    repeat_of=ready[0].run_id if ready else None,
                )
            )
    except BaseException:
        for made in ready:
            await made.provider.aclose()
        raise
    return ready


def reopen_group(
    db: Database,
    run_id: int,
    *,
    settings: Settings | None = None,
    overrides: ModelOverrides = ModelOverrides(),
    provider_factory: ProviderFactory | None = None,
) -> list[ReadyRun]:
    """Ready every unfinished run of ``run_id``'s repeat group, or ``run_id`` alone when none is
    left (an ordinary run is a group of one: ``--resume`` as it always was)."""
    unfinished = [run.id for run in repeat_group(db, run_id) if run.status != "completed"]
    return [
        reopen(db, rid, settings=settings, overrides=overrides, provider_factory=provider_factory)
        for rid in (unfinished or [run_id])
    ]


def reopen(
    db: Database,
    run_id: int,
    *,
    settings: Settings | None = None,
    overrides: ModelOverrides = ModelOverrides(),
    provider_factory: ProviderFactory | None = None,
) -> ReadyRun:
    """Ready a stored run to go on (``--resume``, a monitor night taken over).

    The endpoint stored with the run is used unless ``overrides`` names another.
    """
    run = get_run(db, run_id)
    config = RunConfig.from_json(run.config)
    if overrides.api_base is None and config.api_base:
        overrides = replace(overrides, api_base=config.api_base)
    if overrides.max_concurrency is None:
        overrides = replace(overrides, max_concurrency=config.concurrency)
    factory = provider_factory or _factory(overrides)
    provider = factory(config.model, settings, run.config)
    return ReadyRun(run_id, config, provider, run.n_items)


async def start_second_pass(
    db: Database,
    first_run_id: int,
    *,
    settings: Settings | None = None,
    overrides: ModelOverrides = ModelOverrides(),
    provider_factory: ProviderFactory | None = None,
) -> ReadyRun | None:
    """Ready pass 2 of a two-pass assignment's pass-1 run, or ``None`` when there is none.

    Pass 2 asks the items pass 1 abstained on again, forcing an answer, with pass 1's model,
    style, shots and seed. An unfinished pass 2 already recorded for this run is reopened
    (resume); a finished one means there is nothing left to do (``None``), as does a run that
    is not pass 1 or abstained on nothing.
    """
    first = get_run(db, first_run_id)
    if first.config.get("pass") != 1 or first.assignment_id is None:
        return None
    for run in assignment_runs(db, first.assignment_id):
        if run.config.get("first_run") == first_run_id and run.config.get("pass") == 2:
            assert run.id is not None
            if run.status == "completed":
                return None
            return reopen(
                db, run.id, settings=settings, overrides=overrides,
                provider_factory=provider_factory,
            )  # fmt: skip
    abstained = [
        r.item_id
        for r in list_responses(db, run_id=first_run_id)
        if r.outcome == Outcome.ABSTAINED.value
    ]
    if not abstained:
        return None
    config = RunConfig.from_json(first.config)
    if overrides.api_base is None and config.api_base:
        overrides = replace(overrides, api_base=config.api_base)
    spec = EvalSpec(
        model=config.model,
        shots=config.shots,
        idk=False,
        style=config.style,
        max_tokens=config.max_tokens,
        seed=config.seed,
        name=f"{first.name} (pass 2)" if first.name else None,
        overrides=overrides,
        extra={"pass": 2, "first_run": first_run_id},
        assignment_id=first.assignment_id,
        forced=True,
    )
    return await start(
        db, spec, load_items(db, abstained), settings=settings, provider_factory=provider_factory
    )


@dataclass(frozen=True)
class RunRequest:
    """One evaluation to carry out, whichever front end asks for it.

    A new run of ``spec`` on ``items`` (``repeats`` of it: one repeat group), or, with
    ``resume``, the unfinished runs of that stored run's group (``overrides`` may name another
    endpoint). ``queue``: recorded and split into ``shards`` jobs for workers instead of asked
    here (PostgreSQL). ``shard``: a worker's job, one shard of the stored run ``resume``.
    ``retry_errors`` asks again the items whose stored answer is an error; ``allow_cache`` lets
    an interactive caller's provider answer from its cache; ``second_pass`` runs (or, for a
    shard, queues) pass 2 of a two-pass assignment once pass 1 is complete.
    """

    spec: EvalSpec | None = None
    items: Sequence[Item] = ()
    repeats: int = 1
    resume: int | None = None
    overrides: ModelOverrides = ModelOverrides()
    retry_errors: bool = False
    allow_cache: bool = False
    second_pass: bool = True
    queue: bool = False
    shards: int | None = None
    shard: Shard | None = None


@dataclass(frozen=True)
class RunOutcome:
    """What :func:`run` did: the group's summary (its first failed run, else its first run) and
    every run's, pass 2's when one ran, or, for a queued request, the run ids and shard count."""

    summary: RunSummary | None
    summaries: tuple[RunSummary, ...] = ()
    second: RunSummary | None = None
    queued: tuple[list[int], int] | None = None


Watch = Callable[[ReadyRun, bool], AbstractContextManager[Progress | None]]
"""(the run about to be asked, whether it is a second pass) -> a context giving the progress
callback for its items (or ``None``): the CLI's progress bar, the app's ticks, a monitor noting
its night's run."""


def _no_watch(ready: ReadyRun, second: bool) -> AbstractContextManager[Progress | None]:
    del ready, second
    return nullcontext(None)


async def run(
    db: Database,
    request: RunRequest,
    *,
    settings: Settings | None = None,
    provider_factory: ProviderFactory | None = None,
    watch: Watch | None = None,
) -> RunOutcome:
    """Carry out ``request``: the only caller of the runner (:func:`~quizbot.evaluation.runner.
    execute`) for the CLI, the app, monitors and workers.

    The runs of a group are asked one after the other; once one fails (the model cannot be
    used) the rest wait for a resume. Providers of runs never asked are closed. A pass 1 that
    completes is followed by its pass 2 (``request.second_pass``).
    """
    watch = watch or _no_watch
    if request.queue:
        return RunOutcome(None, queued=await _queue(db, request, settings, provider_factory))
    if request.shard is not None:
        return await _run_shard(db, request, settings, provider_factory)
    readied = await _ready(db, request, settings, provider_factory)
    asked = 0
    summaries: list[RunSummary] = []
    try:
        for ready in readied:
            if summaries and summaries[-1].status == RunStatus.FAILED:
                break  # the model cannot be used: the rest wait for --resume
            asked += 1
            summaries.append(await _ask(db, ready, request, watch, second=False))
    finally:
        for ready in readied[asked:]:  # never asked: close their providers
            await ready.provider.aclose()
    failed = [s for s in summaries if s.status == RunStatus.FAILED]
    summary = failed[0] if failed else summaries[0]
    second = None
    if request.second_pass and summary.status != RunStatus.FAILED:
        follow = await start_second_pass(
            db,
            summary.run_id,
            settings=settings,
            overrides=request.overrides,
            provider_factory=provider_factory,
        )
        if follow is not None:
            second = await _ask(db, follow, request, watch, second=True)
    return RunOutcome(summary, tuple(summaries), second)


async def _ready(
    db: Database,
    request: RunRequest,
    settings: Settings | None,
    provider_factory: ProviderFactory | None,
) -> list[ReadyRun]:
    """The runs of ``request`` readied to ask: recorded (new) or reopened (resume)."""
    if request.resume is None:
        if request.spec is None:
            raise InputError("nothing to run: no model and items, nor a run to resume")
        return await start_repeats(
            db,
            request.spec,
            request.items,
            request.repeats,
            settings=settings,
            provider_factory=provider_factory,
        )
    if request.repeats != 1:
        raise InputError("--repeats goes with a new run", hint="--resume continues the whole group")
    return await asyncio.to_thread(
        reopen_group,
        db,
        request.resume,
        settings=settings,
        overrides=request.overrides,
        provider_factory=provider_factory,
    )


async def _ask(
    db: Database, ready: ReadyRun, request: RunRequest, watch: Watch, *, second: bool
) -> RunSummary:
    """Ask one readied run, its progress shown as ``watch`` says."""
    with watch(ready, second) as progress:
        return await execute(
            db,
            ready.run_id,
            ready.provider,
            retry_errors=request.retry_errors,
            progress=progress,
            allow_cache=request.allow_cache,
        )


async def evaluate(
    db: Database,
    spec: EvalSpec,
    items: Sequence[Item],
    *,
    settings: Settings | None = None,
    provider_factory: ProviderFactory | None = None,
    progress: Progress | None = None,
    allow_cache: bool = False,
) -> RunSummary:
    """Evaluate ``spec.model`` on ``items``: record the run, ask, score and store every answer
    (:func:`run` for one new run, reporting to ``progress``)."""
    outcome = await run(
        db,
        RunRequest(spec, items, allow_cache=allow_cache),
        settings=settings,
        provider_factory=provider_factory,
        watch=lambda ready, second: nullcontext(progress),
    )
    assert outcome.summary is not None
    return outcome.summary


@dataclass(frozen=True)
class ModelAnswer:
    """What one model said to one question, parsed and (when the truth is known) scored."""

    model: str
    raw: str | None  # None when the call failed
    parsed: str | None  # "true"/"false", letters "A,C", "idk", a recall summary, or None
    reason: str  # why the answer was read so (or the error)
    outcome: Outcome | None  # None when the truth is unknown or the call failed
    cached: bool = False
    latency_ms: float | None = None
    error: str | None = None


async def _score_once(
    item: Item, text: str, config: RunConfig, settings: Settings | None
) -> tuple[str | None, str, Outcome]:
    """Score one answer outside a run: recall items with the settings' tiers and embeddings."""
    if not isinstance(item, RecallItem):
        return score_text(item, text, config)
    spec = EvalSpec(config.model)
    try:
        embedding = _embedding(spec, settings, [item])
    except ConfigError:
        embedding = None  # no cosine rather than no answer
    config = replace(
        config,
        recall_tiers=_recall_tiers(spec, settings, [item]),
        embedding_model=embedding.model if embedding else None,
        embedding_api_base=embedding.api_base if embedding else None,
        embedding_api_key_env=embedding.api_key_env if embedding else None,
    )
    return score_text(item, text, config, cosine=await recall_cosine(item, text, config))


async def ask_once(
    model: str,
    item: Item,
    *,
    settings: Settings | None = None,
    idk: bool = False,
    scored: bool = True,
    call_store: CallStore | None = None,
    attempts: int = 2,
    prompt: Wording = "standard",
) -> ModelAnswer:
    """Ask ``model`` one item with no run: the same prompt, parser and scorer as runs use.

    With ``call_store`` a repeated question may be answered from the cache of model calls
    (interactive use only; runs never are). ``prompt = "sdak"`` asks a statement the SDAK way
    (checked as in :func:`start`; up to :data:`SDAK_MAX_TOKENS`). A user error (unknown model,
    no key, a wording that does not apply) or a failed call comes back as an answer with
    ``error`` set, never as an exception.
    """
    try:
        _check_wording(EvalSpec(model, idk=idk, prompt=prompt), [item])
        reach = resolve_model_settings(model, settings)
        provider: Provider = get_provider(model, reach)
    except QuizbotError as exc:
        return ModelAnswer(model, None, None, exc.message, None, error=str(exc))
    if call_store is not None and not model.startswith("baseline/"):
        provider = CachedProvider(provider, call_store, api_base=reach.api_base)
    config = RunConfig(
        model=model,
        idk=idk,
        style=prompt_style(model, reach),
        prompt=prompt,
        max_tokens=reply_tokens([item], prompt),
    )
    request = build_request(item, (), config, set())
    try:
        completion = await call_with_retries(lambda: provider.complete(request), attempts=attempts)
    except ProviderError as exc:
        return ModelAnswer(model, None, None, exc.message, None, error=exc.message)
    finally:
        await provider.aclose()
    parsed, reason, outcome = await _score_once(item, completion.text, config, settings)
    return ModelAnswer(
        model=model,
        raw=redact(completion.text),  # shown at once: never with a key a provider echoed
        parsed=parsed,
        reason=reason,
        outcome=outcome if scored else None,
        cached=completion.cached,
        latency_ms=completion.latency_ms,
    )


def _queue_shards(db: Database, run_id: int, shards: int) -> None:
    """Put the run's shard jobs on the queue; a run whose jobs cannot be queued is failed (it
    would otherwise wait for ever) and the error goes up."""
    from storage.jobs import defer_shards  # noqa: PLC0415 - procrastinate, only when queueing

    try:
        defer_shards(db, run_id, shards)
    except Exception as exc:
        update_run(db, run_id, status=RunStatus.FAILED, error_text=f"could not be queued: {exc}")
        raise


async def enqueue(
    db: Database,
    spec: EvalSpec,
    items: Sequence[Item],
    *,
    shards: int = DEFAULT_SHARDS,
    repeats: int = 1,
    settings: Settings | None = None,
    provider_factory: ProviderFactory | None = None,
) -> tuple[list[int], int]:
    """Record a run (or a repeat group) exactly as :func:`start_repeats` does and queue it for
    workers instead of asking it here: its items are split into ``shards`` contiguous shards
    (:class:`~quizbot.evaluation.runner.Shard`), one job each (:func:`run_shard`); the plan is
    stored in the run's config under ``"queue"``. Returns the run ids and the shard count (no
    more shards than items). PostgreSQL only (:class:`ConfigError` on SQLite, before anything
    is recorded)."""
    from storage.jobs import require_queue  # noqa: PLC0415 - procrastinate, only when queueing

    require_queue(db, "eval --queue")
    if not 1 <= shards <= MAX_SHARDS:
        raise InputError(f"--shards must be 1 to {MAX_SHARDS}, got {shards}")
    spec = replace(spec, extra={**(spec.extra or {}), "queue": {"shards": shards}})
    ready = await start_repeats(
        db, spec, items, repeats, settings=settings, provider_factory=provider_factory
    )
    for made in ready:  # built to check the model can be reached; the workers build their own
        await made.provider.aclose()
    count = max(1, min(shards, ready[0].n_items))  # no more shards than items
    for made in ready:
        _queue_shards(db, made.run_id, count)
    return [made.run_id for made in ready], count


def requeue(
    db: Database, run_id: int, *, shards: int | None = None, retry_errors: bool = False
) -> tuple[list[int], int]:
    """Queue again every unfinished run of ``run_id``'s repeat group (``eval --resume RUN
    --queue``): with the run's stored shard count unless ``shards`` is given, its ``error``
    answers deleted first with ``retry_errors``. Shards already answered finish at once; a
    shard still waiting is not queued twice. Returns the run ids and the shard count."""
    from storage.jobs import require_queue  # noqa: PLC0415 - procrastinate, only when queueing

    require_queue(db, "eval --queue")
    group = repeat_group(db, run_id)
    unfinished = [run for run in group if run.status != RunStatus.COMPLETED] or [
        run for run in group if run.id == run_id
    ]
    plan = unfinished[0].config.get("queue") or {}
    count = shards or int(plan.get("shards", DEFAULT_SHARDS))
    if not 1 <= count <= MAX_SHARDS:
        raise InputError(f"--shards must be 1 to {MAX_SHARDS}, got {count}")
    ids: list[int] = []
    for run in unfinished:
        assert run.id is not None
        if retry_errors:
            delete_error_responses(db, run.id)
        update_run(db, run.id, status=RunStatus.RUNNING)  # a failed run goes on: error cleared
        _queue_shards(db, run.id, max(1, min(count, run.n_items)))
        ids.append(run.id)
    return ids, max(1, min(count, unfinished[0].n_items))


async def run_shard(
    db: Database,
    run_id: int,
    shard: int,
    shards: int,
    *,
    settings: Settings | None = None,
    provider_factory: ProviderFactory | None = None,
) -> RunSummary:
    """Ask and store one shard of a queued run (a worker's job, :func:`run` with ``shard``)."""
    request = RunRequest(resume=run_id, shard=Shard(shard, shards))
    outcome = await run(db, request, settings=settings, provider_factory=provider_factory)
    assert outcome.summary is not None
    return outcome.summary


async def _run_shard(
    db: Database,
    request: RunRequest,
    settings: Settings | None,
    provider_factory: ProviderFactory | None,
) -> RunOutcome:
    """One shard of a queued run: the run is readied as a resume is (:func:`reopen`: its stored
    endpoint, this process's settings and keys), and only the shard's items with no stored
    answer are asked. The shard that finishes pass 1 of a two-pass assignment queues pass 2
    (:func:`start_second_pass`) in as many shards."""
    assert request.shard is not None and request.resume is not None
    run_id, shard = request.resume, request.shard
    ready = reopen(db, run_id, settings=settings, provider_factory=provider_factory)
    summary = await execute(
        db, run_id, ready.provider, shard=shard, retry_errors=request.retry_errors
    )
    if summary.status == RunStatus.COMPLETED and request.second_pass:
        follow = await start_second_pass(
            db, run_id, settings=settings, provider_factory=provider_factory
        )
        if follow is not None:
            await follow.provider.aclose()
            _queue_shards(db, follow.run_id, max(1, min(shard.count, follow.n_items)))
    return RunOutcome(summary, (summary,))


async def _queue(
    db: Database,
    request: RunRequest,
    settings: Settings | None,
    provider_factory: ProviderFactory | None,
) -> tuple[list[int], int]:
    """A queued request: a new run (group) recorded and queued (:func:`enqueue`), or a stored
    run's unfinished group queued again (:func:`requeue`)."""
    if request.resume is not None:
        if request.repeats != 1:
            raise InputError(
                "--repeats goes with a new run", hint="--resume continues the whole group"
            )
        return requeue(db, request.resume, shards=request.shards, retry_errors=request.retry_errors)
    if request.spec is None:
        raise InputError("nothing to queue: no model and items, nor a run to resume")
    return await enqueue(
        db,
        request.spec,
        request.items,
        shards=request.shards or DEFAULT_SHARDS,
        repeats=request.repeats,
        settings=settings,
        provider_factory=provider_factory,
    )
