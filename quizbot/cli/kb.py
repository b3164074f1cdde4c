"""`quizbot kb`: list knowledge bases and import new ones (or prototype files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from quizbot.cli.base import App, Group, cli, database_for, emit_json


@cli.group(cls=Group)
def kb() -> None:
    """Knowledge bases: list them and import new ones."""


@kb.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_obj
def kb_list(app: App, as_json: bool) -> None:
    """List knowledge bases: built-in ones and those imported into the database."""
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
    from storage.repo import save_prototype_set

    with database_for(app) as database:
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
        emit_json(result)
    else:
        click.echo(message)
