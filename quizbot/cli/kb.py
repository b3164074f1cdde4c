"""`quizbot kb`: list and import knowledge bases (or prototype files), and correct them:
review files for clinicians, flags from the practice chat, decisions and overrides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from quizbot.cli.base import App, Group, cli, database_for, emit_json, split_list


@cli.group(cls=Group)
def kb() -> None:
    """Knowledge bases: list them and import new ones."""


@kb.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_obj
def kb_list(app: App, as_json: bool) -> None:
    """List knowledge bases: built-in ones and those imported into the database."""
    from quizbot.kb.listing import quick_listing

    # A SQLite database already at the newest schema is read with sqlite3 alone; anything else
    # (PostgreSQL, a file to create or migrate) goes through the database layer as before.
    listing = quick_listing(app.settings.default_sqlite_file)
    if listing is None:
        from quizbot.kb.registry import kb_listing

        with database_for(app) as database:
            listing = kb_listing(database)
    if as_json:
        emit_json({"knowledge_bases": [entry.as_json() for entry in listing]})
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
def kb_import(app: App, fmt: str, path: Path, name: str, as_json: bool) -> None:
    """Import a knowledge base or a prototype file. A bad file is rejected whole."""
    from quizbot.generate.prototypes import read_prototypes
    from quizbot.kb.importers import read_medlama, read_triplets
    from quizbot.kb.registry import check_import_name, import_kb
    from quizbot.names import check_name
    from storage.repo import save_prototype_set

    with database_for(app) as database:
        if fmt == "prototypes":
            check_name(name, field="--name")
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
        emit_json(result)
    else:
        click.echo(message)


@kb.command("review")
@click.argument("kb_name", metavar="KB")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write every negative and distractor of KB to this CSV, for a clinician to mark.",
)
@click.option(
    "--import",
    "marked",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Read a marked CSV and store its verdicts as overrides of KB.",
)
@click.option(
    "--seed", default="0", show_default=True, help="Seed for point and negative selection."
)
@click.option(
    "--points", type=click.IntRange(min=1), help="Number of knowledge points [default: all]."
)
@click.option("--relations", help="Comma-separated relations to use [default: all].")
@click.option("--by", default="cli", show_default=True, help="Who marked the file (for --import).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def kb_review(
    app: App,
    kb_name: str,
    out: Path | None,
    marked: Path | None,
    seed: str,
    points: int | None,
    relations: str | None,
    by: str,
    as_json: bool,
) -> None:
    """Export negatives and distractors for review (--out), or import the verdicts (--import).

    Verdicts: "false" or empty (fine as it is), "true" (it is actually true: never a negative
    or distractor again), "wrong-fact" (the listed true fact is wrong: remove it). A file with a
    bad row is refused whole, naming file, line and field; importing it again changes nothing.
    """
    from quizbot.errors import InputError
    from quizbot.generate.review import import_review, review_rows, write_review
    from quizbot.kb.registry import get_kb

    if (out is None) == (marked is None):
        raise InputError("give exactly one of --out FILE.csv and --import FILE.csv")
    with database_for(app) as database:
        data, _kb_id = get_kb(database, kb_name)
        if out is not None:
            rows = review_rows(data, seed=seed, points=points, relations=split_list(relations))
            write_review(rows, out)
            negatives = sum(r.kind == "negative" for r in rows)
            result: dict[str, Any] = {
                "kb": data.name,
                "out": str(out),
                "negatives": negatives,
                "distractors": len(rows) - negatives,
            }
            message = (
                f"wrote {len(rows):,} rows to {out}: {negatives:,} negatives and "
                f"{len(rows) - negatives:,} distractors; fill the verdict column, then "
                f"`quizbot kb review {data.name} --import {out}`"
            )
        else:
            assert marked is not None
            summary = import_review(database, marked, data, by=by)
            result = {"kb": data.name, "file": str(marked), **summary.as_json()}
            message = (
                f"read {summary.rows:,} rows: {summary.true:,} true, {summary.wrong_fact:,} "
                f"wrong-fact, {summary.reviewed_false:,} reviewed false, {summary.unchanged:,} "
                f"not marked; {summary.stored:,} new override(s) stored"
            )
    if as_json:
        emit_json(result)
    else:
        click.echo(message)


@kb.command("flags")
@click.option("--json", "as_json", is_flag=True, help="Print the flags as JSON.")
@click.pass_obj
def kb_flags(app: App, as_json: bool) -> None:
    """List open flags on questions, one item at a time with its key and fact."""
    from quizbot.kb.review import review_queue

    with database_for(app) as database:
        queue = review_queue(database)
    if as_json:
        emit_json({"items": [entry.as_json() for entry in queue]})
        return
    if not queue:
        click.echo("no open flags")
        return
    for entry in queue:
        ids = ", ".join(str(f.id) for f in entry.flags)
        click.echo(f"flag(s) {ids} on {entry.item_id} ({entry.kb}, {entry.kind})")
        click.echo(f"    question: {' '.join(entry.text.split())}")
        click.echo(f"    key:      {entry.answer_key}")
        fact = f"{entry.head} | {entry.relation} | {entry.tail or '-'}"
        if entry.true_tail:
            fact += f" (replaces the true tail {entry.true_tail})"
        click.echo(f"    fact:     {fact}")
        for f in entry.flags:
            click.echo(f"    - {f.reason}" + (f": {f.comment}" if f.comment else ""))


@kb.command("decide")
@click.argument("flag_id", type=int)
@click.option(
    "--action",
    type=click.Choice(["retire", "true", "false", "dismiss"]),
    required=True,
    help="retire: never ask the item again; true: its false option is true (never a negative); "
    "false: its fact is wrong (remove it); dismiss: nothing wrong.",
)
@click.option("--tail", help="For a multiple-choice item: which option the decision is about.")
@click.option("--by", default="cli", show_default=True, help="Who decides.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def kb_decide(
    app: App, flag_id: int, action: str, tail: str | None, by: str, as_json: bool
) -> None:
    """Decide about a flagged item; every open flag on that item is closed."""
    from quizbot.kb.review import decide

    with database_for(app) as database:
        decided = decide(database, flag_id, action, by=by, tail=tail)
    result = {
        "flag": flag_id,
        "action": action,
        "closed_flags": [f.id for f in decided.flags],
        "new_overrides": decided.new_overrides,
        "retired": decided.retired,
    }
    if as_json:
        emit_json(result)
        return
    click.echo(
        f"{action}: closed {len(decided.flags)} flag(s); {decided.new_overrides} new "
        f"override(s); item {'retired' if decided.retired else 'not retired'}"
    )


@kb.command("overrides")
@click.argument("kb_name", metavar="KB")
@click.option("--json", "as_json", is_flag=True, help="Print the overrides as JSON.")
@click.pass_obj
def kb_overrides(app: App, kb_name: str, as_json: bool) -> None:
    """List the corrections stored for knowledge base KB."""
    from storage.review import list_overrides

    with database_for(app) as database:
        found = list_overrides(database, kb_name)
    if as_json:
        emit_json(
            {
                "kb": kb_name,
                "overrides": [
                    {
                        "id": o.id,
                        "head": o.head,
                        "relation": o.relation,
                        "tail": o.tail,
                        "kind": o.kind,
                        "note": o.note,
                        "source": o.source,
                        "created_by": o.created_by,
                        "created_at": o.created_at.isoformat(),
                    }
                    for o in found
                ],
            }
        )
        return
    if not found:
        click.echo(f"no overrides for {kb_name!r}")
        return
    for o in found:
        click.echo(
            f"{o.kind:<18} {o.head} | {o.relation} | {o.tail}   ({o.source}, {o.created_by})"
        )
