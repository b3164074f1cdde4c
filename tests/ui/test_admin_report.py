"""The Admin tab's run report (quizbot/ui/admin_report.py, ``render_report``) shows what the command
line and ``run_report`` give: runs made through the real evaluation entry point
(quizbot/evaluation/service.py) with scripted models, stored in the test database (a SQLite file
and a PostgreSQL database: the ``db`` fixture of tests/conftest.py runs each test on both).
Every figure on screen is read back out of the rendered Markdown tables and compared with
``run_report``'s value (3 decimals, so within 0.0005), never with a number written here; the
main figures (accuracy and answer rate per option order, the run's metrics, per relation) are
also recomputed here from the stored responses (counted by hand, Wilson intervals from scipy),
so a report that read the database wrongly on one backend would not agree with itself.
"""

from __future__ import annotations

import asyncio
import re
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from quizbot.analysis.reporting import run_report
from quizbot.evaluation.runner import execute
from quizbot.evaluation.service import EvalSpec, evaluate, start_repeats
from quizbot.generate.service import GenerateRequest, prepare
from quizbot.items import ChoiceItem, RecallItem, StatementItem
from quizbot.providers import Request
from quizbot.providers.scripted import ScriptedProvider
from quizbot.ui.admin_report import render_report
from storage import Database
from storage.repo import get_run, list_responses
from tests.helpers.oracles import wilson

Table = list[list[str]]
_FIGURE = re.compile(r"^(-?\d+\.\d{3})(?: \[(-?\d+\.\d{3}), (-?\d+\.\d{3})\])?$")
_MEAN_SD = re.compile(r"^(-?\d+\.\d{3})(?: ± (\d+\.\d{3}))?$")
TOL = 0.0005 + 1e-9  # a figure shown to 3 decimals is within half a unit of the last digit


# --- runs made through the one evaluation entry point --------------------------------------


def _pick(text: str, *choices: str) -> str:
    """A scripted answer that depends on the question only (deterministic, varied)."""
    return choices[zlib.crc32(text.encode()) % len(choices)]


def _choice_items(db: Database, points: int = 8) -> list[ChoiceItem]:
    made = prepare(db, GenerateRequest(kb="clinical-core", points=points, seed=3, format="choice"))
    return [item for item in made.items() if isinstance(item, ChoiceItem)]


def _statements(db: Database, points: int = 4) -> list[StatementItem]:
    made = prepare(db, GenerateRequest(kb="clinical-core", points=points, seed=3))
    return [item for item in made.items() if isinstance(item, StatementItem)]


def _run(db: Database, spec: EvalSpec, items: Sequence[Any], answer: Any) -> int:
    provider = ScriptedProvider(answer)
    summary = asyncio.run(evaluate(db, spec, items, provider_factory=lambda *_: provider))
    return summary.run_id


def _permutation_run(db: Database) -> int:
    # "A" most of the time (a position bias, so accuracy differs between orders), sometimes
    # another letter, sometimes "I do not know" (abstained when offered).
    def answer(request: Request) -> str:
        return _pick(request.text, "A", "A", "B", "C", "I do not know")

    spec = EvalSpec(model="scripted/model", permutations=3, idk_both=True, name="orders")
    return _run(db, spec, _choice_items(db), answer)


# --- the oracle: figures counted from the stored responses ---------------------------------


def _counted(outcomes: Sequence[str]) -> dict[str, Any]:
    """n, accuracy, answer rate and accuracy on answered of these outcomes, failed calls left
    out (as the metrics define them: abstained is not answered, unparsed is), with Wilson
    intervals from scipy."""
    kept = [o for o in outcomes if o != "error"]
    n = len(kept)
    correct = kept.count("correct")
    answered = n - kept.count("abstained")

    def share(k: int, of: int) -> tuple[float | None, tuple[float, float] | None]:
        return (k / of, wilson(k, of)) if of else (None, None)

    return {
        "n": n,
        "average_accuracy": share(correct, n),
        "answer_rate": share(answered, n),
        "accuracy_answered": share(correct, answered),
    }


def _stored_by_order(db: Database, run_id: int) -> dict[tuple[bool, int], list[str]]:
    """The run's stored outcomes by (IDK offered, option order), read from the responses and
    the variants the run recorded in its configuration."""
    variants = get_run(db, run_id).config["permutations"]["variants"]
    by_order: dict[tuple[bool, int], list[str]] = {}
    for response in list_responses(db, run_id=run_id):
        variant = variants[response.item_id]
        by_order.setdefault((bool(variant["idk"]), int(variant["index"])), []).append(
            response.outcome
        )
    return by_order


# --- reading the rendered Markdown back ------------------------------------------------------


def _cells(line: str) -> list[str]:
    parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [re.sub(r"\\(.)", r"\1", part.strip()) for part in parts]


def sections(markdown: str) -> dict[str, list[Any]]:
    """Heading (h4, unescaped) -> its tables (rows of cells, header row first) and note lines."""
    out: dict[str, list[Any]] = {}
    current: list[Any] = []
    table: Table | None = None
    for line in markdown.splitlines():
        if line.startswith("#### "):
            current = out.setdefault(re.sub(r"\\(.)", r"\1", line[5:]), [])
            table = None
        elif line.startswith("|"):
            if table is None:
                table = []
                current.append(table)
            if not re.fullmatch(r"\|(:?-+:?\|)+", line):
                table.append(_cells(line))
        else:
            table = None
            if line.strip():
                current.append(re.sub(r"\\(.)", r"\1", line))
    return out


def section(markdown: str, prefix: str) -> list[Any]:
    found = [body for title, body in sections(markdown).items() if title.startswith(prefix)]
    assert len(found) == 1, (prefix, list(sections(markdown)))
    return found[0]


def rows_by_first(table: Table) -> dict[str, list[str]]:
    return {row[0]: row for row in table[1:]}


def assert_figure(
    cell: str, value: float | None, interval: Sequence[float | None] | None = None
) -> None:
    """``cell`` shows ``value`` (and its interval when it has one) to three decimals."""
    if value is None:
        assert cell == "-", cell
        return
    match = _FIGURE.match(cell)
    assert match, cell
    assert abs(float(match.group(1)) - value) <= TOL, (cell, value)
    if interval is None or None in interval:
        assert match.group(2) is None, cell
        return
    assert match.group(2) is not None, (cell, interval)
    assert abs(float(match.group(2)) - interval[0]) <= TOL, (cell, interval)  # type: ignore[operator]
    assert abs(float(match.group(3)) - interval[1]) <= TOL, (cell, interval)  # type: ignore[operator]


def numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text)]


# --- the sections ------------------------------------------------------------------------------


def test_a_permutation_run_shows_accuracy_per_order_spread_consistency_and_idk_effect(
    db: Database,
) -> None:
    run_id = _permutation_run(db)
    report = run_report(db, run_id)
    stability = report["stability"]
    assert set(stability["conditions"]) == {"with_idk", "without_idk"}
    shown = render_report(report)
    assert section(shown, f"Stability over option orders (k = {stability['k']})")
    for condition, part in stability["conditions"].items():
        name = 'with "I do not know"' if condition == "with_idk" else 'without "I do not know"'
        body = section(
            shown, f"Option orders, {name}: {part['n_items']} items, {part['n_answers']} answers"
        )
        orders, summary = body[0], body[1]
        assert orders[0] == ["order", "n", "accuracy [95% CI]", "answer rate [95% CI]"]
        assert len(orders) - 1 == len(part["by_order"]) == stability["k"]
        for shown_row, row in zip(orders[1:], part["by_order"], strict=True):
            assert shown_row[0].split()[0] == str(row["index"])
            assert int(shown_row[1]) == row["n"]
            assert_figure(shown_row[2], row["accuracy"], row["accuracy_interval"])
            assert_figure(shown_row[3], row["answer_rate"], row["answer_rate_interval"])
        figures = rows_by_first(summary)
        spread, same = part["spread"], part["consistency"]
        assert_figure(figures["accuracy, all orders"][1], part["accuracy"])
        assert_figure(figures["lowest order's accuracy"][1], spread["min"])
        assert_figure(figures["highest order's accuracy"][1], spread["max"])
        assert_figure(figures["range (highest − lowest)"][1], spread["range"])
        assert_figure(figures["SD over orders"][1], spread["sd"])
        label = f"same answer in every order ({same['k']} of {same['n']} items)"
        assert_figure(figures[label][1], same["value"], same["interval"])
        # The same rows, against the stored responses counted here.
        stored = _stored_by_order(db, run_id)
        idk = condition == "with_idk"
        assert sorted(i for offered, i in stored if offered == idk) == list(range(stability["k"]))
        for shown_row in orders[1:]:
            counted = _counted(stored[(idk, int(shown_row[0].split()[0]))])
            assert int(shown_row[1]) == counted["n"]
            assert_figure(shown_row[2], *counted["average_accuracy"])
            assert_figure(shown_row[3], *counted["answer_rate"])
        outcomes = [o for (offered, _), got in stored.items() if offered == idk for o in got]
        assert_figure(figures["accuracy, all orders"][1], _counted(outcomes)["average_accuracy"][0])
    effect = stability["idk_effect"]
    assert effect["answer_rate_change"] != 0  # the scripted model abstains when it may
    table = rows_by_first(section(shown, 'Effect of offering "I do not know"')[0])
    for key, label in (("answer_rate", "answer rate"), ("accuracy", "accuracy")):
        assert_figure(table[label][1], effect[f"{key}_with_idk"])
        assert_figure(table[label][2], effect[f"{key}_without_idk"])
        assert_figure(table[label][3], effect[f"{key}_change"])


def test_sub_labels_show_each_group_with_gap_spearman_and_guessing_baselines(
    db: Database,
) -> None:
    report = run_report(db, _permutation_run(db))
    sub = report["sub_labels"]
    shown = render_report(report)
    guessing = rows_by_first(section(shown, "Sub-labels: guessing baselines")[0])["whole run"]
    assert_figure(guessing[1], sub["overall"]["average_accuracy"])
    assert_figure(guessing[2], sub["overall"]["random_guess"])
    assert_figure(guessing[3], sub["overall"]["majority_guess"])
    titles = sections(shown)
    tabled = 0
    for name, part in sub["by_label"].items():
        title = f"Sub-label: {name.replace('_', ' ')}"
        if len(part["groups"]) < 2:
            assert title not in titles  # nothing to compare: not shown, as on the command line
            continue
        body = titles[title]
        note = body[-1]
        if part["gap"]:
            gap = part["gap"]
            assert f"({gap['best']} − {gap['worst']})" in note
            assert abs(numbers(note.split("(")[0])[0] - gap["value"]) <= TOL
        if part["spearman"]:
            rho = part["spearman"]
            shown_rho, shown_p = numbers(note.split("ρ = ")[1])[:2]
            assert abs(shown_rho - rho["rho"]) <= TOL
            assert abs(shown_p - rho["p_value"]) <= max(TOL, rho["p_value"] * 0.05)
            assert f"({rho['n_groups']} groups)" in note
        else:
            assert "Spearman correlation: -" in note
        if name == "relation":  # its figures are in "By relation"
            assert "By relation" in titles
            continue
        tabled += 1
        rows = rows_by_first(body[0])
        assert set(rows) == set(part["groups"])
        for value, group in part["groups"].items():
            row = rows[value]
            assert int(row[1]) == group["n"]
            assert_figure(row[2], group["average_accuracy"], group["average_accuracy_interval"])
            assert_figure(row[3], group["answer_rate"], group["answer_rate_interval"])
            assert_figure(row[4], group["accuracy_answered"])
            assert_figure(row[5], group["random_guess"])
            assert_figure(row[6], group["majority_guess"])
    assert tabled >= 2  # e.g. organ system and length tertiles: the test compares something


def test_the_metrics_and_the_breakdowns_by_relation_and_transform(db: Database) -> None:
    items = _statements(db)
    run_id = _run(db, EvalSpec(model="scripted/model"), items,
                  lambda r: _pick(r.text, "True", "False", "I do not know"))  # fmt: skip
    report = run_report(db, run_id)
    shown = render_report(report)
    metrics = rows_by_first(section(shown, "Metrics")[0])
    assert len(metrics) == len(report["metrics"])
    for (key, value), row in zip(report["metrics"].items(), metrics.values(), strict=True):
        assert_figure(row[1], value, report["intervals"].get(key))
    breakdown = ("average_accuracy", "answer_rate", "accuracy_answered")
    for key, title in (("by_relation", "By relation"), ("by_transform", "By transform")):
        rows = rows_by_first(section(shown, title)[0])
        assert set(rows) == set(report[key]) and len(rows) >= 2
        for name, part in report[key].items():
            assert int(rows[name][1]) == part["n"]
            for i, metric in enumerate(breakdown):
                assert_figure(rows[name][2 + i], part["metrics"][metric], part["intervals"][metric])
    # The same figures counted here from the stored responses: the whole run, then per relation.
    responses = list_responses(db, run_id=run_id)
    assert len(responses) == len(items) and any(r.outcome == "abstained" for r in responses)
    whole = _counted([r.outcome for r in responses])
    shown_metrics = dict(zip(report["metrics"], metrics.values(), strict=True))
    for metric in breakdown:
        assert_figure(shown_metrics[metric][1], *whole[metric])
    relation_of = {item.id: item.relation for item in items}
    by_relation: dict[str, list[str]] = {}
    for r in responses:
        by_relation.setdefault(relation_of[r.item_id], []).append(r.outcome)
    rows = rows_by_first(section(shown, "By relation")[0])
    assert set(rows) == set(by_relation)
    for relation, outcomes in by_relation.items():
        counted = _counted(outcomes)
        assert int(rows[relation][1]) == counted["n"]
        for i, metric in enumerate(breakdown):
            assert_figure(rows[relation][2 + i], *counted[metric])
    # Only the sections this run has: a plain statement run has no stability, SDAK, repeats,
    # multi-answer or open recall part.
    titles = " ".join(sections(shown))
    for absent in ("Stability", "Option orders", "SDAK", "Repeats", "Multi-answer", "recall"):
        assert absent not in titles


def _sdak_answer(request: Request) -> str:
    return _pick(request.text, "Correct. It is so.", "Incorrect. It is not so.",
                 "The claim is correct, as far as I know.")  # fmt: skip


def test_an_sdak_run_shows_the_pair_metrics_with_counts_and_intervals(db: Database) -> None:
    spec = EvalSpec(model="scripted/model", prompt="sdak")
    report = run_report(db, _run(db, spec, _statements(db), _sdak_answer))
    sdak = report["sdak"]
    assert sdak["n_pairs"] > 0 and sdak["n_errors"] > 0
    shown = render_report(report)
    table = section(shown, f"SDAK (paper's definitions): {sdak['n_pairs']} pairs, "
                           f"{sdak['n_errors']} wrong")[0]  # fmt: skip
    assert table[0] == ["metric", "n", "value [95% CI]"]
    rows = table[1:]
    expected = [(v, sdak["intervals"][k], sdak["counts"][k], sdak["n_pairs"])
                for k, v in sdak["metrics"].items()]  # fmt: skip
    expected += [(v, sdak["error_type_intervals"][k], sdak["counts"][k], sdak["n_errors"])
                 for k, v in sdak["error_types"].items()]  # fmt: skip
    assert len(rows) == len(expected)
    for row, (value, interval, k, n) in zip(rows, expected, strict=True):
        assert row[1] == f"{k}/{n}"
        assert_figure(row[2], value, interval)
    assert sum(row[0].startswith("error: ") for row in rows) == len(sdak["error_types"])


def test_a_repeat_group_shows_mean_and_sd_of_every_metric(db: Database) -> None:
    items = _statements(db)

    def factory(_model: str, _settings: object, config: Mapping[str, Any]) -> ScriptedProvider:
        turn = str(config.get("repeat"))  # each run of the group answers a little differently
        return ScriptedProvider(lambda r: _pick(r.text + turn, "True", "False", "True"))

    spec = EvalSpec(model="scripted/model")
    ready = asyncio.run(start_repeats(db, spec, items, 3, provider_factory=factory))
    for run in ready:
        asyncio.run(execute(db, run.run_id, run.provider))
    report = run_report(db, ready[1].run_id)
    repeats = report["repeats"]
    assert repeats["n_runs"] == 3
    accuracy = repeats["metrics"]["average_accuracy"]
    assert accuracy["sd"] and accuracy["sd"] > 0  # the runs differ: an SD to show
    shown = render_report(report)
    runs = ", ".join(str(r) for r in repeats["runs"])
    table = section(shown, f"Repeats: mean ± SD over 3 completed runs ({runs})")[0]
    assert table[0] == ["metric", "mean ± SD", "runs with a value", "value in each run"]
    assert len(table) - 1 == len(repeats["metrics"])
    for row, figure in zip(table[1:], repeats["metrics"].values(), strict=True):
        if figure["mean"] is None:
            assert row[1] == "-"
        else:
            match = _MEAN_SD.match(row[1])
            assert match, row
            assert abs(float(match.group(1)) - figure["mean"]) <= TOL
            if figure["sd"] is None:
                assert match.group(2) is None
            else:
                assert abs(float(match.group(2)) - figure["sd"]) <= TOL
        assert int(row[2]) == figure["n"]
        each = row[3].split(", ")
        for cell, value in zip(each, figure["values"], strict=True):
            assert_figure(cell, value)
    assert "average accuracy" in {row[0] for row in table[1:]}


def test_multi_answer_questions_show_exact_match_and_fractional_credit(db: Database) -> None:
    report = run_report(db, _permutation_run(db))  # clinical-core's choice items: multi-answer
    multi = report["multi_answer"]
    shown = render_report(report)
    table = section(shown, "Multi-answer questions")[0]
    assert table[0] == ["questions", "exact match [95% CI]", "fractional credit"]
    assert int(table[1][0]) == multi["n_items"]
    assert_figure(table[1][1], multi["exact_match"], multi.get("exact_match_interval"))
    assert_figure(table[1][2], multi["partial_credit"])
    assert "Open recall" not in " ".join(sections(shown))


def test_open_recall_shows_mean_scores_and_tiers_per_aspect(db: Database) -> None:
    made = prepare(db, GenerateRequest(kb="clinical-core", format="recall", points=6, seed="r"))
    items = [item for item in made.items() if isinstance(item, RecallItem)]
    assert items
    spec = EvalSpec(model="scripted/model", max_tokens=256)

    def answer(request: Request) -> str:  # all, half or none of the right answers
        item = next(i for i in items if i.question in request.text)
        half = [*item.answers[: (len(item.answers) + 1) // 2], "chest pain"]
        return _pick(request.text, ", ".join(item.answers), ", ".join(half), "I do not know")

    report = run_report(db, _run(db, spec, items, answer))
    recall = report["recall"]
    shown = render_report(report)
    assert "Metrics" not in sections(shown)  # only open recall: no true/false metrics
    scores = section(shown, "Open recall: mean scores")[0]
    tiers = section(shown, "Open recall: tiers")[0]
    groups = {**recall["by_aspect"], "overall": recall["overall"]}
    metrics = [m for m in ("f1", "precision", "recall", "rouge1", "bleu1", "cosine")
               if any(m in g for g in groups.values())]  # fmt: skip
    assert len(scores[0]) == 2 + len(metrics)
    names = list(recall["overall"]["tiers"])
    assert tiers[0] == ["aspect", *(f"{n} [95% CI]" for n in names)]
    score_rows, tier_rows = rows_by_first(scores), rows_by_first(tiers)
    assert set(score_rows) == set(groups) == set(tier_rows)
    for aspect, group in groups.items():
        assert int(score_rows[aspect][1]) == group["n"]
        for cell, metric in zip(score_rows[aspect][2:], metrics, strict=True):
            figure = group.get(metric) or {}
            assert_figure(cell, figure.get("mean"), figure.get("interval"))
        for cell, name in zip(tier_rows[aspect][1:], names, strict=True):
            tier = group["tiers"][name]
            assert_figure(cell, tier["share"], tier["interval"])
    # Every listed entry by class, per aspect and overall (the aspects add up to the whole).
    entries = rows_by_first(section(shown, "Open recall: listed entries by class")[0])
    kinds = ("matched", "extra_truth", "known_wrong", "unverified")
    for aspect, group in groups.items():
        assert entries[aspect][1:5] == [str(group["entries"][k]) for k in kinds]
    for k in kinds:
        assert recall["overall"]["entries"][k] == sum(
            part["entries"][k] for part in recall["by_aspect"].values()
        )
    assert recall["overall"]["entries"]["matched"] > 0


def test_names_from_the_data_cannot_break_a_table(db: Database) -> None:
    report = run_report(db, _permutation_run(db))
    sub = report["sub_labels"]["by_label"]
    name = next(n for n, part in sub.items() if len(part["groups"]) >= 2 and n != "relation")
    groups = sub[name]["groups"]
    first = next(iter(groups))
    hostile = "a | b <img src=x> *bold*"
    groups[hostile] = groups.pop(first)
    shown = render_report(report)
    (line,) = [line for line in shown.splitlines() if "img" in line]
    assert re.search(r"(?<!\\)[<>*]", line) is None  # no tag, no emphasis: all escaped
    rows = rows_by_first(section(shown, f"Sub-label: {name.replace('_', ' ')}")[0])
    assert hostile in rows and len(rows[hostile]) == 7
