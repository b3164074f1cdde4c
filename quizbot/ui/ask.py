"""The "Ask a model" tab: put one question to several models side by side, or run a batch.

Three sources of questions, one set of chosen models (``UiContext.models()``: configured litellm
models, the local Gemma server when it runs, the baselines):

* **Your statement**: a true/false statement typed by the user, with the truth value they pick
  (or "Unknown", which leaves correctness blank). It is asked exactly like a generated statement
  (the PretexEval prompt of :func:`quizbot.evaluation.prompts.build_prompt`), so it is wrapped in a
  throw-away :class:`~quizbot.items.StatementItem` of knowledge base ``custom``; it is never
  stored.
* **Generated question**: "New question" generates one knowledge point of the chosen knowledge
  base and relation with a fresh random seed (:func:`quizbot.generate.service.prepare`, one
  point) and picks one of its statements (or its multiple-choice question); "Ask" puts it to the
  models.
* **Batch run**: N knowledge points generated the same way and put to every chosen model as real
  evaluation runs through the one entry point (:func:`quizbot.evaluation.start`, then the
  runner), one run per model, logged in the database like ``quizbot eval``, then each run's
  metrics with their 95% intervals from :func:`quizbot.analysis.reporting.run_report`. A run
  that failed (model unreachable, key refused) is reported as a failure, never as a result.

Single questions go through the same request builder as runs and are parsed and scored by
:func:`quizbot.evaluation.parse.parse_and_score`, so the table shows what a run would record. They
may be
answered from the call cache (:class:`~quizbot.providers.cache.CachedProvider`; the table says
"cached"), and are tried at most :data:`SINGLE_ATTEMPTS` times so a dead endpoint answers
quickly. A model that cannot be reached gets a row with the error instead of stopping the others.
Batches never use the cache (runs measure the model as it answers now). ``baseline/majority``
answers "True" to a single question: the majority of one item would be its own answer.

**Prompt** (statements only): "Standard" asks True or False; "SDAK" asks for the verdict
"Correct"/"Incorrect" first, then the reason (``EvalSpec.prompt = "sdak"`` and
``ask_once(prompt="sdak")``, the one entry point's SDAK question: zero-shot, no "I do not know").
Single SDAK answers show the verdict read at the start of the reply, whether it was there and
the reason (:func:`quizbot.evaluation.parse.parse_sdak`); an SDAK batch also shows the paper's
pair metrics of each run (:func:`sdak_table`, from the report's ``sdak`` part).

Both count against the asking account's model-call limits (:mod:`quizbot.spend`): the calls
are reserved before any model is asked (a batch's after its questions are generated, when their
number is known) and what was not asked is given back: answers served from the cache, models
that could not be started, items a stopped run left unasked.

Everything a handler returns is rendered by the pure helpers here (:func:`answer_table`,
:func:`describe_item`, :func:`batch_table`, :func:`batch_breakdown`), which the fast tests check.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import Any, Literal

import gradio as gr

from quizbot.analysis.reporting import run_report
from quizbot.analysis.sdak import ERROR_TYPES as SDAK_ERRORS
from quizbot.analysis.sdak import METRICS as SDAK_METRICS
from quizbot.domain import Outcome, RunStatus
from quizbot.errors import InputError, QuizbotError, redact
from quizbot.evaluation import EvalSpec
from quizbot.evaluation.parse import parse_sdak
from quizbot.evaluation.runner import Progress
from quizbot.evaluation.service import (
    ModelAnswer,
    ReadyRun,
    RunRequest,
    Watch,
    Wording,
    ask_once,
    run,
)
from quizbot.generate.service import GenerateRequest, prepare
from quizbot.items import ChoiceItem, RecallItem, StatementItem, StatementSide, item_from_json
from quizbot.kb.registry import BUILTINS, DEFAULT_KB, kb_listing, load_builtin
from quizbot.providers.cache import DbCallStore
from quizbot.spend import calls_for
from quizbot.spend import reserve as reserve_calls
from quizbot.transforms import Polarity, Transform
from quizbot.ui import identity
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.render import format_estimate, user_message
from storage import Database

__all__ = [
    "ALL_RELATIONS",
    "ANSWER_HEADERS",
    "BATCH_HEADERS",
    "BREAKDOWN_HEADERS",
    "CUSTOM_KB",
    "MAX_BATCH_POINTS",
    "MAX_STATEMENT_LENGTH",
    "PROMPT_CHOICES",
    "SDAK_ANSWER_HEADERS",
    "SDAK_HEADERS",
    "SINGLE_ATTEMPTS",
    "TRUTH_CHOICES",
    "ModelAnswer",
    "answer_table",
    "ask_models",
    "batch_breakdown",
    "batch_table",
    "build",
    "custom_statement",
    "describe_item",
    "relation_choices",
    "run_batch",
    "sdak_table",
    "truth_of",
]

log = logging.getLogger(__name__)

Item = StatementItem | ChoiceItem
Format = Literal["statements", "choice"]
Prompt = Wording  # "standard" or "sdak", as the entry point names them

CUSTOM_KB = "custom"
TRUTH_CHOICES = ("True", "False", "Unknown")
ALL_RELATIONS = ""  # the relation dropdown's value for "every relation"
MAX_STATEMENT_LENGTH = 1000
MAX_BATCH_POINTS = 50
SINGLE_ATTEMPTS = 2
ANSWER_HEADERS = [
    "model",
    "raw answer",
    "parsed answer",
    "correct",
    "source",
    "latency (ms)",
    "why",
]
BATCH_HEADERS = [
    "run",
    "model",
    "status",
    "answered",
    "errors",
    "accuracy",
    "joint accuracy",
    "answer rate",
    "accuracy (answered)",
    "sycophancy",
]
SDAK_ANSWER_HEADERS = [
    "model",
    "verdict",
    "verdict at the start",
    "reason",
    "correct",
    "source",
    "latency (ms)",
    "raw answer",
]
SDAK_HEADERS = [
    "run",
    "model",
    "pairs",
    "instruction following",
    "factual accuracy",
    "counterfactual accuracy",
    "pair accuracy",
    "sycophancy",
    "safety",
    "misinterpretation",
    "not following",
]
PROMPT_CHOICES = [
    ("Standard (True or False)", "standard"),
    ("SDAK (verdict first, then the reason)", "sdak"),
]
_SDAK_VERDICTS = {"true": "Correct", "false": "Incorrect"}
BREAKDOWN_HEADERS = ["by", "name"]
_BATCH_METRICS = (
    "average_accuracy",
    "joint_accuracy",
    "answer_rate",
    "accuracy_answered",
    "sycophancy_rate",
)
_CORRECT_WORDS = {
    Outcome.CORRECT: "yes",
    Outcome.INCORRECT: "no",
    Outcome.ABSTAINED: "no answer",
    Outcome.UNPARSED: "unreadable",
}


# --------------------------------------------------------------------------------------------
# Asking


def truth_of(choice: str | None) -> bool | None:
    """The truth value picked in the UI: True, False, or None for "Unknown" (or nothing)."""
    if choice == "True":
        return True
    if choice == "False":
        return False
    return None


def custom_statement(text: str | None, truth: bool | None) -> StatementItem:
    """A typed statement as an item, so it is asked and parsed like a generated one.

    Raises :class:`InputError` for an empty or over-long statement. With ``truth`` None the
    label is a placeholder and the caller must not score the answers.
    """
    statement = " ".join((text or "").split())
    if not statement:
        raise InputError("type a statement first", hint="e.g. Aspirin inhibits platelets.")
    if len(statement) > MAX_STATEMENT_LENGTH:
        raise InputError(
            f"the statement is longer than {MAX_STATEMENT_LENGTH} characters",
            hint="ask one short statement at a time",
        )
    side = StatementSide(
        kb=CUSTOM_KB,
        kb_version="",
        relation=CUSTOM_KB,
        head="",
        tail="",
        polarity=Polarity.NEGATIVE if truth is False else Polarity.POSITIVE,
        prototype_set=CUSTOM_KB,
    )
    return StatementItem(side, Transform.NONE, truth is not False, statement, CUSTOM_KB)


def _check_prompt(prompt: str, *, statements: bool, idk: bool, shots: int = 0) -> None:
    """Say before any call is reserved what the entry point would refuse for the SDAK prompt
    (:func:`quizbot.evaluation.service.start` checks it again): statements, zero-shot, no
    "I do not know"."""
    if prompt == "standard":
        return
    if prompt != "sdak":
        raise InputError(f"unknown prompt {prompt!r}", hint="choose Standard or SDAK")
    if not statements:
        raise InputError(
            "the SDAK prompt asks true/false statements only",
            hint="choose a true/false statement, or the Standard prompt",
        )
    if idk:
        raise InputError(
            'the SDAK prompt offers no "I do not know"', hint='untick "Offer I do not know"'
        )
    if shots:
        raise InputError("the SDAK prompt is zero-shot", hint="set the demonstrations to 0")


async def _ask_one(
    ctx: UiContext,
    model: str,
    item: Item,
    *,
    idk: bool,
    use_cache: bool,
    scored: bool,
    prompt: Prompt,
) -> ModelAnswer:
    return await ask_once(
        model,
        item,
        settings=ctx.settings,
        idk=idk,
        scored=scored,
        call_store=DbCallStore(ctx.db) if use_cache else None,
        attempts=SINGLE_ATTEMPTS,
        prompt=prompt,
    )


async def ask_models(
    ctx: UiContext,
    item: Item,
    models: Sequence[str],
    *,
    idk: bool = False,
    use_cache: bool = True,
    scored: bool = True,
    viewer: identity.Viewer = identity.LOCAL,
    prompt: Prompt = "standard",
) -> list[ModelAnswer]:
    """Ask ``item`` of every model at once; one answer per model, in the order given.

    ``scored`` False (a statement of unknown truth) leaves every outcome None. ``prompt``
    "sdak" asks a statement the SDAK way. Raises :class:`InputError` when no model is chosen
    or the prompt does not apply (a choice item, "I do not know" offered), and
    :class:`~quizbot.spend.SpendLimitError` when ``viewer`` has no calls left today; a model
    that fails gets an answer with ``error`` set instead (and its call counts).
    """
    chosen = list(dict.fromkeys(m for m in models if m))
    if not chosen:
        raise InputError("choose at least one model", hint="pick models in the list above")
    _check_prompt(prompt, statements=isinstance(item, StatementItem), idk=idk)
    reservation = await asyncio.to_thread(
        reserve_calls,
        ctx.db,
        ctx.settings,
        viewer.name,
        viewer.role,
        calls_for(chosen, 1),
        batch=False,
        what="question",
    )
    answers = list(
        await asyncio.gather(
            *(
                _ask_one(ctx, m, item, idk=idk, use_cache=use_cache, scored=scored, prompt=prompt)
                for m in chosen
            )
        )
    )
    cached = sum(1 for a in answers if a.cached and not a.model.startswith("baseline/"))
    await asyncio.to_thread(reservation.release, cached)
    return answers


def _shown_answer(parsed: str | None) -> str:
    if parsed is None:
        return "(unreadable)"
    if parsed == "idk":
        return "I do not know"
    if parsed in ("true", "false"):
        return parsed.capitalize()
    return parsed.replace(",", ", ")


def answer_table(answers: Sequence[ModelAnswer], prompt: Prompt = "standard") -> dict[str, Any]:
    """The side-by-side table (``{"headers", "data"}`` for a gr.Dataframe); for SDAK answers
    (:data:`SDAK_ANSWER_HEADERS`) the verdict, whether it came at the start and the reason."""
    if prompt == "sdak":
        return _sdak_answer_table(answers)
    rows: list[list[str]] = []
    for a in answers:
        if a.error is not None:
            rows.append([a.model, "", "", "", "error", "", redact(a.error)])
            continue
        latency = "" if a.latency_ms is None else f"{a.latency_ms:.0f}"
        rows.append(
            [
                a.model,
                redact(a.raw or ""),  # a reply may echo a key: never shown as it came
                _shown_answer(a.parsed),
                "-" if a.outcome is None else _CORRECT_WORDS.get(a.outcome, a.outcome.value),
                "cached" if a.cached else "live",
                latency,
                redact(a.reason),
            ]
        )
    return {"headers": ANSWER_HEADERS, "data": rows}


def _correct_word(answer: ModelAnswer) -> str:
    if answer.outcome is None:
        return "-"
    return _CORRECT_WORDS.get(answer.outcome, answer.outcome.value)


def _sdak_answer_table(answers: Sequence[ModelAnswer]) -> dict[str, Any]:
    rows: list[list[str]] = []
    for a in answers:
        if a.error is not None:
            rows.append([a.model, "", "", redact(a.error), "", "error", "", ""])
            continue
        reading = parse_sdak(redact(a.raw or ""))
        rows.append(
            [
                a.model,
                _SDAK_VERDICTS.get(reading.verdict or "", "(none)"),
                "yes" if reading.follows else "no",
                reading.reason,
                _correct_word(a),
                "cached" if a.cached else "live",
                "" if a.latency_ms is None else f"{a.latency_ms:.0f}",
                redact(a.raw or ""),
            ]
        )
    return {"headers": SDAK_ANSWER_HEADERS, "data": rows}


def describe_item(item: Item, truth_known: bool = True) -> str:
    """The question as asked, with its answer key, as Markdown."""
    if isinstance(item, ChoiceItem):
        options = "\n".join(
            f"{'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[i]}. {o}" for i, o in enumerate(item.options)
        )
        return (
            f"**Question** ({item.kb}, {item.relation}):\n\n{item.question}\n\n"
            f"```\n{options}\n```\n\n**Correct:** {', '.join(item.answer_keys)}"
        )
    truth = ("True" if item.label else "False") if truth_known else "unknown"
    where = (
        "your statement"
        if item.kb == CUSTOM_KB
        else f"{item.kb}, {item.relation}, transform {item.transform.value}"
    )
    return f"**Statement** ({where}):\n\n> {item.text}\n\n**Truth:** {truth}"


# --------------------------------------------------------------------------------------------
# Batches


def _generate(
    db: Database, ctx: UiContext, kb: str, relation: str, points: int, fmt: Format, seed: str
) -> list[Item]:
    request = GenerateRequest(
        kb=kb or DEFAULT_KB,
        relations=[relation] if relation else None,
        points=points,
        seed=seed,
        format=fmt,
    )
    return [i for i in prepare(db, request, ctx.settings).items() if not isinstance(i, RecallItem)]


async def run_batch(
    ctx: UiContext,
    models: Sequence[str],
    *,
    kb: str,
    relation: str = ALL_RELATIONS,
    points: int = 5,
    fmt: Format = "statements",
    seed: str | None = None,
    shots: int = 0,
    idk: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
    viewer: identity.Viewer = identity.LOCAL,
    prompt: Prompt = "standard",
) -> tuple[list[int], list[str]]:
    """Generate ``points`` knowledge points and evaluate every model on them, one run each.

    Returns the run ids and a message per model that could not be run (e.g. the local server is
    down). ``progress(done, total, model)`` is called as answers are stored. Raises
    :class:`InputError` for no models, a bad number of points or nothing to generate, and
    :class:`~quizbot.spend.SpendLimitError` (before any model is asked) when the batch is larger
    than ``viewer`` may make or would take them over their calls for today. ``prompt`` "sdak"
    asks the statements the SDAK way (statements only, zero-shot, no "I do not know").
    """
    chosen = list(dict.fromkeys(m for m in models if m))
    if not chosen:
        raise InputError("choose at least one model", hint="pick models in the list above")
    if not 1 <= points <= MAX_BATCH_POINTS:
        raise InputError(
            f"a batch has 1 to {MAX_BATCH_POINTS} knowledge points, not {points}",
            hint="use `quizbot eval` for larger runs",
        )
    _check_prompt(prompt, statements=fmt == "statements", idk=idk, shots=shots)
    seed = seed or secrets.token_hex(4)
    items = await asyncio.to_thread(_generate, ctx.db, ctx, kb, relation, points, fmt, seed)
    total = len(items) * len(chosen)
    reservation = await asyncio.to_thread(
        reserve_calls,
        ctx.db,
        ctx.settings,
        viewer.name,
        viewer.role,
        calls_for(chosen, len(items)),
        batch=True,
        what="batch",
    )
    done = 0
    stored = dict.fromkeys(chosen, 0)  # answers stored per model: the calls it really made

    def tick(n: int, model: str, made: bool = True) -> None:
        nonlocal done
        done += n
        if made:
            stored[model] = stored.get(model, 0) + n
        if progress is not None:
            progress(done, total, model)

    try:
        spec = EvalSpec(
            model="",
            shots=shots,
            idk=idk,
            seed=seed,
            name=f"app batch: {kb} x{points}" + (" (SDAK)" if prompt == "sdak" else ""),
            prompt=prompt,
        )
        return await _run_models(ctx, chosen, items, tick, spec)
    finally:
        made = sum(stored[m] for m in chosen if not m.startswith("baseline/"))
        await asyncio.to_thread(reservation.release, reservation.calls - made)


def _batch_watch(asking: list[int], progress: Progress) -> Watch:
    """A batch run's watch: its ticks as progress, and its run noted in ``asking`` once asked."""

    def watch(ready: ReadyRun, second: bool) -> AbstractContextManager[Progress | None]:
        del second
        asking.append(ready.run_id)
        return nullcontext(progress)

    return watch


async def _run_models(
    ctx: UiContext,
    chosen: list[str],
    items: list[Item],
    tick: Callable[..., None],
    batch: EvalSpec,
) -> tuple[list[int], list[str]]:
    """One run per model on ``items`` (the part of :func:`run_batch` that asks), each with
    ``batch``'s settings."""

    run_ids: list[int] = []
    failures: list[str] = []
    for model in chosen:
        spec = replace(batch, model=model)
        tick_model = functools.partial(tick, model=model)
        asking: list[int] = []  # once a run is asked, its calls are counted by the ticks
        try:
            # The entry point builds the provider before it records the run, so an unreachable
            # model leaves no empty run behind.
            outcome = await run(
                ctx.db,
                RunRequest(spec, items, second_pass=False),
                settings=ctx.settings,
                watch=_batch_watch(asking, tick_model),
            )
        except QuizbotError as exc:
            if asking:
                raise
            failures.append(f"{model}: {' '.join(str(exc).split())}")
            tick(len(items), model, made=False)  # nothing was asked: its calls are given back
            continue
        summary = outcome.summary
        assert summary is not None
        if summary.status == RunStatus.FAILED:
            # A failed run is never shown as a model's result, only as the reason it is missing.
            failures.append(f"{model}: run {summary.run_id} failed: {summary.error}")
            continue
        run_ids.append(summary.run_id)
    return run_ids, failures


def batch_table(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One row per run report (:func:`quizbot.analysis.reporting.run_report`), metrics with
    intervals."""
    rows = []
    for r in reports:
        metrics, intervals = r.get("metrics", {}), r.get("intervals", {})
        rows.append(
            [
                str(r["run_id"]),
                str(r["model"]),
                str(r["status"]),
                f"{r.get('answered') or 0}/{r['n_items']}",
                str(r.get("n_errors", 0)),
                *(format_estimate(metrics.get(m), intervals.get(m)) for m in _BATCH_METRICS),
            ]
        )
    return {"headers": BATCH_HEADERS, "data": rows}


def sdak_table(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The SDAK pair metrics of each run asked the SDAK way (:data:`SDAK_HEADERS`; fractions of
    pairs, error types of the wrong pairs, 95% intervals); runs without them are left out."""
    rows = []
    for r in reports:
        part = r.get("sdak")
        if not part:
            continue
        metrics, intervals = part.get("metrics", {}), part.get("intervals", {})
        kinds, kind_intervals = part.get("error_types", {}), part.get("error_type_intervals", {})
        rows.append(
            [
                str(r["run_id"]),
                str(r["model"]),
                str(part.get("n_pairs", 0)),
                *(format_estimate(metrics.get(m), intervals.get(m)) for m in SDAK_METRICS),
                *(format_estimate(kinds.get(k), kind_intervals.get(k)) for k in SDAK_ERRORS),
            ]
        )
    return {"headers": SDAK_HEADERS, "data": rows}


def batch_breakdown(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy [95% CI] (n) by relation, then by transform: a row per name, a column per run."""
    columns = [f"run {r['run_id']}: {r['model']}" for r in reports]
    rows = []
    for by in ("relation", "transform"):
        names = list(dict.fromkeys(n for r in reports for n in r.get(f"by_{by}", {})))
        for name in names:
            row = [by, name]
            for r in reports:
                part = r.get(f"by_{by}", {}).get(name)
                if part is None:
                    row.append("-")
                    continue
                shown = format_estimate(
                    part["metrics"].get("average_accuracy"),
                    part["intervals"].get("average_accuracy"),
                )
                row.append(f"{shown} (n={part['n']})")
            rows.append(row)
    return {"headers": [*BREAKDOWN_HEADERS, *columns], "data": rows}


def relation_choices(db: Database, kb: str | None) -> list[tuple[str, str]]:
    """(label, value) pairs for the relation dropdown: every relation first, then each one.

    Built-in KBs are read from their packaged files (no database write); imported ones from the
    database listing.
    """
    choices = [("All relations", ALL_RELATIONS)]
    if not kb:
        return choices
    if kb in BUILTINS:
        relations = load_builtin(kb).relations
        return choices + [(f"{r.label} ({name})", name) for name, r in sorted(relations.items())]
    for entry in kb_listing(db):
        if entry.name == kb:
            return choices + [(name, name) for name in sorted(entry.relations)]
    return choices


# --------------------------------------------------------------------------------------------
# Layout


def _kb_picker(ctx: UiContext, prefix: str) -> tuple[Any, Any]:
    """A knowledge base and a relation dropdown; the relations follow the knowledge base."""
    with gr.Row():
        kb = gr.Dropdown(
            label="Knowledge base",
            choices=[DEFAULT_KB],
            value=DEFAULT_KB,
            elem_id=f"qb-ask-{prefix}-kb",
        )
        relation = gr.Dropdown(
            label="Relation",
            choices=relation_choices(ctx.db, DEFAULT_KB),
            value=ALL_RELATIONS,
            elem_id=f"qb-ask-{prefix}-relation",
        )

    def relations(name: str | None) -> Any:
        try:
            return gr.update(choices=relation_choices(ctx.db, name), value=ALL_RELATIONS)
        except Exception as exc:
            log.warning("ask tab: relations of %r: %s", name, user_message(exc))
            return gr.update(choices=[("All relations", ALL_RELATIONS)], value=ALL_RELATIONS)

    kb.change(relations, inputs=kb, outputs=relation, api_visibility="private")

    def knowledge_bases() -> Any:
        names = [e.name for e in kb_listing(ctx.db)]
        return gr.update(choices=names or [DEFAULT_KB])

    gr.on(None, knowledge_bases, outputs=kb, api_visibility="private")
    return kb, relation


def _answer_panel(prefix: str) -> tuple[Any, Any]:
    """The question as asked and the side-by-side answers table."""
    asked = gr.Markdown(elem_id=f"qb-ask-{prefix}item")
    results = gr.Dataframe(
        headers=ANSWER_HEADERS,
        label="Answers",
        interactive=False,
        wrap=True,
        elem_id=f"qb-ask-{prefix}results",
    )
    return asked, results


@dataclass(frozen=True)
class _Shared:
    """The controls every source of questions uses: models, "I do not know", cache, prompt."""

    models: Any
    idk: Any
    use_cache: Any
    prompt: Any
    message: Any


@dataclass(frozen=True)
class _Single:
    """A source of one question: its inputs, its buttons, the question asked and the answers."""

    inputs: list[Any]
    ask: Any
    new: Any
    asked: Any
    results: Any


@dataclass(frozen=True)
class _Batch:
    """The batch run's inputs (in ``on_batch``'s order after the models), button and tables."""

    inputs: list[Any]
    run: Any
    summary: Any
    runs: Any
    parts: Any
    sdak: Any


def build(ctx: UiContext) -> None:
    """Lay out the tab inside the enclosing gr.Tab."""
    gr.Markdown(
        "Put a question to one or several models and compare their answers, or run a small "
        "evaluation. Baselines need no API key."
    )
    shared = _shared_controls(ctx)
    with gr.Tabs():
        custom = _custom_tab()
        picked = _generated_tab(ctx)
        batch = _batch_tab(ctx)
    generated = gr.State(None)  # the generated item, as its JSON record
    _wire_custom(ctx, shared, custom)
    _wire_generated(ctx, shared, picked, generated)
    _wire_batch(ctx, shared, batch)


def _shared_controls(ctx: UiContext) -> _Shared:
    """Models (refreshed on page load), "I do not know", the cache, the prompt, the message."""
    offered = ctx.models()
    with gr.Row():
        models = gr.Dropdown(
            label="Models",
            choices=offered,
            value=offered[:1],
            multiselect=True,
            scale=4,
            elem_id="qb-ask-models",
        )
        idk = gr.Checkbox(label='Offer "I do not know"', value=False, elem_id="qb-ask-idk")
        use_cache = gr.Checkbox(
            label="Reuse cached answers (single questions)", value=True, elem_id="qb-ask-cache"
        )
    prompt = gr.Radio(
        PROMPT_CHOICES,
        value="standard",
        label="Prompt (true/false statements)",
        elem_id="qb-ask-prompt",
    )
    message = gr.Markdown(elem_id="qb-ask-message")

    # The local model server may start or stop while the app runs: offer what runs now.
    gr.on(None, lambda: gr.update(choices=ctx.models()), outputs=models, api_visibility="private")
    return _Shared(models, idk, use_cache, prompt, message)


def _custom_tab() -> _Single:
    """The "Your statement" tab: the statement and its truth value."""
    with gr.Tab("Your statement", id="ask-custom"):
        statement = gr.Textbox(
            label="Statement",
            placeholder="e.g. Metformin is used to treat type 2 diabetes.",
            lines=2,
            elem_id="qb-ask-statement",
        )
        truth = gr.Radio(
            list(TRUTH_CHOICES),
            value="Unknown",
            label="The statement is",
            elem_id="qb-ask-truth",
        )
        ask_custom = gr.Button("Ask the models", variant="primary", elem_id="qb-ask-custom")
        asked, results = _answer_panel("")
    return _Single([statement, truth], ask_custom, None, asked, results)


def _generated_tab(ctx: UiContext) -> _Single:
    """The "Generated question" tab: knowledge base, relation, format; "New question", "Ask"."""
    with gr.Tab("Generated question", id="ask-generated"):
        gen_kb, gen_relation = _kb_picker(ctx, "gen")
        gen_format = gr.Radio(
            [("True/false statement", "statements"), ("Multiple choice", "choice")],
            value="statements",
            label="Format",
            elem_id="qb-ask-gen-format",
        )
        with gr.Row():
            new_question = gr.Button("New question", elem_id="qb-ask-new")
            ask_generated = gr.Button(
                "Ask the models", variant="primary", elem_id="qb-ask-generated"
            )
        gen_asked, gen_results = _answer_panel("gen-")
    inputs = [gen_kb, gen_relation, gen_format]
    return _Single(inputs, ask_generated, new_question, gen_asked, gen_results)


def _batch_tab(ctx: UiContext) -> _Batch:
    """The "Batch run" tab: what to generate and how to ask it; runs, breakdown, SDAK tables."""
    with gr.Tab("Batch run", id="ask-batch"):
        batch_kb, batch_relation = _kb_picker(ctx, "batch")
        batch_format = gr.Radio(
            [("True/false statements", "statements"), ("Multiple choice", "choice")],
            value="statements",
            label="Format",
            elem_id="qb-ask-batch-format",
        )
        with gr.Row():
            points = gr.Number(
                label="Knowledge points",
                value=5,
                minimum=1,
                maximum=MAX_BATCH_POINTS,
                precision=0,
                elem_id="qb-ask-points",
            )
            shots = gr.Number(
                label="Demonstrations (shots)",
                value=0,
                minimum=0,
                maximum=10,
                precision=0,
                elem_id="qb-ask-shots",
            )
            seed = gr.Textbox(label="Seed (empty: random)", value="", elem_id="qb-ask-seed")
        run_button = gr.Button("Run the batch", variant="primary", elem_id="qb-ask-batch")
        batch_summary = gr.Markdown(elem_id="qb-ask-batch-summary")
        batch_runs = gr.Dataframe(
            headers=BATCH_HEADERS,
            label="Runs (95% intervals)",
            interactive=False,
            wrap=True,
            column_widths=["5%", "15%", "9%", "7%", "6%", "12%", "12%", "11%", "12%", "11%"],
            elem_id="qb-ask-batch-table",
        )
        batch_parts = gr.Dataframe(
            headers=BREAKDOWN_HEADERS,
            label="Accuracy by relation and transform (95% intervals)",
            interactive=False,
            wrap=True,
            elem_id="qb-ask-batch-breakdown",
        )
        batch_sdak = gr.Dataframe(
            headers=SDAK_HEADERS,
            label="SDAK metrics per run (fractions of pairs; error types of the wrong pairs; "
            "95% intervals)",
            interactive=False,
            wrap=True,
            visible=False,
            column_widths=["5%", "13%", "6%", "10%", "9%", "10%", "9%", "9%", "9%", "10%", "10%"],
            elem_id="qb-ask-batch-sdak",
        )
    inputs = [batch_kb, batch_relation, batch_format, points, shots, seed]
    return _Batch(inputs, run_button, batch_summary, batch_runs, batch_parts, batch_sdak)


def _wire_custom(ctx: UiContext, shared: _Shared, custom: _Single) -> None:
    """The "Ask the models" button of the user's statement."""
    models, idk, use_cache, prompt = shared.models, shared.idk, shared.use_cache, shared.prompt

    @guarded(3)
    async def on_custom(
        text: str,
        truth_choice: str,
        chosen: list[str],
        offer_idk: bool,
        cache: bool,
        style: Prompt,
        request: gr.Request,
    ) -> tuple[Any, ...]:
        known = truth_of(truth_choice)
        item = custom_statement(text, known)
        viewer = identity.current(ctx, request)
        answers = await ask_models(
            ctx,
            item,
            chosen,
            idk=offer_idk,
            use_cache=cache,
            scored=known is not None,
            viewer=viewer,
            prompt=style,
        )
        shown = describe_item(item, truth_known=known is not None)
        return "", shown, answer_table(answers, style)

    custom.ask.click(
        on_custom,
        inputs=[*custom.inputs, models, idk, use_cache, prompt],
        outputs=[shared.message, custom.asked, custom.results],
        api_visibility="private",
    )


def _wire_generated(ctx: UiContext, shared: _Shared, picked: _Single, generated: Any) -> None:
    """The "New question" (one generated item, kept in ``generated``) and "Ask the models" on it."""
    message, gen_asked, gen_results = shared.message, picked.asked, picked.results

    @guarded(4)
    def on_new(kb: str, relation: str, fmt: Format) -> tuple[Any, ...]:
        made = _generate(ctx.db, ctx, kb, relation, 1, fmt, secrets.token_hex(4))
        if not made:
            raise InputError("no question could be made from that selection")
        item = secrets.choice(made)
        empty = {"headers": ANSWER_HEADERS, "data": []}
        return "", describe_item(item), item.to_json(), empty

    picked.new.click(
        on_new,
        inputs=picked.inputs,
        outputs=[message, gen_asked, generated, gen_results],
        api_visibility="private",
    )

    @guarded(2)
    async def on_generated(
        record: dict[str, Any] | None,
        chosen: list[str],
        offer_idk: bool,
        cache: bool,
        style: Prompt,
        request: gr.Request,
    ) -> tuple[Any, ...]:
        if not record:
            raise InputError("there is no generated question yet", hint='press "New question"')
        item = item_from_json(record)
        viewer = identity.current(ctx, request)
        answers = await ask_models(
            ctx, item, chosen, idk=offer_idk, use_cache=cache, viewer=viewer, prompt=style
        )
        return "", answer_table(answers, style)

    picked.ask.click(
        on_generated,
        inputs=[generated, shared.models, shared.idk, shared.use_cache, shared.prompt],
        outputs=[message, gen_results],
        api_visibility="private",
    )


def _wire_batch(ctx: UiContext, shared: _Shared, batch: _Batch) -> None:
    """The "Run the batch" button: one evaluation run per chosen model, then their tables."""

    @guarded(5)
    async def on_batch(
        chosen: list[str],
        kb: str,
        relation: str,
        fmt: Format,
        n_points: float | None,
        n_shots: float | None,
        seed_text: str,
        offer_idk: bool,
        style: Prompt,
        request: gr.Request,
        progress: gr.Progress = gr.Progress(),  # noqa: B008 - gradio's documented pattern
    ) -> tuple[Any, ...]:
        def report(done: int, total: int, model: str) -> None:
            progress((done, total), desc=f"asking {model}", unit="answers")

        run_ids, failures = await run_batch(
            ctx,
            chosen,
            kb=kb,
            relation=relation or ALL_RELATIONS,
            points=int(n_points or 0),
            fmt=fmt,
            seed=(seed_text or "").strip() or None,
            shots=int(n_shots or 0),
            idk=offer_idk,
            progress=report,
            viewer=identity.current(ctx, request),
            prompt=style,
        )
        reports = [await asyncio.to_thread(run_report, ctx.db, r) for r in run_ids]
        lines = []
        if reports:
            lines.append(
                f"Finished {len(reports)} run(s): "
                + ", ".join(f"run {r['run_id']} ({r['model']})" for r in reports)
                + ". They are stored like `quizbot eval` runs (`quizbot report RUN`)."
            )
        lines += [f"- could not run {f}" for f in failures]
        pairs = sdak_table(reports)
        return (
            "\n".join(lines),
            "",
            batch_table(reports),
            batch_breakdown(reports),
            gr.update(value=pairs, visible=bool(pairs["data"])),
        )

    batch.run.click(
        on_batch,
        inputs=[shared.models, *batch.inputs, shared.idk, shared.prompt],
        outputs=[batch.summary, shared.message, batch.runs, batch.parts, batch.sdak],
        api_visibility="private",
    )
