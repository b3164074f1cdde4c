"""`quizbot generate`: questions from a knowledge base, written as JSONL and stored."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from quizbot.cli.base import App, cli, database_for, difficulty_option, emit_json, split_list


@contextmanager
def _collector_off() -> Iterator[None]:
    """The cyclic garbage collector off for a generation (on again afterwards, if it was on).

    Loading a KB, its indexes and the negatives, then building hundreds of thousands of items
    made the collector walk them again and again: 0.3-0.5 s of the 2.5-3 s of CPU of all of
    MedLAMA (docs/performance.md). What a generation builds holds no reference cycles worth
    collecting (the peak memory of all of MedLAMA is the same with it off), except a
    rephrasing model's client: the command turns it on again for those.

    At the end what was built is frozen (``gc.freeze``): the interpreter's last collection at
    exit walks every object not frozen, and without this the KB and the items made a small
    generation about 0.15 s slower than before the collector was turned off (bench_cli).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        (gc.enable if enabled else gc.disable)()


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
@difficulty_option
@click.option(
    "--rephrase", metavar="MODEL", help="Rephrase statements with this model (validated)."
)
@click.option(
    "--judge",
    metavar="MODEL",
    help="With --rephrase: a model that may confirm a rephrasing the rules reject for claim "
    "strength, an antonym, a predicate or an added claim (never for negation, an entity or roles).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["statements", "choice", "multi", "numeric", "recall"]),
    default="statements",
    show_default=True,
    help="True/false statements, multiple-choice questions, multi-answer questions (EBMQA: up to "
    "5 right options of 8, fractional credit), numeric range questions (EBMQA; HPO "
    "phenotype frequencies), or open recall questions (one per disease x aspect; --points then "
    "counts questions).",
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
@_collector_off()
def generate_cmd(
    app: App,
    kb_name: str,
    relations: str | None,
    points: int | None,
    seed: str,
    prototypes: str | None,
    difficulty: str,
    rephrase: str | None,
    judge: str | None,
    fmt: str,
    points_file: Path | None,
    out: Path,
    no_store: bool,
    as_json: bool,
) -> None:
    """Generate questions from a knowledge base and write them as JSONL."""
    from quizbot.generate.service import GenerateRequest, prepare, write
    from quizbot.progress import progress_bar

    request = GenerateRequest(
        kb=kb_name,
        relations=split_list(relations),
        points=points,
        seed=seed,
        prototypes=prototypes,
        format="choice"
        if fmt == "choice"
        else "multi"
        if fmt == "multi"
        else "numeric"
        if fmt == "numeric"
        else "recall"
        if fmt == "recall"
        else "statements",
        points_file=points_file,
        store=not no_store,
        rephrase=rephrase,
        judge=judge,
        difficulty="distant" if difficulty == "distant" else "plausible",
    )
    with database_for(app) as database:
        generation = prepare(database, request, app.settings)
        if generation.rephraser is not None:
            # A model's client (retries, async tasks, errors) leaves cycles behind call after
            # call: collect them, leaving what is held now (the KB, its indexes) out of the
            # scans. This process ends with the command.
            gc.freeze()
            gc.enable()
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
        "questions_skipped": dict(generation.questions_skipped),
        "notes": generation.notes,
        "rephrase": generation.rephraser.stats.summary() if generation.rephraser else None,
    }
    if as_json:
        emit_json(summary)
        return
    click.echo(
        f"wrote {n:,} items from {len(generation.facts):,} knowledge points "
        f"of {generation.kb.name!r} to {out}"
    )
    if generation.skipped_no_negative:
        click.echo(
            f"  {generation.skipped_no_negative} points had no safe negative "
            "(left out: true and false statements stay equal in number)"
        )
    for note in generation.notes:
        click.echo(f"  {note}")
    if generation.questions_skipped:
        reasons = "; ".join(f"{r} {n}" for r, n in generation.questions_skipped.most_common())
        click.echo(f"  {generation.questions_skipped.total()} questions not made: {reasons}")
    if generation.rephraser is not None:
        click.echo(f"  {generation.rephraser.stats.summary()}")
    if generation.kb.license:
        click.echo(f"  {generation.kb.license}")
