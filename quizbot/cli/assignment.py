"""`quizbot assignment`: one fixed item set for students and models, and its results.

Exit codes: 0 done; 65 bad input (a name already taken, a bad items file: file, line and field
named); 66 no such assignment or knowledge base; 69 the database is unavailable.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from quizbot.cli.base import App, Group, cli, database_for, emit_json, split_list

if TYPE_CHECKING:
    from datetime import datetime

    from quizbot.domain import Assignment


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _summary(assignment: Assignment) -> dict[str, Any]:
    return {
        "name": assignment.name,
        "kb": assignment.kb_name,
        "mode": assignment.mode,
        "cohort": assignment.cohort,
        "opens_at": _iso(assignment.opens_at),
        "closes_at": _iso(assignment.closes_at),
        "two_pass": bool(assignment.config.get("two_pass", False)),
        "n_items": len(assignment.item_ids),
        "config": assignment.config,
        "created_at": assignment.created_at.isoformat(),
    }


def _line(data: dict[str, Any]) -> str:
    cohort = f", cohort {data['cohort']}" if data["cohort"] else ""
    two = ", two-pass" if data["two_pass"] else ""
    window = []
    if data["opens_at"]:
        window.append(f"opens {data['opens_at']}")
    if data["closes_at"]:
        window.append(f"closes {data['closes_at']}")
    shown = f"; {', '.join(window)}" if window else ""
    return (
        f"{data['name']}: {data['n_items']} items from {data['kb']} "
        f"({data['mode']}{two}{cohort}{shown})"
    )


@cli.group(cls=Group)
def assignment() -> None:
    """Assignments: the same items for students and models."""


@assignment.command("create")
@click.argument("name")
@click.option("--kb", "kb_name", help="Knowledge base name (see `quizbot kb list`).")
@click.option(
    "--item-set",
    "item_set",
    metavar="SET",
    help="Use every item of an imported item set instead (`quizbot items list`).",
)
@click.option("--points", type=click.IntRange(min=1), help="Number of facts [default: all].")
@click.option(
    "--seed",
    help="Seed for facts, negatives, variants [default: 0; an exam: a secret random seed, "
    "stored with it and never shown].",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["statements", "choice", "mixed", "recall"]),
    default="statements",
    show_default=True,
    help="True/false statements, multiple choice, both (alternating facts), or open recall "
    "(one question per disease and aspect; --points is the number of questions).",
)
@click.option("--relations", help="Comma-separated relations to use [default: all].")
@click.option(
    "--all-variants",
    is_flag=True,
    help="Every variant of each fact and of its negative (joint accuracy needs them all).",
)
@click.option(
    "--mode",
    type=click.Choice(["exam", "practice"]),
    help="exam: no feedback until every question is answered "
    "[default: practice; exam with --two-pass].",
)
@click.option("--cohort", help="The cohort the assignment is for.")
@click.option(
    "--items",
    "items_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Use these items (quizbot item JSONL) instead of generating them.",
)
@click.option("--opens", metavar="ISO", help="Students may start it from then (no zone: UTC).")
@click.option("--closes", metavar="ISO", help="No answers are taken from then on (no zone: UTC).")
@click.option(
    "--two-pass",
    is_flag=True,
    help="EBMQA: pass 1 allows 'I do not know', pass 2 asks for a guess on those (exam only).",
)
@click.option(
    "--no-idk",
    "no_idk",
    is_flag=True,
    help='Offer no "I do not know" (students and models alike) [default: offered].',
)
@click.option(
    "--shots",
    type=click.IntRange(min=0, max=20),
    default=0,
    show_default=True,
    help="Worked examples per question for models (students get none; the results say so).",
)
@click.option(
    "--judge",
    metavar="MODEL",
    help="Open recall: a judge model for entries the KB cannot verify (used by `quizbot eval "
    "--assignment` and by the results, for students and models alike).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the assignment as JSON.")
@click.pass_obj
def create_cmd(
    app: App,
    name: str,
    kb_name: str | None,
    item_set: str | None,
    points: int | None,
    seed: str | None,
    fmt: str,
    relations: str | None,
    all_variants: bool,
    mode: str | None,
    cohort: str | None,
    items_file: Path | None,
    opens: str | None,
    closes: str | None,
    two_pass: bool,
    no_idk: bool,
    shots: int,
    judge: str | None,
    as_json: bool,
) -> None:
    """Make assignment NAME once: its items and its protocol (answers offered, instruction,
    worked examples, passes) are fixed from now on."""
    from quizbot.domain import AssignmentMode
    from quizbot.generate.assignments import AssignmentRequest, make_assignment, parse_moment

    if (kb_name is None) == (item_set is None):
        from quizbot.errors import InputError

        raise InputError("give exactly one of --kb NAME and --item-set SET")
    request = AssignmentRequest(
        name=name,
        kb=kb_name or "",
        item_set=item_set,
        points=points,
        seed=seed,
        format="choice"
        if fmt == "choice"
        else "mixed"
        if fmt == "mixed"
        else "recall"
        if fmt == "recall"
        else "statements",
        relations=split_list(relations),
        all_variants=all_variants,
        mode=AssignmentMode(mode or ("exam" if two_pass else "practice")),
        cohort=cohort,
        items_file=items_file,
        opens_at=None if opens is None else parse_moment(opens, "--opens"),
        closes_at=None if closes is None else parse_moment(closes, "--closes"),
        two_pass=two_pass,
        idk=not no_idk,
        shots=shots,
        judge=judge,
    )
    with database_for(app) as database:
        made = make_assignment(database, request, app.settings)
    data = _summary(made)
    if as_json:
        emit_json(data)
    else:
        click.echo(f"created {_line(data)}")


@assignment.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_obj
def list_cmd(app: App, as_json: bool) -> None:
    """List assignments, oldest first."""
    from storage.assignments import list_assignments

    with database_for(app) as database:
        data = [_summary(a) for a in list_assignments(database)]
    if as_json:
        emit_json({"assignments": data})
    elif not data:
        click.echo("no assignments yet (`quizbot assignment create` makes one)")
    else:
        for entry in data:
            click.echo(_line(entry))


@assignment.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the assignment as JSON.")
@click.pass_obj
def show_cmd(app: App, name: str, as_json: bool) -> None:
    """One assignment: its settings and item ids (never the answer keys, nor an exam's secret
    seed)."""
    from storage.assignments import get_assignment

    with database_for(app) as database:
        found = get_assignment(database, name)
    data = {**_summary(found), "item_ids": list(found.item_ids)}
    if as_json:
        emit_json(data)
    else:
        click.echo(_line(data))
        for key, value in found.config.items():
            if key == "seed_secret":
                continue
            secret = key == "seed" and found.config.get("seed_secret")
            shown = (
                "secret (an exam's: stored with it, never shown or exported)" if secret else value
            )
            click.echo(f"  {key}: {shown}")


@assignment.command("export")
@click.argument("name")
@click.option(
    "--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="Output JSONL."
)
@click.pass_obj
def export_cmd(app: App, name: str, out: Path) -> None:
    """Write the assignment's items, with their keys, as JSONL (for instructors)."""
    import json

    from quizbot.errors import InputError
    from quizbot.generate.assignments import assignment_items

    with database_for(app) as database:
        _, items = assignment_items(database, name)
    text = "".join(json.dumps(i.to_json(), sort_keys=True) + "\n" for i in items)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write ({exc.strerror})", path=str(out)) from None
    click.echo(f"wrote {len(items)} items to {out}", err=True)


@assignment.command("results")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option(
    "--export-csv",
    "csv_out",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="Also write respondents, tests and every answer as CSV.",
)
@click.option(
    "--export-jsonl",
    "jsonl_out",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="Also write respondents, tests and every answer as JSONL.",
)
@click.pass_obj
def results_cmd(
    app: App, name: str, as_json: bool, csv_out: Path | None, jsonl_out: Path | None
) -> None:
    """Every student and every model run made for the assignment, with 95% intervals."""
    from quizbot.analysis.assignments import assignment_results

    targets = [out for out in (csv_out, jsonl_out) if out is not None]
    if targets:
        from quizbot.analysis.exports import check_target

        for out in targets:
            check_target(out)  # before anything is written
    with database_for(app) as database:
        _judge_students(app, database, name)
        results = assignment_results(database, name)
        if targets:
            from quizbot.analysis.answers import assignment_answers
            from quizbot.analysis.exports import result_rows, to_csv, to_jsonl, write_atomic

            rows = result_rows(results, assignment_answers(database, name))
            for target, render in ((csv_out, to_csv), (jsonl_out, to_jsonl)):
                if target is not None:
                    write_atomic(target, render(rows))
                    click.echo(f"wrote {len(rows)} rows to {target}", err=True)
    if as_json:
        emit_json(results)
        return
    click.echo(_results_text(results))


@assignment.command("retire")
@click.argument("name")
@click.argument("item_id")
@click.option("--reason", default="", help="Why (shown with the results).")
@click.option("--by", "by", default="cli", show_default=True, help="Who retires it.")
@click.option("--restore", is_flag=True, help="Count the item in the scoring again.")
@click.pass_obj
def retire_cmd(app: App, name: str, item_id: str, reason: str, by: str, restore: bool) -> None:
    """Leave ITEM_ID out of assignment NAME's scoring (its answers are kept), or --restore it."""
    from storage.assignments import get_assignment
    from storage.review import restore_to_assignment, retire_from_assignment

    with database_for(app) as database:
        found = get_assignment(database, name)
        if restore:
            done = restore_to_assignment(database, found.id, item_id)
            click.echo(
                f"item {item_id} counts again in {found.name}'s results"
                if done
                else f"item {item_id} was not retired from {found.name}"
            )
            return
        retire_from_assignment(database, found.id, item_id, reason=reason, by=by)
    click.echo(f"item {item_id} retired from {found.name}'s scoring; the results leave it out")


def _pct(figure: dict[str, Any] | None) -> str:
    if not figure or figure.get("value") is None:
        return "-"
    low, high = figure.get("low"), figure.get("high")
    interval = "" if low is None or high is None else f" [{100 * low:.0f}-{100 * high:.0f}]"
    return f"{100 * figure['value']:.0f}%{interval}"


def _number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _interval(pair: list[float] | None, digits: int = 2) -> str:
    return "" if not pair else f" [{pair[0]:.{digits}f}, {pair[1]:.{digits}f}]"


def _results_text(results: dict[str, Any]) -> str:
    """The readable results: headline, protocol, respondents, tests, item analysis, notes."""
    lines = [f"{results['assignment']}: {results['n_items']} items ({results['mode']})"]
    lines += [f"  {h}" for h in results.get("headline", [])]
    if results.get("protocol"):
        lines.append(f"  protocol: {results['protocol']['summary']}")
    for r in results["respondents"]:
        extra = ""
        if r["kind"] == "model" and r.get("percentile") is not None:
            standing = (r.get("percentile_detail") or {}).get("standing") or {}
            extra = f", percentile {r['percentile']:.0f}"
            extra += _interval(standing.get("percentile_interval"), 0)
        if r.get("recall"):
            f1 = r["recall"]["overall"]["f1"]["mean"]
            extra += ", mean F1 -" if f1 is None else f", mean F1 {f1:.3f}"
        mark = "" if (r.get("protocol") or {}).get("matches", True) else " (other protocol)"
        lines.append(
            f"  {r['kind']:7} {r['name']}: accuracy {_pct(r['metrics']['accuracy'])} "
            f"on {r['n_items']} items{extra}{mark}"
        )
        for test in r.get("tests", []):
            p = test.get("p_value")
            lines.append(
                f"    {test.get('name', test['test'])} vs {test['a']}"
                f"{' on ' + test['key'] if test.get('key') else ''}: {test.get('direction', '')}"
                + ("" if p is None else f", p = {p:.3g} (adjusted {test['p_adjusted']:.3g})")
                + (f" ({test['reason']})" if test.get("reason") else "")
            )
    for run in results.get("other_protocol_runs", []):
        lines.append(
            f"  not compared: {run['name']} (run {run['run_id']}): {'; '.join(run['why'])}"
        )
    analysis = results.get("item_analysis") or {}
    if analysis.get("items"):
        kr20 = analysis["kr20"]
        lines.append(
            f"  item analysis over {analysis['n_respondents']} respondents; KR-20 "
            f"{_number(kr20['kr20'])}{_interval(kr20['interval'])}"
        )
        for row in analysis["items"]:
            flag = f"  << {row['flag']}" if row.get("flag") else ""
            retired = " (retired)" if row.get("retired") else ""
            lines.append(
                f"    {row['position']:>3} {row['id']}{retired}: difficulty "
                f"{_number(row['difficulty'])}{_interval(row['difficulty_interval'])}, "
                f"discrimination {_number(row['discrimination'])}"
                f"{_interval(row['discrimination_interval'])}, "
                f"idk {_number(row['idk_share'])}{flag}"
            )
    elif analysis.get("note"):
        lines.append(f"  {analysis['note']}")
    lines += [f"  note: {note}" for note in results["notes"]]
    return "\n".join(lines)


def _answers_text(data: dict[str, Any]) -> str:
    """The readable form of ``quizbot answers``: one block per item, one line per answer."""
    lines = [
        f"assignment {data['assignment']}" if "assignment" in data else f"run {data['run_id']}"
    ]
    for item in data["items"]:
        lines.append(f"\n{item['id']} ({item['kind']}, key {item['key']})")
        lines.append(f"  {item['text']}")
        if not item["answers"]:
            lines.append("  (no answers)")
        for a in item["answers"]:
            if a["kind"] == "student":
                feedback = "after feedback on this fact" if a["feedback_shown_before"] else "fresh"
                taken = "-" if a["time_taken_ms"] is None else f"{a['time_taken_ms']:.0f} ms"
                lines.append(
                    f"  student {a['respondent']}: {a['answer']!r} -> {a['parsed_answer']} "
                    f"[{a['outcome']}] time {taken}, {feedback}"
                )
            else:
                lines.append(
                    f"  model   {a['respondent']} (run {a['run_id']}): {a['raw_text']!r} -> "
                    f"{a['parsed_answer']} [{a['outcome']}] because {a['why']}"
                )
                prompt = (a["prompt"] or "(no prompt stored)").replace("\n", "\n      ")
                lines.append(f"    prompt: {prompt}")
    return "\n".join(lines)


@cli.command("answers")
@click.option("--assignment", "assignment_name", metavar="NAME", help="The assignment's answers.")
@click.option("--run", "run_id", type=int, metavar="RUN_ID", help="Or one run's answers.")
@click.option("--item", "item_id", metavar="ITEM_ID", help="Only this item.")
@click.option("--json", "as_json", is_flag=True, help="Print the answers as one JSON object.")
@click.pass_obj
def answers_cmd(
    app: App, assignment_name: str | None, run_id: int | None, item_id: str | None, as_json: bool
) -> None:
    """Every answer, item by item: students' text, time and feedback; models' prompt and reply."""
    from quizbot.errors import InputError

    if (assignment_name is None) == (run_id is None):
        raise InputError(
            "give exactly one of --assignment and --run",
            hint="e.g. `quizbot answers --assignment wk` or `quizbot answers --run 3`",
        )
    from quizbot.analysis.answers import assignment_answers, run_answers

    with database_for(app) as database:
        if assignment_name is not None:
            found = assignment_answers(database, assignment_name, item_id=item_id)
        else:
            assert run_id is not None
            found = run_answers(database, run_id, item_id=item_id)
    data = found.as_json()
    if as_json:
        emit_json(data)
    else:
        click.echo(_answers_text(data))


def _judge_students(app: App, database: Any, name: str) -> None:
    """An open recall assignment with a judge: put the students' entries the KB cannot verify to
    it first (once each), so the results grade students as its model runs were graded."""
    import asyncio

    from quizbot.evaluation.recall_judge import judge_assignment
    from quizbot.progress import progress_bar

    with progress_bar("judging students' entries", None) as advance:
        asked = asyncio.run(judge_assignment(database, name, app.settings, progress=advance))
    if asked:
        click.echo(f"judged {asked} new entr{'y' if asked == 1 else 'ies'}", err=True)
