"""`quizbot items`: item banks from elsewhere (MultifacetEval, MedQA, EBMQA-style), as named sets.

``import`` validates a whole file before storing anything (exit 65 naming file, line and field;
65 too when the name is taken); ``list`` shows the sets with their source and licence;
``export`` writes a set in quizbot's own item JSONL or as an lm-evaluation-harness task
directory. ``quizbot eval --item-set NAME`` and
``quizbot assignment create NAME --item-set SET`` use a set.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from quizbot.cli.base import App, Group, cli, database_for, emit_json

if TYPE_CHECKING:
    from storage.item_sets import ItemSetInfo

# The formats of quizbot.generate.item_banks.FORMATS, spelled out so `--help` imports nothing
# (tests/cli/test_items.py checks the two agree).
FORMAT_CHOICES = (
    "multifaceteval-mcq",
    "multifaceteval-tfq",
    "multifaceteval-maq",
    "medqa",
    "ebmqa",
    "quizbot",
)


def _summary(info: ItemSetInfo) -> dict[str, Any]:
    return {
        "name": info.name,
        "format": info.format,
        "n_items": info.n_items,
        "source_file": info.source_file,
        "licence": info.licence,
        "imported_at": info.imported_at.isoformat(),
        "kb": info.kb_name,
    }


@cli.group(cls=Group)
def items() -> None:
    """Item banks from elsewhere: import, list and export named item sets."""


@items.command("import")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMAT_CHOICES),
    required=True,
    help="multifaceteval-mcq/-tfq/-maq: MultifacetEval's JSON lists (test, dev, dev_cot); "
    "medqa: MedQA JSONL; ebmqa: quizbot's JSONL for EBMQA-like questions; quizbot: quizbot's "
    "own item JSONL (what `generate --out` writes). See the README.",
)
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--name", required=True, help="Name of the item set (letters, digits, . _ ( ) + -).")
@click.option(
    "--licence", metavar="TEXT", help="Licence and acknowledgement text, stored with the set."
)
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Import the valid rows and write the others (file, line, field, reason) to --report; "
    "without it a file with any bad row is refused whole.",
)
@click.option(
    "--report",
    type=click.Path(dir_okay=False, path_type=Path),
    help="CSV report of the rows --skip-invalid left out (default: NAME.skipped.csv here).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def import_cmd(
    app: App,
    fmt: str,
    path: Path,
    name: str,
    licence: str | None,
    skip_invalid: bool,
    report: Path | None,
    as_json: bool,
) -> None:
    """Import an item bank as item set NAME. A bad file is rejected whole (unless
    --skip-invalid), and nothing is stored."""
    from quizbot.errors import InputError

    if report is not None and not skip_invalid:
        raise InputError("--report is written only with --skip-invalid", field="report")
    from quizbot.analysis.exports import write_atomic
    from quizbot.generate.item_banks import check_set_name, import_item_set, skip_report_csv

    report_path = report or Path(f"{check_set_name(name)}.skipped.csv")
    with database_for(app) as database:
        info, bank = import_item_set(database, path, fmt, name, licence, skip_invalid=skip_invalid)
    if bank.skipped:
        write_atomic(report_path, skip_report_csv(path, bank))
    data = {
        **_summary(info),
        "kinds": {
            kind: sum(1 for i in bank.items if i.kind == kind)
            for kind in sorted({i.kind for i in bank.items})
        },
        "duplicates_skipped": len(bank.duplicates),
        "repeated_options": bank.repeated_options,
        "invalid_rows_skipped": len(bank.skipped),
        "report": str(report_path) if bank.skipped else None,
    }
    if as_json:
        emit_json(data)
        return
    notes = []
    if bank.duplicates:
        notes.append(f"{len(bank.duplicates)} repeated row(s) skipped")
    if bank.repeated_options:
        notes.append(f"{bank.repeated_options} item(s) repeat an option text, keyed alike")
    if bank.skipped:
        notes.append(f"{len(bank.skipped)} invalid row(s) left out, listed in {report_path}")
    extra = f", {'; '.join(notes)}" if notes else ""
    click.echo(f"imported {info.n_items} items as item set {info.name!r} ({fmt}{extra})")


@items.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_obj
def list_cmd(app: App, as_json: bool) -> None:
    """List imported item sets with their source and licence."""
    from quizbot.generate.item_banks import item_sets

    with database_for(app) as database:
        data = [_summary(info) for info in item_sets(database)]
    if as_json:
        emit_json({"item_sets": data})
        return
    if not data:
        click.echo("no item sets yet (`quizbot items import` makes one)")
        return
    for entry in data:
        click.echo(
            f"{entry['name']:<24} {entry['format']:<20} {entry['n_items']:>6} items  "
            f"from {entry['source_file']}, {entry['imported_at'][:16]}"
        )
        if entry["licence"]:
            click.echo(f"    licence: {' '.join(entry['licence'].split())[:100]}")


@items.command("export")
@click.argument("name")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["quizbot", "lm-eval"]),
    default="quizbot",
    show_default=True,
    help="quizbot: quizbot's item JSONL (what `quizbot eval --items` reads); lm-eval: an "
    "lm-evaluation-harness task directory `quizbot_NAME` (README: Interoperability).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    required=True,
    help="File to write (quizbot), or a new directory (lm-eval).",
)
@click.option(
    "--idk", is_flag=True, help='lm-eval: offer "I do not know" as `quizbot eval --idk` does.'
)
@click.pass_obj
def export_cmd(app: App, name: str, fmt: str, out: Path, idk: bool) -> None:
    """Write item set NAME as quizbot's item JSONL or as an lm-evaluation-harness task."""
    from quizbot.generate.item_banks import item_set_items

    with database_for(app) as database:
        info, found = item_set_items(database, name)
    if fmt == "lm-eval":
        from quizbot.interop.lm_eval import export_task

        task = export_task(found, info.name, out, idk=idk)
        click.echo(
            f"wrote task {task} ({len(found)} items) to {out}: "
            f"lm_eval --include_path {out} --tasks {task} ...",
            err=True,
        )
        return
    from quizbot.analysis.exports import write_atomic

    if idk:
        from quizbot.errors import InputError

        raise InputError("--idk is an option of --format lm-eval", field="idk")
    text = "".join(json.dumps(i.to_json(), sort_keys=True) + "\n" for i in found)
    write_atomic(out, text)
    click.echo(f"wrote {len(found)} items to {out}", err=True)
