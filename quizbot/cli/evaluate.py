"""`quizbot eval`, `runs list`, `report`, `compare`: evaluate models and read the results.

Every evaluation goes through the one entry point, :mod:`quizbot.evaluation.service`.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from quizbot.cli.base import (
    App,
    Group,
    cli,
    database_for,
    difficulty_option,
    emit_json,
    split_list,
)
from quizbot.domain import MAX_TOKENS, RECALL_MAX_TOKENS, SDAK_MAX_TOKENS
from quizbot.errors import InputError, QuizbotError, RunFailedError

if TYPE_CHECKING:
    from quizbot.evaluation import ReadyRun
    from quizbot.evaluation.runner import Progress, RunSummary
    from quizbot.evaluation.service import RunRequest
    from quizbot.items import AnyItem
    from storage import Database

# Young objects collected once per this many net allocations during a run (Python's default: 700).
RUN_GC_THRESHOLD = 20_000


def prepare_process_for_run() -> None:
    """Tune the garbage collector of a process that ends with its evaluation runs.

    What was built so far (imports, items, the run's set-up) is left out of every later scan
    (``gc.freeze``): each model call allocates thousands of objects in litellm, and full
    collections over the whole heap took about a quarter of a run's CPU. Young objects are then
    collected every :data:`RUN_GC_THRESHOLD` allocations instead of 700: with 64 calls in
    flight most young objects are still in use, and each collection promoted them to be scanned
    again and again by older generations (docs/performance.md). Called by ``quizbot eval`` only,
    never by the app or the scheduler, whose processes outlive a run.
    """
    gc.freeze()
    gc.set_threshold(RUN_GC_THRESHOLD, *gc.get_threshold()[1:])


def _read_items(path: Path) -> list[AnyItem]:
    from quizbot.items import any_item_from_json
    from quizbot.jsonl import read_objects

    items: list[AnyItem] = []
    for line, record in read_objects(path):
        try:
            items.append(any_item_from_json(record))
        except (KeyError, ValueError, TypeError) as exc:
            raise InputError(f"not an item ({exc})", path=str(path), line=line) from None
    if not items:
        raise InputError("no items", path=str(path))
    return items


def _flags_given() -> frozenset[str]:
    """Which of --idk, --shots and --prompt were typed (an assignment's protocol sets them;
    one typed that says otherwise is an error, even at its default value)."""
    context = click.get_current_context()
    typed = {
        option: context.get_parameter_source(parameter) == ParameterSource.COMMANDLINE
        for option, parameter in (("idk", "idk"), ("shots", "shots"), ("prompt", "wording"))
    }
    return frozenset(option for option, was in typed.items() if was)


def _print_report(report: dict[str, Any]) -> None:
    from quizbot.cli.text import report_text

    click.echo(report_text(report))


@cli.command("eval")
@click.option("--model", help="litellm model string or baseline/..., e.g. openai/gpt-4o-mini.")
@click.option("--items", "items_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="JSONL of items from `quizbot generate`.")  # fmt: skip
@click.option("--kb", "kb_name", help="Generate the items from this knowledge base instead.")
@click.option(
    "--assignment",
    "assignment_name",
    metavar="NAME",
    help="Put an assignment's exact items to the model; the run counts for it.",
)
@click.option(
    "--item-set",
    "item_set_name",
    metavar="NAME",
    help="Ask an imported item set (`quizbot items list`).",
)
@click.option("--relations", help="With --kb: comma-separated relations.")
@click.option("--points", type=click.IntRange(min=1), help="With --kb: number of knowledge points.")
@click.option("--format", "fmt", type=click.Choice(["statements", "choice", "multi", "numeric",
                                                   "recall"]),
              default="statements", show_default=True,
              help="With --kb: item format (multi: up to 5 right options; numeric: EBMQA ranges, "
              "--kb hpo; recall: open "
              "questions).")  # fmt: skip
@click.option("--prototypes", help="With --kb: prototype file or imported set.")
@difficulty_option
@click.option("--seed", default="0", show_default=True, help="Seed for items and demonstrations.")
@click.option("--shots", type=click.IntRange(min=0), default=0, show_default=True,
              help="Demonstrations per question (few-shot).")  # fmt: skip
@click.option("--idk", is_flag=True, help='Offer "I do not know" as an answer.')
@click.option(
    "--permutations",
    type=click.IntRange(min=1, max=24),
    default=1,
    show_default=True,
    metavar="K",
    help="Ask each multiple-choice question in K option orders (the first is its own; the "
    "others seeded shuffles); `report` then shows their stability.",
)
@click.option(
    "--idk-both",
    is_flag=True,
    help='Ask every order (alone: every question once) with and without "I do not know" '
    "(EBMQA: --permutations 4 --idk-both).",
)
@click.option("--style", type=click.Choice(["chat", "completion"]), default=None,
              help="Chat messages, or text completion [default: completion for local/ models "
              "(base models), chat otherwise].")  # fmt: skip
@click.option(
    "--prompt",
    "wording",
    type=click.Choice(["standard", "sdak"]),
    default="standard",
    show_default=True,
    help="How statements are asked: standard (True or False), or sdak (the verdict Correct or "
    "Incorrect first, then the reason; the report adds the SDAK paper's metrics).",
)
@click.option(
    "--repeats",
    type=click.IntRange(min=1, max=50),
    default=1,
    show_default=True,
    help="Ask the same items N times, each a run of its own in one group; the report gives "
    "every metric as mean ± SD over the group.",
)
@click.option(
    "--temperature",
    type=click.FloatRange(min=0, max=2),
    default=0.0,
    show_default=True,
    help="Sampling temperature sent with every call.",
)
@click.option(
    "--max-tokens",
    type=click.IntRange(min=1),
    help=f"Tokens per answer [default: {MAX_TOKENS}; {RECALL_MAX_TOKENS} for recall; "
    f"{SDAK_MAX_TOKENS} with --prompt sdak].",
)
@click.option(
    "--embedding-model",
    metavar="MODEL",
    help="Recall items: also score the cosine of answer and gold embeddings with this litellm "
    "embedding model [default: QUIZBOT_EMBEDDING_MODEL, else none].",
)
@click.option(
    "--judge",
    metavar="MODEL",
    help="Recall items: ask this model whether each entry the KB cannot verify is a correct "
    "answer; its verdicts count in precision and are stored per entry [default: the "
    "assignment's judge, else none: scoring stays offline].",
)
@click.option(
    "--recall-tiers",
    metavar="METRIC:LOW:HIGH",
    help='Recall tiers, e.g. "f1:0.25:0.7" [default: QUIZBOT_RECALL_TIERS, else that].',
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1, max=512),
    help="Requests in flight [default: the model's QUIZBOT_MODEL_SETTINGS entry, else 8].",
)
@click.option("--api-base", help="Endpoint for the model, e.g. http://127.0.0.1:8080/v1.")
@click.option("--api-key-env", help="Name of the environment variable holding the API key.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds per request [default: the model's settings entry, else 60].",
)
@click.option("--name", help="A name for the run.")
@click.option("--resume", "resume", type=int, metavar="RUN", help="Continue an interrupted run.")
@click.option("--retry-errors", is_flag=True, help="With --resume: ask failed items again.")
@click.option(
    "--queue",
    is_flag=True,
    help="Record the run and queue it for `quizbot worker` processes instead of asking it here; "
    "prints the run id at once (follow it with `quizbot runs wait RUN`). PostgreSQL only.",
)
@click.option(
    "--shards",
    type=click.IntRange(min=1, max=1000),
    metavar="K",
    help="With --queue: split the items into K jobs that workers share [default: 8; on "
    "--resume: the run's own].",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (stdout only).")
@click.pass_obj
def eval_cmd(
    app: App,
    model: str | None,
    items_file: Path | None,
    kb_name: str | None,
    assignment_name: str | None,
    item_set_name: str | None,
    relations: str | None,
    points: int | None,
    fmt: str,
    prototypes: str | None,
    difficulty: str,
    seed: str,
    shots: int,
    idk: bool,
    permutations: int,
    idk_both: bool,
    style: str,
    wording: str,
    repeats: int,
    temperature: float,
    max_tokens: int | None,
    embedding_model: str | None,
    judge: str | None,
    recall_tiers: str | None,
    concurrency: int | None,
    api_base: str | None,
    api_key_env: str | None,
    timeout: float | None,
    name: str | None,
    resume: int | None,
    retry_errors: bool,
    queue: bool,
    shards: int | None,
    as_json: bool,
) -> None:
    """Ask a model (or a baseline) every item and score the answers. Resumable.

    With --queue the run is recorded and split into shards that `quizbot worker` processes
    ask (on this machine or others reaching the same PostgreSQL database).
    """
    from quizbot.evaluation import EvalSpec, ModelOverrides
    from quizbot.evaluation.service import RunRequest

    overrides = ModelOverrides(
        api_base=api_base, api_key_env=api_key_env, timeout=timeout, max_concurrency=concurrency
    )
    if shards is not None and not queue:
        raise InputError("--shards goes with --queue")
    with database_for(app) as database:
        if queue:
            from storage.jobs import require_queue

            require_queue(database, "eval --queue")
        _check_resume(resume, judge=judge, permutations=permutations, idk_both=idk_both)
        if resume is None:
            if not model:
                raise InputError("--model is required", hint="e.g. --model baseline/random")
            source = _Source(
                items_file=items_file, kb_name=kb_name, assignment_name=assignment_name,
                item_set_name=item_set_name, relations=relations, points=points, fmt=fmt,
                prototypes=prototypes, difficulty=difficulty, seed=seed,
            )  # fmt: skip
            source.check()
            if retry_errors:
                raise InputError("--retry-errors goes with --resume RUN")
            items, assignment_id, assignment_judge = _items_to_ask(app, database, source, shots)
            spec = EvalSpec(
                model=model,
                shots=shots,
                idk=idk,
                style="chat" if style == "chat" else "completion" if style else None,
                max_tokens=max_tokens,  # None: the entry point's reply_tokens
                seed=seed,
                name=name,
                overrides=overrides,
                assignment_id=assignment_id,
                recall_tiers=recall_tiers,
                embedding_model=embedding_model,
                judge=judge or assignment_judge,
                permutations=permutations,
                idk_both=idk_both,
                prompt="sdak" if wording == "sdak" else "standard",
                temperature=temperature,
                flags_given=_flags_given() if assignment_id is not None else None,
            )

            to_run = RunRequest(spec, items, repeats=repeats, queue=queue, shards=shards)
        else:
            to_run = RunRequest(
                resume=resume,
                repeats=repeats,
                overrides=overrides,
                retry_errors=retry_errors,
                queue=queue,
                shards=shards,
            )
        if queue:
            _queue_run(app, database, to_run, as_json)
            return
        summary, report = _run_here(app, database, to_run)
    _emit_outcome(summary, report, as_json)


def _check_resume(
    resume: int | None, *, judge: str | None, permutations: int, idk_both: bool
) -> None:
    """Refuse the options a resumed run keeps as recorded (its judge, its option orders)."""
    if resume is not None and judge:
        raise InputError("--judge is stored with the run; --resume continues it as recorded")
    if resume is not None and (permutations != 1 or idk_both):
        raise InputError(
            "--permutations and --idk-both are stored with the run; "
            "--resume continues it as recorded"
        )


@dataclass(frozen=True)
class _Source:
    """Where a new run's items come from (exactly one of the four sources), and how to generate
    them from a knowledge base."""

    items_file: Path | None
    kb_name: str | None
    assignment_name: str | None
    item_set_name: str | None
    relations: str | None
    points: int | None
    fmt: str
    prototypes: str | None
    difficulty: str
    seed: str

    def check(self) -> None:
        """Refuse none or several of --items, --kb, --assignment and --item-set."""
        given = [self.items_file, self.kb_name, self.assignment_name, self.item_set_name]
        if sum(one is not None for one in given) != 1:
            raise InputError(
                "give exactly one of --items FILE, --kb NAME, --assignment NAME and --item-set NAME"
            )


def _items_to_ask(
    app: App, database: Database, source: _Source, shots: int
) -> tuple[list[AnyItem], int | None, str | None]:
    """The items of a new run (from its one checked source), the assignment it counts for and
    that assignment's judge."""
    if source.items_file is not None:
        return _read_items(source.items_file), None, None
    if source.item_set_name is not None:
        from quizbot.generate.item_banks import item_set_items

        if shots:
            raise InputError("--shots needs generated items; an item set is asked zero-shot")
        return list(item_set_items(database, source.item_set_name)[1]), None, None
    if source.assignment_name is not None:
        from quizbot.generate.assignments import assignment_items

        assignment, assignment_list = assignment_items(database, source.assignment_name)
        return list(assignment_list), assignment.id, assignment.config.get("judge") or None
    return _generated_items(app, database, source), None, None


def _generated_items(app: App, database: Database, source: _Source) -> list[AnyItem]:
    """A run's items generated from ``--kb`` (as ``quizbot generate`` would)."""
    from quizbot.generate.service import GenerateRequest, prepare

    assert source.kb_name is not None
    fmt = source.fmt
    request = GenerateRequest(
        kb=source.kb_name,
        relations=split_list(source.relations),
        points=source.points,
        seed=source.seed,
        prototypes=source.prototypes,
        format="choice"
        if fmt in ("choice", "recall")
        else "multi"
        if fmt == "multi"
        else "numeric"
        if fmt == "numeric"
        else "statements",
        difficulty="distant" if source.difficulty == "distant" else "plausible",
    )
    if fmt == "recall":
        request = replace(request, format="recall", prototypes=None)
    return list(prepare(database, request, app.settings).items())


def _queue_run(app: App, database: Database, to_run: RunRequest, as_json: bool) -> None:
    """``eval --queue``: record the run(s) for the workers and say so."""
    from quizbot.evaluation.service import run

    queued = asyncio.run(run(database, to_run, settings=app.settings)).queued
    assert queued is not None
    _print_queued(queued, as_json)


def _run_here(
    app: App, database: Database, to_run: RunRequest
) -> tuple[RunSummary, dict[str, Any]]:
    """Ask the run(s) in this process with a progress bar; the summary and the report (with
    the second pass's, if one ran). Ctrl-C says how to resume."""
    from quizbot.analysis.reporting import run_report
    from quizbot.evaluation.service import run
    from quizbot.progress import progress_bar

    started: list[int] = []

    @contextmanager
    def _watch(ready: ReadyRun, second: bool) -> Iterator[Progress]:
        started.append(ready.run_id)
        prepare_process_for_run()
        if second:
            click.echo("second pass: a forced answer on the abstained items", err=True)
        click.echo(f"run {ready.run_id}: {ready.config.model}", err=True)
        with progress_bar(f"run {ready.run_id}", ready.n_items) as advance:
            yield advance

    try:
        outcome = asyncio.run(run(database, to_run, settings=app.settings, watch=_watch))
    except KeyboardInterrupt:
        if not started:
            raise
        raise QuizbotError(
            f"run {started[-1]} interrupted; answers so far are stored",
            hint=f"continue with `quizbot eval --resume {started[0]}`",
        ) from None
    summary = outcome.summary
    assert summary is not None
    report = run_report(database, summary.run_id)
    if outcome.second is not None:
        report = {**report, "second_pass": run_report(database, outcome.second.run_id)}
    return summary, report


def _emit_outcome(summary: RunSummary, report: dict[str, Any], as_json: bool) -> None:
    """Print the report (text or JSON); a failed run still prints it, then fails the command."""
    from quizbot.domain import RunStatus

    if summary.status == RunStatus.FAILED:
        # The report still goes out (JSON readers see "status": "failed" and the "error"), but
        # the command fails: a run with no usable answers is never a result.
        if as_json:
            emit_json(report)
        raise RunFailedError(
            f"run {summary.run_id} failed: {summary.error}",
            hint=f"fix the cause, then `quizbot eval --resume {summary.run_id} --retry-errors`",
        )
    if as_json:
        emit_json(report)
    else:
        _print_report(report)
        if "second_pass" in report:
            click.echo("second pass (forced answers on the abstained items):")
            _print_report(report["second_pass"])


def _print_queued(queued: tuple[list[int], int], as_json: bool) -> None:
    """What ``eval --queue`` prints: the run id (``--json``: exactly run_id, status, shards)."""
    run_ids, shards = queued
    if as_json:
        emit_json({"run_id": run_ids[0], "status": "queued", "shards": shards})
    else:
        group = f" (and its repeats {', '.join(map(str, run_ids[1:]))})" if len(run_ids) > 1 else ""
        click.echo(f"run {run_ids[0]}{group} queued in {shards} shard(s)")
    click.echo(f"follow it with `quizbot runs wait {run_ids[0]}`", err=True)


@cli.group(cls=Group)
def runs() -> None:
    """Evaluation runs."""


@runs.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_obj
def runs_list(app: App, as_json: bool) -> None:
    """List recent runs, newest first."""
    from storage.repo import list_runs

    with database_for(app) as database:
        rows = list_runs(database)
        shards = _shard_states(database, [run.id for run, _ in rows if run.id is not None])
    data: list[dict[str, Any]] = [
        {
            "run_id": run.id, "name": run.name, "model": run.model_requested,
            "model_reported": run.model_reported, "status": run.status, "n_items": run.n_items,
            "responses": n, "created_at": run.created_at.isoformat(),
            **({"shards": shards[run.id]} if run.id in shards else {}),
        }
        for run, n in rows
    ]  # fmt: skip
    if as_json:
        emit_json({"runs": data})
        return
    from quizbot.cli.text import runs_text

    click.echo(runs_text(data))


def _shard_states(database: Database, run_ids: list[int]) -> dict[int, dict[str, int]]:
    """Per queued run, how many of its shard jobs wait (``queued``), run (``running``) or gave
    up (``failed``); finished shards leave the queue. Nothing on SQLite (no queue there)."""
    if database.backend != "postgresql" or not run_ids:
        return {}
    from storage.jobs import shard_jobs

    names = {"todo": "queued", "doing": "running", "failed": "failed"}
    states: dict[int, dict[str, int]] = {}
    for job in shard_jobs(database, run_ids):
        if job.status in names:
            counts = states.setdefault(job.run_id, {"queued": 0, "running": 0, "failed": 0})
            counts[names[job.status]] += 1
    return states


@runs.command("wait")
@click.argument("run_id", type=int, metavar="RUN")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="S",
    help="Give up after S seconds (exit 124; the workers go on) [default: no limit].",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (stdout only).")
@click.pass_obj
def runs_wait(app: App, run_id: int, timeout: float | None, as_json: bool) -> None:
    """Follow a queued run (and its repeats) until it ends, then print its report.

    Exits as `eval` would: 0 completed, 69 failed; 124 when --timeout ran out first.
    """
    import time

    from quizbot.analysis.reporting import run_report
    from quizbot.domain import RunStatus
    from quizbot.errors import WaitTimeoutError
    from quizbot.progress import progress_bar
    from storage.repo import count_responses, repeat_group

    deadline = None if timeout is None else time.monotonic() + timeout
    with database_for(app) as database:
        group = repeat_group(database, run_id)
        total = sum(run.n_items for run in group)
        seen = 0
        with progress_bar(f"run {run_id}", total) as advance:
            while True:
                group = repeat_group(database, run_id)
                answered = sum(count_responses(database, run_id=run.id) for run in group)
                advance(max(0, answered - seen))
                seen = max(seen, answered)
                statuses = {run.status for run in group}
                if RunStatus.FAILED in statuses or statuses == {RunStatus.COMPLETED}:
                    break
                if RunStatus.INTERRUPTED in statuses:
                    raise QuizbotError(
                        f"run {run_id} was interrupted; answers so far are stored",
                        hint=f"continue with `quizbot eval --resume {run_id} [--queue]`",
                    )
                if deadline is not None and time.monotonic() >= deadline:
                    raise WaitTimeoutError(
                        f"run {run_id} has not finished after {timeout:g} s "
                        f"({answered}/{total} answers stored)",
                        hint=f"the workers go on; wait again with `quizbot runs wait {run_id}`",
                    )
                time.sleep(0.25)
        failed = next((run for run in group if run.status == RunStatus.FAILED), None)
        shown = failed or group[0]
        assert shown.id is not None
        report = run_report(database, shown.id)
    if as_json:
        emit_json(report)
    if failed is not None:
        raise RunFailedError(
            f"run {shown.id} failed: {failed.error_text}",
            hint=f"fix the cause, then `quizbot eval --resume {shown.id} --retry-errors --queue`",
        )
    if not as_json:
        _print_report(report)


@runs.command("export")
@click.argument("run_id", type=int, metavar="RUN")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["inspect", "jsonl"]),
    required=True,
    help="inspect: an Inspect AI eval log (JSON; `inspect view` and read_eval_log open it); "
    "jsonl: one row per answer, as in `quizbot answers --json`.",
)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="File to write (written whole or not at all).")  # fmt: skip
@click.pass_obj
def runs_export(app: App, run_id: int, fmt: str, out: Path) -> None:
    """Export run RUN for other tools: an Inspect AI eval log, or its answers as JSONL."""
    import json

    from quizbot.analysis.exports import write_atomic
    from quizbot.interop.inspect_log import answer_rows, eval_log

    with database_for(app) as database:
        if fmt == "inspect":
            log = eval_log(database, run_id)
            text = json.dumps(log, indent=2, ensure_ascii=False) + "\n"
            what = f"{len(log['samples'])} samples"
        else:
            rows = answer_rows(database, run_id)
            text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
            what = f"{len(rows)} answers"
    write_atomic(out, text)
    click.echo(f"wrote run {run_id} ({what}) to {out}", err=True)


@runs.command("review-reasons")
@click.argument("run_id", type=int, metavar="RUN")
@click.option("--sample", "n", type=click.IntRange(min=1, max=500), default=10, show_default=True,
              help="How many unmarked reasons to draw.")  # fmt: skip
@click.option("--seed", default="0", show_default=True, help="Seed of the sample's order.")
@click.option(
    "--mark",
    "marks",
    multiple=True,
    metavar="ANSWER=sound|unsound",
    help="Mark without prompting (repeatable), e.g. --mark 12=sound.",
)
@click.option("--by", default="cli", show_default=True, help="Who reviews.")
@click.option("--json", "as_json", is_flag=True, help="Print the sample as JSON; mark nothing.")
@click.pass_obj
def review_reasons(
    app: App, run_id: int, n: int, seed: str, marks: tuple[str, ...], by: str, as_json: bool
) -> None:
    """Review the reasons behind an SDAK run's correct verdicts: sound or unsound.

    Draws up to N unmarked reasons and asks about each (s: sound, u: unsound, k: skip, q: stop);
    with --mark, stores the given marks instead. `quizbot report RUN` then shows accuracy
    reliability (the share of sound reasons) with its interval.
    """
    from quizbot.analysis.reasons import mark, reasons, reliability, sample_reasons

    with database_for(app) as database:
        if marks:
            for given in marks:
                answer, _, verdict = given.partition("=")
                if not answer.strip().isdigit() or verdict not in ("sound", "unsound"):
                    raise InputError(
                        f"--mark {given!r}: expected ANSWER=sound or ANSWER=unsound",
                        hint="answer ids are listed by --json",
                    )
            for given in marks:
                answer, _, verdict = given.partition("=")
                mark(database, run_id, int(answer), sound=verdict == "sound", reviewer=by)
            click.echo(f"stored {len(marks)} mark(s)")
            return
        sample = sample_reasons(database, run_id, n, seed=seed)
        if as_json:
            emit_json({"run_id": run_id, "sample": [entry.as_json() for entry in sample]})
            return
        if not sample:
            click.echo(f"run {run_id}: no unmarked reason behind a correct verdict")
        for number, entry in enumerate(sample, 1):
            click.echo(f"\n[{number}/{len(sample)}] answer {entry.response_id}")
            click.echo(f"claim:   {' '.join(entry.claim.split())}")
            click.echo(f"verdict: {entry.verdict} (right)")
            click.echo(f"reason:  {entry.reason or '(none given)'}")
            choice = click.prompt(
                "sound?", type=click.Choice(["s", "u", "k", "q"]), show_choices=True
            )
            if choice == "q":
                break
            if choice in ("s", "u"):
                mark(database, run_id, entry.response_id, sound=choice == "s", reviewer=by)
        rel = reliability(reasons(database, run_id))
    if rel is not None:
        low, high = rel["interval"]
        click.echo(
            f"accuracy reliability: {rel['value']:.3f} [{low:.3f}, {high:.3f}] "
            f"({rel['sound']}/{rel['reviewed']} reviewed reasons sound)"
        )


@cli.command("report")
@click.argument("run_id", type=int, metavar="RUN")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
def report_cmd(app: App, run_id: int, as_json: bool) -> None:
    """Metrics of one run with 95% intervals, by relation and transform."""
    from quizbot.analysis.reporting import run_report

    with database_for(app) as database:
        report = run_report(database, run_id)
    if as_json:
        emit_json(report)
    else:
        _print_report(report)


@cli.command("compare")
@click.argument("run_a", type=int, metavar="RUN_A")
@click.argument("run_b", type=int, metavar="RUN_B")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.pass_obj
def compare_cmd(app: App, run_a: int, run_b: int, as_json: bool) -> None:
    """Compare two runs: McNemar's test (shared items) or a z test; recall: Welch per aspect.

    Statements and choice questions: McNemar's exact test on shared items, else a two-proportion
    test. Open recall runs: Welch's t-test on F1 per aspect, Benjamini-Hochberg adjusted.
    """
    from quizbot.analysis.reporting import compare_report

    with database_for(app) as database:
        result = compare_report(database, run_a, run_b)
    if as_json:
        emit_json(result)
        return
    from quizbot.cli.text import compare_text

    click.echo(compare_text(result))
