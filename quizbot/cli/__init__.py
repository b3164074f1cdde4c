"""The ``quizbot`` command.

Errors a user can fix print one line (``error: ...`` plus a ``fix:`` line) and exit non-zero;
unexpected errors print a short apology and exit 70, with the traceback only when
``QUIZBOT_DEBUG=1`` or ``--debug`` asks for it. Machine-readable output (``--json``) goes to stdout
alone; logs and progress go to stderr.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any, NoReturn

import click

from quizbot import __version__
from quizbot.analysis.reporting import compare_report, run_report
from quizbot.config import Settings, load_settings
from quizbot.domain import RunStatus
from quizbot.errors import InputError, QuizbotError, RunFailedError
from quizbot.evaluation import EvalSpec, ModelOverrides, ReadyRun, RunSummary, reopen
from quizbot.evaluation import start as start_run
from quizbot.evaluation.runner import execute
from quizbot.generate.prototypes import read_prototypes
from quizbot.generate.service import GenerateRequest, prepare, write
from quizbot.items import ChoiceItem, StatementItem, item_from_json
from quizbot.jsonl import read_objects
from quizbot.kb.importers import read_medlama, read_triplets
from quizbot.kb.registry import check_import_name, import_kb, kb_listing
from quizbot.logs import configure_logging
from quizbot.progress import progress_bar
from quizbot.providers.local import LOCAL_MODEL
from quizbot.providers.local import start as local_start_server
from quizbot.providers.local import status as local_server_status
from quizbot.providers.local import stop as local_stop_server
from quizbot.server import serve
from quizbot.status import database_report
from storage import Database, open_database, upgrade
from storage.repo import list_runs, save_prototype_set

__all__ = ["cli", "main"]

log = logging.getLogger("quizbot.cli")

EXIT_INTERNAL = 70  # EX_SOFTWARE


def _debug_requested() -> bool:
    return os.environ.get("QUIZBOT_DEBUG", "").strip().lower() in {"1", "true", "yes", "on"}


class _App:
    """What every command gets through ``ctx.obj``: settings loaded once, on first use."""

    def __init__(self, debug: bool) -> None:
        self.debug = debug
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings()
            configure_logging(self._settings.log_level)
        return self._settings


class _Group(click.Group):
    """A group that turns exceptions into user-safe messages and exit codes."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except QuizbotError as exc:
            _fail(str(exc), exc.exit_code)
        except KeyboardInterrupt:
            _fail("interrupted", 130)
        except Exception as exc:
            app = ctx.obj if isinstance(ctx.obj, _App) else None
            if _debug_requested() or (app is not None and app.debug):
                raise
            log.debug("unexpected error", exc_info=True)
            _fail(
                f"internal error ({type(exc).__name__}): {exc}\n"
                "  this is a bug in quizbot; rerun with QUIZBOT_DEBUG=1 to see the traceback",
                EXIT_INTERNAL,
            )


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False, default=str))


@click.group(name="quizbot", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="quizbot")
@click.option("--debug", is_flag=True, help="Show tracebacks for unexpected errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """quizbot: medical knowledge quizzes for students and knowledge monitoring for LLMs.

    Settings come from environment variables (QUIZBOT_HOME, DATABASE_URL, QUIZBOT_PORT, ...);
    see the README.
    """
    configure_logging("WARNING")
    ctx.obj = _App(debug=debug)


# ------------------------------------------------------------------------------------- db


@cli.group(cls=_Group)
def db() -> None:
    """Manage the database: schema upgrades and what it holds."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True, help="Migrate up to this revision.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def db_upgrade(app: _App, revision: str, as_json: bool) -> None:
    """Apply pending schema migrations (a no-op when there are none)."""
    settings = app.settings
    settings.ensure_home()
    database = Database(settings.effective_database_url, settings.engine_options())
    try:
        database.ping()
        before, after = upgrade(database, revision)
    finally:
        database.dispose()
    if as_json:
        _emit_json(
            {"url": database.masked_url, "from": before, "to": after, "changed": before != after}
        )
    elif before == after:
        click.echo(f"{database.masked_url}: schema already at {after}; nothing to do")
    else:
        click.echo(f"{database.masked_url}: schema upgraded from {before or 'empty'} to {after}")


@db.command("info")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
def db_info(app: _App, as_json: bool) -> None:
    """Show the database URL (password masked), schema version and row counts per table."""
    settings = app.settings
    settings.ensure_home()
    database = Database(settings.effective_database_url, settings.engine_options())
    try:
        database.ping()
        report = database_report(database)
    finally:
        database.dispose()
    if as_json:
        _emit_json(report.as_json())
        return
    click.echo(f"url:            {report.url}")
    click.echo(f"backend:        {report.backend}")
    state = (
        "up to date" if report.up_to_date else f"needs `quizbot db upgrade` to {report.schema_head}"
    )
    click.echo(f"schema version: {report.schema_version or 'none (empty database)'} ({state})")
    if report.counts:
        width = max(len(t) for t in report.counts)
        click.echo("rows:")
        for table, n in report.counts.items():
            click.echo(f"  {table:<{width}}  {n:>10,}")


# ------------------------------------------------------------------------------------- kb


@contextmanager
def _database(app: _App) -> Iterator[Database]:
    """The configured database, migrated if empty, closed afterwards."""
    settings = app.settings
    settings.ensure_home()
    database = open_database(settings.effective_database_url, settings.engine_options())
    try:
        yield database
    finally:
        database.dispose()


@cli.group(cls=_Group)
def kb() -> None:
    """Knowledge bases: list them and import new ones."""


@kb.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_obj
def kb_list(app: _App, as_json: bool) -> None:
    """List knowledge bases: built-in ones and those imported into the database."""
    with _database(app) as database:
        listing = kb_listing(database)
    if as_json:
        _emit_json({"knowledge_bases": [entry.as_json() for entry in listing]})
        return
    for entry in listing:
        state = f"{entry.points:,} points" if entry.installed else "built in, loads on first use"
        click.echo(f"{entry.name:<20} {entry.source:<9} {entry.version or '-':<22} {state}")
        for relation, n in entry.relations.items():
            click.echo(f"    {relation:<45} {n:>8,}")


@kb.command("import")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["medlama", "triplets", "prototypes"]),
    required=True,
    help="medlama: a MedLAMA folder; triplets: CSV or JSONL of head,relation,tail; "
    "prototypes: a prototype CSV (quizbot's or the PretexEval paper's format).",
)
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--name", required=True, help="Name to import it under.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def kb_import(app: _App, fmt: str, path: Path, name: str, as_json: bool) -> None:
    """Import a knowledge base or a prototype file. A bad file is rejected whole."""
    with _database(app) as database:
        if fmt == "prototypes":
            protos, kind, text = read_prototypes(path, name)
            relations = sorted({r for r, _ in protos.prototypes})
            _row, created = save_prototype_set(
                database,
                name=name,
                format=kind,
                digest=protos.digest,
                content=text,
                source_path=str(path),
            )
            result: dict[str, Any] = {
                "name": name,
                "kind": "prototypes",
                "format": kind,
                "relations": len(relations),
                "created": created,
            }
            message = (
                f"imported prototype set {name!r} ({kind} format, {len(relations)} relations)"
                if created
                else f"prototype set {name!r} is already imported; nothing to do"
            )
        else:
            check_import_name(name)
            data = read_medlama(path, name) if fmt == "medlama" else read_triplets(path, name)
            outcome = import_kb(database, data)
            primary = sum(1 for t in data.triplets if t.meta.get("primary", True))
            result = {
                "name": name,
                "kind": "knowledge_base",
                "format": fmt,
                "triplets": len(data.triplets),
                "points": primary,
                "relations": len(data.relations),
                "added": outcome.added,
                "created": not outcome.unchanged,
            }
            message = (
                f"imported {name!r}: {len(data.triplets):,} triplets "
                f"({primary:,} knowledge points) in {len(data.relations)} relations"
                if not outcome.unchanged
                else f"{name!r} is already imported; nothing to do"
            )
    if as_json:
        _emit_json(result)
    else:
        click.echo(message)


# ------------------------------------------------------------------------------- generate


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


@cli.command("generate")
@click.option("--kb", "kb_name", required=True, help="Knowledge base name (see `quizbot kb list`).")
@click.option("--relations", help="Comma-separated relations to use [default: all].")
@click.option(
    "--points", type=click.IntRange(min=1), help="Number of knowledge points [default: all]."
)
@click.option(
    "--seed", default="0", show_default=True, help="Seed for point and negative selection."
)
@click.option("--prototypes", help="Prototype CSV file, or the name of an imported prototype set.")
@click.option(
    "--rephrase", metavar="MODEL", help="Rephrase statements with this model (validated)."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["statements", "choice"]),
    default="statements",
    show_default=True,
    help="True/false statements or multiple-choice questions.",
)
@click.option(
    "--points-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help='JSONL of explicit points: {"head", "relation", "tail", "negative_tail"}.',
)
@click.option(
    "--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="Output JSONL."
)
@click.option("--no-store", is_flag=True, help="Do not store the items in the database.")
@click.option("--json", "as_json", is_flag=True, help="Print a summary as JSON.")
@click.pass_obj
def generate_cmd(
    app: _App,
    kb_name: str,
    relations: str | None,
    points: int | None,
    seed: str,
    prototypes: str | None,
    rephrase: str | None,
    fmt: str,
    points_file: Path | None,
    out: Path,
    no_store: bool,
    as_json: bool,
) -> None:
    """Generate questions from a knowledge base and write them as JSONL."""
    request = GenerateRequest(
        kb=kb_name,
        relations=_split(relations),
        points=points,
        seed=seed,
        prototypes=prototypes,
        format="choice" if fmt == "choice" else "statements",
        points_file=points_file,
        store=not no_store,
        rephrase=rephrase,
    )
    with _database(app) as database:
        generation = prepare(database, request, app.settings)
        with progress_bar("generating", generation.expected_items) as advance:
            written = write(database, generation, out, advance)
    n = written.n_items
    summary = {
        "out": str(out),
        "kb": generation.kb.name,
        "kb_version": generation.kb.version,
        "prototypes": f"{generation.prototypes.name}@{generation.prototypes.digest}",
        "points": len(generation.facts),
        "items": n,
        "stored_new": written.stored_new,
        "points_without_negative": generation.skipped_no_negative,
        "notes": generation.notes,
        "rephrase": generation.rephraser.stats.summary() if generation.rephraser else None,
    }
    if as_json:
        _emit_json(summary)
        return
    click.echo(
        f"wrote {n:,} items from {len(generation.facts):,} knowledge points "
        f"of {generation.kb.name!r} to {out}"
    )
    if generation.skipped_no_negative:
        click.echo(
            f"  {generation.skipped_no_negative} points had no safe negative (positive side only)"
        )
    for note in generation.notes:
        click.echo(f"  {note}")
    if generation.rephraser is not None:
        click.echo(f"  {generation.rephraser.stats.summary()}")
    if generation.kb.license:
        click.echo(f"  {generation.kb.license}")


# ----------------------------------------------------------------------------------- eval


def _read_items(path: Path) -> list[StatementItem | ChoiceItem]:
    items: list[StatementItem | ChoiceItem] = []
    for line, record in read_objects(path):
        try:
            items.append(item_from_json(record))
        except (KeyError, ValueError, TypeError) as exc:
            raise InputError(f"not an item ({exc})", path=str(path), line=line) from None
    if not items:
        raise InputError("no items", path=str(path))
    return items


def _print_report(report: dict[str, Any]) -> None:
    metrics, intervals = report.get("metrics", {}), report.get("intervals", {})
    click.echo(
        f"run {report['run_id']}: {report['model']} "
        f"(reported: {report.get('model_reported') or '-'}), {report['status']}, "
        f"{report.get('answered', 0)}/{report['n_items']} answered items stored"
    )
    for name, value in metrics.items():
        if value is None:
            click.echo(f"  {name:<28} -")
            continue
        low_high = intervals.get(name)
        ci = (
            f"  [{low_high[0]:.3f}, {low_high[1]:.3f}]" if low_high and None not in low_high else ""
        )
        click.echo(f"  {name:<28} {value:6.3f}{ci}")
    if report.get("n_errors"):
        click.echo(f"  errors (excluded from the metrics): {report['n_errors']}")


@cli.command("eval")
@click.option("--model", help="litellm model string or baseline/..., e.g. openai/gpt-4o-mini.")
@click.option("--items", "items_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="JSONL of items from `quizbot generate`.")  # fmt: skip
@click.option("--kb", "kb_name", help="Generate the items from this knowledge base instead.")
@click.option("--relations", help="With --kb: comma-separated relations.")
@click.option("--points", type=click.IntRange(min=1), help="With --kb: number of knowledge points.")
@click.option("--format", "fmt", type=click.Choice(["statements", "choice"]), default="statements",
              show_default=True, help="With --kb: item format.")  # fmt: skip
@click.option("--prototypes", help="With --kb: prototype file or imported set.")
@click.option("--seed", default="0", show_default=True, help="Seed for items and demonstrations.")
@click.option("--shots", type=click.IntRange(min=0), default=0, show_default=True,
              help="Demonstrations per question (few-shot).")  # fmt: skip
@click.option("--idk", is_flag=True, help='Offer "I do not know" as an answer.')
@click.option("--style", type=click.Choice(["chat", "completion"]), default=None,
              help="Chat messages, or text completion [default: completion for local/ models "
              "(base models), chat otherwise].")  # fmt: skip
@click.option("--max-tokens", type=click.IntRange(min=1), default=16, show_default=True)
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
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (stdout only).")
@click.pass_obj
def eval_cmd(
    app: _App,
    model: str | None,
    items_file: Path | None,
    kb_name: str | None,
    relations: str | None,
    points: int | None,
    fmt: str,
    prototypes: str | None,
    seed: str,
    shots: int,
    idk: bool,
    style: str,
    max_tokens: int,
    concurrency: int | None,
    api_base: str | None,
    api_key_env: str | None,
    timeout: float | None,
    name: str | None,
    resume: int | None,
    retry_errors: bool,
    as_json: bool,
) -> None:
    """Ask a model (or a baseline) every item and score the answers. Resumable."""
    overrides = ModelOverrides(
        api_base=api_base, api_key_env=api_key_env, timeout=timeout, max_concurrency=concurrency
    )
    with _database(app) as database:
        if resume is None:
            if not model:
                raise InputError("--model is required", hint="e.g. --model baseline/random")
            if (items_file is None) == (kb_name is None):
                raise InputError("give exactly one of --items FILE and --kb NAME")
            if retry_errors:
                raise InputError("--retry-errors goes with --resume RUN")
            if items_file is not None:
                items = _read_items(items_file)
            else:
                assert kb_name is not None
                request = GenerateRequest(
                    kb=kb_name,
                    relations=_split(relations),
                    points=points,
                    seed=seed,
                    prototypes=prototypes,
                    format="choice" if fmt == "choice" else "statements",
                )
                items = list(prepare(database, request, app.settings).items())
            spec = EvalSpec(
                model=model,
                shots=shots,
                idk=idk,
                style="chat" if style == "chat" else "completion" if style else None,
                max_tokens=max_tokens,
                seed=seed,
                name=name,
                overrides=overrides,
            )

            async def _ready() -> ReadyRun:
                return await start_run(database, spec, items, settings=app.settings)

        else:

            async def _ready() -> ReadyRun:
                return reopen(database, resume, settings=app.settings, overrides=overrides)

        started: list[int] = []

        async def _run() -> RunSummary:
            ready = await _ready()
            started.append(ready.run_id)
            click.echo(f"run {ready.run_id}: {ready.config.model}", err=True)
            with progress_bar(f"run {ready.run_id}", ready.n_items) as advance:
                return await execute(
                    database,
                    ready.run_id,
                    ready.provider,
                    retry_errors=retry_errors,
                    progress=advance,
                )

        try:
            summary = asyncio.run(_run())
        except KeyboardInterrupt:
            if not started:
                raise
            raise QuizbotError(
                f"run {started[0]} interrupted; answers so far are stored",
                hint=f"continue with `quizbot eval --resume {started[0]}`",
            ) from None
        report = run_report(database, summary.run_id)
    if summary.status == RunStatus.FAILED:
        # The report still goes out (JSON readers see "status": "failed" and the "error"), but
        # the command fails: a run with no usable answers is never a result.
        if as_json:
            _emit_json(report)
        raise RunFailedError(
            f"run {summary.run_id} failed: {summary.error}",
            hint=f"fix the cause, then `quizbot eval --resume {summary.run_id} --retry-errors`",
        )
    if as_json:
        _emit_json(report)
    else:
        _print_report(report)


@cli.group(cls=_Group)
def runs() -> None:
    """Evaluation runs."""


@runs.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_obj
def runs_list(app: _App, as_json: bool) -> None:
    """List recent runs, newest first."""
    with _database(app) as database:
        rows = list_runs(database)
    data: list[dict[str, Any]] = [
        {
            "run_id": run.id, "name": run.name, "model": run.model_requested,
            "model_reported": run.model_reported, "status": run.status, "n_items": run.n_items,
            "responses": n, "created_at": run.created_at.isoformat(),
        }
        for run, n in rows
    ]  # fmt: skip
    if as_json:
        _emit_json({"runs": data})
        return
    for row in data:
        click.echo(
            f"{row['run_id']:>5}  {row['status']:<11} {row['responses']:>6}/{row['n_items']:<6} "
            f"{row['model']}  {row['created_at'][:16]}"
        )


@cli.command("report")
@click.argument("run_id", type=int, metavar="RUN")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_obj
def report_cmd(app: _App, run_id: int, as_json: bool) -> None:
    """Metrics of one run with 95% intervals, by relation and transform."""
    with _database(app) as database:
        report = run_report(database, run_id)
    if as_json:
        _emit_json(report)
    else:
        _print_report(report)


@cli.command("compare")
@click.argument("run_a", type=int, metavar="RUN_A")
@click.argument("run_b", type=int, metavar="RUN_B")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.pass_obj
def compare_cmd(app: _App, run_a: int, run_b: int, as_json: bool) -> None:
    """Compare two runs: McNemar's exact test on shared items, else a two-proportion test."""
    with _database(app) as database:
        result = compare_report(database, run_a, run_b)
    if as_json:
        _emit_json(result)
        return
    for key, value in result.items():
        click.echo(f"{key:<24} {value}")


# ----------------------------------------------------------------------------- local model


@cli.group("local-model", cls=_Group)
def local_model() -> None:
    """A local model with no API key: Gemma 3 270M served by llama.cpp (extra: quizbot[local])."""


@local_model.command("start")
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="Port [default: free].")
@click.option("--json", "as_json", is_flag=True, help="Print the server as JSON.")
@click.pass_obj
def local_start(app: _App, port: int | None, as_json: bool) -> None:
    """Assemble the model into the data directory (once) and start its server on 127.0.0.1."""
    home = app.settings.ensure_home()
    click.echo("starting the local model server...", err=True)
    server = local_start_server(home, port=port)
    if as_json:
        _emit_json({**asdict(server), "base_url": server.base_url, "model": f"local/{LOCAL_MODEL}"})
    else:
        click.echo(f"local/{LOCAL_MODEL} serving at {server.base_url} (pid {server.pid})")


@local_model.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.pass_obj
def local_status(app: _App, as_json: bool) -> None:
    """Whether the local model server runs, and where."""
    server = local_server_status(app.settings.home)
    if as_json:
        _emit_json(
            {"running": server is not None, **({"base_url": server.base_url, "pid": server.pid}
                                               if server else {})}
        )  # fmt: skip
    elif server is None:
        click.echo("not running (start it with `quizbot local-model start`)")
    else:
        click.echo(f"local/{LOCAL_MODEL} serving at {server.base_url} (pid {server.pid})")


@local_model.command("stop")
@click.pass_obj
def local_stop(app: _App) -> None:
    """Stop the local model server."""
    stopped = local_stop_server(app.settings.home)
    click.echo("stopped" if stopped else "not running")


# ------------------------------------------------------------------------- monitoring

_SCHEDULES_OPTION = click.option(
    "--schedules",
    "schedules_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Schedules file [default: QUIZBOT_SCHEDULES_FILE or the shipped schedules/monitors.toml].",
)


def _monitors(app: _App, schedules_file: Path | None) -> tuple[Path, list[Any]]:
    from schedules.config import default_schedules_file, load_monitors  # noqa: PLC0415

    path = schedules_file or app.settings.schedules_file or default_schedules_file()
    return path, load_monitors(path)


@cli.group(cls=_Group)
def monitor() -> None:
    """Nightly drift monitors declared in the schedules file."""


@monitor.command("list")
@_SCHEDULES_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the monitors as JSON.")
@click.pass_obj
def monitor_list(app: _App, schedules_file: Path | None, as_json: bool) -> None:
    """The monitors of the schedules file (checked) and their last nights."""
    from quizbot.monitoring.nights import history  # noqa: PLC0415
    from quizbot.monitoring.scheduler import trigger_for  # noqa: PLC0415

    path, specs = _monitors(app, schedules_file)
    rows: list[dict[str, Any]] = []
    with _database(app) as database:
        for spec in specs:
            try:
                series = history(database, spec.name)
            except QuizbotError:
                series = []
            last = max((n["date"] for h in series for n in h["nights"]), default=None)
            rows.append({
                **spec.as_json(),
                "next_run": str(trigger_for(spec).get_next_fire_time(None, _now())),
                "last_night": last,
                "alerts": sum(len(h["alerts"]) for h in series),
            })  # fmt: skip
    if as_json:
        _emit_json({"schedules_file": str(path), "monitors": rows})
        return
    click.echo(f"{path}: {len(rows)} monitor(s)")
    for row in rows:
        state = "" if row["enabled"] else "  (disabled)"
        click.echo(
            f"  {row['name']:<16} {row['cron']:<12} {row['timezone']:<14} "
            f"{row['points']} points ({row['anchor_points']} anchors)  "
            f"last {row['last_night'] or '-'}  alerts {row['alerts']}{state}"
        )
        click.echo(f"      models: {', '.join(row['models'])}   next: {row['next_run'][:16]}")


def _now() -> Any:
    from datetime import UTC, datetime  # noqa: PLC0415

    return datetime.now(UTC)


@monitor.command("run")
@click.argument("name")
@click.option(
    "--date",
    "night",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    help="The night to run (reproduces that night's items) [default: tonight].",
)
@click.option("--model", "only_model", help="Only this model of the monitor.")
@_SCHEDULES_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.pass_obj
def monitor_run(
    app: _App, name: str, night: Any, only_model: str | None,
    schedules_file: Path | None, as_json: bool,
) -> None:  # fmt: skip
    """Run one night of monitor NAME now, for every model (skips nights already run)."""
    from dataclasses import replace  # noqa: PLC0415

    from quizbot.monitoring.nights import run_monitor  # noqa: PLC0415
    from schedules.config import find_monitor  # noqa: PLC0415

    _path, specs = _monitors(app, schedules_file)
    spec = find_monitor(specs, name)
    if only_model is not None:
        if only_model not in spec.models:
            raise InputError(
                f"monitor {name!r} has no model {only_model!r}",
                hint=f"models: {', '.join(spec.models)}",
            )
        spec = replace(spec, models=(only_model,))
    with _database(app) as database:
        results = run_monitor(
            database, spec, when=night.date() if night else None, settings=app.settings
        )
    if as_json:
        _emit_json({"results": [r.as_json() for r in results]})
    else:
        for r in results:
            click.echo(f"{r.monitor} {r.date} {r.model}: {r.status}"
                       + (f" (run {r.run_id})" if r.run_id else "") + f" {r.message}")  # fmt: skip
            for alert in r.alerts:
                click.echo(f"  [{alert['severity']}] {alert['message']}")
    if any(r.status == "failed" for r in results):
        sys.exit(1)


def _accuracy_text(part: dict[str, Any]) -> str:
    figure = part.get("accuracy", {})
    value = figure.get("value")
    if value is None:
        return "   -   "
    interval = figure.get("interval") or []
    band = f" [{interval[0]:.2f}-{interval[1]:.2f}]" if len(interval) == 2 else ""
    return f"{value:.3f}{band}"


@monitor.command("history")
@click.argument("name")
@click.option("--model", help="Only this model.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object per model and line: monitor, model, nights, alerts.",
)
@click.pass_obj
def monitor_history(app: _App, name: str, model: str | None, as_json: bool) -> None:
    """Nightly accuracy with 95% intervals (anchor vs rotating), model ids and alerts."""
    from quizbot.monitoring.nights import history  # noqa: PLC0415

    with _database(app) as database:
        series = history(database, name, model, by_relation=as_json)
    if as_json:
        for one in series:
            click.echo(json.dumps(one, default=str))
        return
    for one in series:
        click.echo(f"{one['monitor']} / {one['model']}")
        click.echo(f"  {'date':<10}  {'run':>5}  {'accuracy (all)':<20} {'anchor':<20} "
                   f"{'rotating':<20} provider model")  # fmt: skip
        previous = None
        for n in one["nights"]:
            changed = " *" if previous and n["provider_model"] != previous else ""
            previous = n["provider_model"] or previous
            if n["status"] != "completed":
                click.echo(f"  {n['date']:<10}  {n['run_id'] or '-':>5}  {n['status']}: "
                           f"{(n['error'] or '')[:80]}")  # fmt: skip
                continue
            click.echo(
                f"  {n['date']:<10}  {n['run_id']:>5}  {_accuracy_text(n['metrics']):<20} "
                f"{_accuracy_text(n['anchor']):<20} {_accuracy_text(n['rotating']):<20} "
                f"{n['provider_model']}{changed}"
            )
        for alert in one["alerts"]:
            click.echo(f"  alert {alert['date']} [{alert['severity']}] {alert['message']}")


@cli.group(cls=_Group)
def scheduler() -> None:
    """The nightly scheduler."""


@scheduler.command("start")
@_SCHEDULES_OPTION
@click.pass_obj
def scheduler_start(app: _App, schedules_file: Path | None) -> None:
    """Run the monitors on their schedules, in the foreground, until stopped (Ctrl-C)."""
    import signal  # noqa: PLC0415
    import time  # noqa: PLC0415

    from quizbot.monitoring.scheduler import start, stop  # noqa: PLC0415

    settings = app.settings
    if schedules_file is not None:
        settings = settings.model_copy(update={"schedules_file": schedules_file})
    configure_logging(settings.log_level if settings.log_level != "WARNING" else "INFO")

    def _terminate(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _terminate)
    with _database(app) as database:
        scheduler, jobs = start(database, settings)
        click.echo(f"scheduler running {len(jobs)} monitor job(s); Ctrl-C stops it", err=True)
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            click.echo("stopping (waiting for a running night to finish)", err=True)
        finally:
            stop(scheduler, wait=True)


# ---------------------------------------------------------------------------------- serve


@cli.command("serve")
@click.option(
    "--host", default=None, help="Address to listen on [default: QUIZBOT_HOST or 127.0.0.1]."
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Port to listen on [default: QUIZBOT_PORT or 7860].",
)
@click.pass_obj
def serve_cmd(app: _App, host: str | None, port: int | None) -> None:
    """Start the web app (migrates an empty database first)."""
    settings = app.settings
    configure_logging(settings.log_level if settings.log_level != "WARNING" else "INFO")
    serve(settings, host=host, port=port)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``quizbot`` console script."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="quizbot")


if __name__ == "__main__":  # pragma: no cover
    main()
