"""An assignment's results: every student who answered it and every model run made for it.

Students are the people with answers in sessions on the assignment (their first answer per item);
models are, per model, the latest finished run made for the assignment that did not fail
(:func:`storage.assignments.latest_runs`) — never an unrelated run or monitor night, so a later
run made for something else does not change the results. The figures and tests come from
:func:`quizbot.analysis.comparison.compare` on the assignment's items: accuracy, answer rate and
joint accuracy (all variants of a fact right; meaningful only when the assignment holds every
variant, ``--all-variants``) with Wilson 95% intervals, each model's percentile among the
students, and the model-vs-students tests comparison.py offers.

Two-pass assignments (EBMQA). The figures above are pass 1's ("I do not know" allowed; an
abstention is not correct and not answered). Each respondent's ``metrics`` then add, over the
same n (the items answered in pass 1):

* ``accuracy_without_guessing``: pass 1's accuracy (the same figure as ``accuracy``);
* ``accuracy_with_guessing``: items right in pass 1, plus items abstained on in pass 1 and
  guessed right in pass 2 (an abstention never guessed counts as not right);
* ``answer_rate_with_guessing``: items answered in pass 1 or guessed in pass 2;
* ``guess_accuracy``: of the pass-2 guesses, the share right (n = guesses made).

A student's pass 2 is their second-pass session; a model's is the second-pass run made from the
run the results use (:func:`storage.assignments.second_pass_runs`).

Open recall assignments (``--format recall``). Every answer, a student's (their first per item)
or a model's (the same latest runs), is rescored from its raw text by the one scorer
(:func:`quizbot.evaluation.recall.score_recall`), everyone graded by one set of tiers (those of
the assignment's first student session, or the defaults before any; a note says when sessions or
runs were made with other tiers), so tier shares compare like for like. Each respondent's
``metrics`` are then ``accuracy`` (the share "basically correct"), ``answer_rate`` (not
abstained) and ``joint_accuracy`` (empty: no facts to join), and ``recall`` holds
:func:`quizbot.analysis.recall.recall_summary`: overall and per aspect, the mean precision,
recall, F1, ROUGE-1 and BLEU-1 with 95% t intervals and the tier shares. The students pooled
get the same (``students_pooled["recall"]``), and each model's ``recall_tests`` is Welch's
t-test per aspect on F1, model vs the pooled students (BH-adjusted over aspects).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from quizbot.analysis.assignment_analysis import (
    headline,
    item_analysis,
    protocol_notes,
    protocol_runs,
    retired_json,
    run_protocol,
    session_protocols,
    student_protocol,
)
from quizbot.analysis.comparison import compare
from quizbot.analysis.metrics import Proportion
from quizbot.analysis.recall import RecallRecord, recall_records, recall_summary, welch_by_aspect
from quizbot.domain import Assignment, Outcome, ResponseRecord
from quizbot.evaluation.recall import DEFAULT_TIERS, Tiers, parse_tiers, score_recall
from quizbot.evaluation.recall_judge import stored_verdicts
from quizbot.generate.protocol import Protocol
from quizbot.generate.service import load_any_items
from quizbot.items import RecallItem
from storage import Database
from storage.assignments import (
    assignment_answers,
    assignment_sessions,
    get_assignment,
    latest_runs,
    second_pass_runs,
)
from storage.repo import list_responses
from storage.review import assignment_retired

TWO_PASS_METRICS = (
    "accuracy_without_guessing",
    "accuracy_with_guessing",
    "answer_rate_with_guessing",
    "guess_accuracy",
)

__all__ = ["assignment_results"]


def _metrics(row: dict[str, Any]) -> dict[str, Any]:
    return {name: row[name] for name in ("accuracy", "answer_rate", "joint_accuracy")}


def _first(records: Iterable[ResponseRecord], items: set[str]) -> dict[str, str]:
    """Item -> outcome of the first scored answer (records oldest first)."""
    out: dict[str, str] = {}
    for r in records:
        if r.item_id in items and r.outcome != Outcome.ERROR.value and r.item_id not in out:
            out[r.item_id] = r.outcome
    return out


def two_pass_metrics(first: Mapping[str, str], second: Mapping[str, str]) -> dict[str, Any]:
    """The with/without-guessing figures (module docstring) from item -> outcome of each pass."""
    right = Outcome.CORRECT.value
    abstained = Outcome.ABSTAINED.value
    n = len(first)
    guessed = {i: o for i, o in second.items() if first.get(i) == abstained}
    k_plain = sum(o == right for o in first.values())
    k_guess = sum(o == right for o in guessed.values())
    answered = sum(o != abstained for o in first.values())
    guessed_answered = sum(o != abstained for o in guessed.values())
    return {
        "accuracy_without_guessing": Proportion.of(k_plain, n).as_json(),
        "accuracy_with_guessing": Proportion.of(k_plain + k_guess, n).as_json(),
        "answer_rate_with_guessing": Proportion.of(answered + guessed_answered, n).as_json(),
        "guess_accuracy": Proportion.of(k_guess, len(guessed)).as_json(),
    }


def _students_two_pass(db: Database, assignment_id: int, items: set[str]) -> dict[str, Any]:
    passes: dict[str, dict[int, list[ResponseRecord]]] = defaultdict(lambda: defaultdict(list))
    for given in assignment_answers(db, assignment_id):
        passes[given.respondent][given.response.answer_pass or 1].append(given.response)
    return {
        name: two_pass_metrics(_first(by[1], items), _first(by[2], items))
        for name, by in passes.items()
    }


def assignment_results(db: Database, name: str) -> dict[str, Any]:
    """The results of assignment ``name`` as JSON-ready data.

    ``respondents`` holds one entry per student and per model: ``name``, ``kind`` (``student``
    or ``model``), ``n_items`` (distinct items answered), ``metrics`` (each figure
    ``{"k", "n", "value", "low", "high"}``); a model's entry adds ``run_id``, ``percentile``
    (matched, among the students; None without students) and ``tests`` (model vs the pooled
    students, and the paired McNemar test against the students' item majority); ``model_tests``
    holds the paired tests between the models (Benjamini–Hochberg adjusted); ``recall`` the
    open recall part of :meth:`~quizbot.analysis.comparison.HumansVsModels.as_json` (None when
    the assignment has no recall answers). :class:`~quizbot.errors.NotFoundError` for an
    unknown assignment.
    """
    assignment = get_assignment(db, name)
    if assignment.config.get("format") == "recall":
        return _recall_results(db, assignment)
    protocol = Protocol.of_assignment(assignment.config)
    retired = assignment_retired(db, assignment.id)
    retired_ids = {r.item_id for r in retired}
    counted = [i for i in assignment.item_ids if i not in retired_ids]
    runs, apart = protocol_runs(db, assignment.id, protocol)
    result = compare(
        db,
        item_ids=counted,
        run_ids=[run.id for run in runs],
        min_items=1,
        assignment_id=assignment.id,
    )
    percentiles = {p.model: p.as_json() for p in result.percentiles}
    two_pass = bool(assignment.config.get("two_pass", False))
    in_set = set(counted)
    students_two = _students_two_pass(db, assignment.id, in_set) if two_pass else {}
    seconds = second_pass_runs(db, assignment.id) if two_pass else {}
    tests: dict[str, list[dict[str, Any]]] = {}
    model_tests: list[dict[str, Any]] = []
    for test in result.tests:
        if test.family == "model_vs_students":
            tests.setdefault(test.b, []).append(test.as_json())
        elif test.family == "model_vs_model":
            model_tests.append(test.as_json())
    sessions = session_protocols(db, assignment.id)
    run_configs = {run.id: run.config for run in runs}
    respondents: list[dict[str, Any]] = []
    for row in result.students:
        data = row.as_json()
        respondents.append(
            {
                "name": row.group,
                "kind": "student",
                "n_items": row.n_items,
                "metrics": {**_metrics(data), **students_two.get(row.group, {})},
                "protocol": student_protocol(protocol, sessions.get(row.group)),
            }
        )
    for row in result.groups:
        if row.kind != "model":
            continue
        data = row.as_json()
        percentile = percentiles.get(row.group)
        metrics = _metrics(data)
        if two_pass and row.run_id is not None:
            follow = seconds.get(row.run_id)
            guesses = [] if follow is None else list_responses(db, run_id=follow.id)
            metrics.update(
                two_pass_metrics(
                    _first(list_responses(db, run_id=row.run_id), in_set),
                    _first(guesses, in_set),
                )
            )
        respondents.append(
            {
                "name": row.group,
                "kind": "model",
                "n_items": row.n_items,
                "metrics": metrics,
                "run_id": row.run_id,
                "second_pass_run_id": None
                if row.run_id is None or row.run_id not in seconds
                else seconds[row.run_id].id,
                "percentile": None if percentile is None else percentile["percentile"],
                "percentile_detail": percentile,
                "tests": tests.get(row.group, []),
                "protocol": run_protocol(protocol, run_configs.get(row.run_id or 0)),
            }
        )
    students = [g.as_json() for g in result.groups if g.kind == "students"]
    analysis = item_analysis(db, assignment, runs, retired_ids)
    notes = [*result.notes, *protocol_notes(protocol, retired)]
    return {
        "assignment": assignment.name,
        "kb": assignment.kb_name,
        "mode": assignment.mode,
        "n_items": len(assignment.item_ids),
        "all_variants": bool(assignment.config.get("all_variants", False)),
        "two_pass": two_pass,
        "opens_at": None if assignment.opens_at is None else assignment.opens_at.isoformat(),
        "closes_at": None if assignment.closes_at is None else assignment.closes_at.isoformat(),
        "respondents": respondents,
        "students_pooled": students[0] if students else None,
        "model_tests": model_tests,
        # open recall items: mean F1 and tier shares per group and aspect, Welch's t per model
        # (quizbot.analysis.comparison); None without recall answers
        "recall": result.as_json().get("recall"),
        "notes": notes,
        "protocol": protocol.as_json(),
        "other_protocol_runs": apart,
        "retired": [retired_json(r) for r in retired],
        "items": [row.contract() for row in analysis.rows],
        "reliability": {"kr20": analysis.reliability.kr20},
        "item_analysis": analysis.as_json(),
        "headline": headline(respondents, len(counted)),
    }


def _recall_row(
    name: str, kind: str, records: list[RecallRecord], tiers: Mapping[str, Any]
) -> dict[str, Any]:
    n = len(records)
    return {
        "name": name,
        "kind": kind,
        "n_items": len({r.item_id for r in records}),
        "metrics": {
            "accuracy": Proportion.of(
                sum(r.score.tier == "basically correct" for r in records), n
            ).as_json(),
            "answer_rate": Proportion.of(sum(not r.score.abstained for r in records), n).as_json(),
            "joint_accuracy": Proportion.of(0, 0).as_json(),
        },
        "recall": recall_summary(records, tiers),
    }


def _recall_results(db: Database, assignment: Assignment) -> dict[str, Any]:
    """The results of an open recall assignment (module docstring)."""
    in_set = set(assignment.item_ids)
    items = {
        i.id: i for i in load_any_items(db, list(assignment.item_ids)) if isinstance(i, RecallItem)
    }
    tiers_of: dict[int, Tiers] = {
        s.id: Tiers.from_json(s.config.get("recall_tiers"))
        for s in assignment_sessions(db, assignment.id)
    }
    tiers = next(iter(tiers_of.values()), DEFAULT_TIERS)  # one set for everyone
    notes: list[str] = []
    if any(t != tiers for t in tiers_of.values()):
        notes.append("sessions were started with different tiers; all answers graded by one set")
    # An assignment with a judge: its stored verdicts count for students as for its runs.
    verdicts = stored_verdicts(db, items, assignment.config)
    students: dict[str, list[RecallRecord]] = defaultdict(list)
    seen: dict[str, set[str]] = defaultdict(set)
    for given in assignment_answers(db, assignment.id):
        r = given.response
        item = items.get(r.item_id)
        if item is None or r.outcome == Outcome.ERROR.value or r.item_id in seen[given.respondent]:
            continue
        seen[given.respondent].add(r.item_id)
        score = score_recall(item, r.raw_text or "", tiers=tiers, verdicts=verdicts.get(item.id))
        students[given.respondent].append(RecallRecord(item.id, item.aspect, score))
    student_tiers = tiers.as_json()
    respondents = [
        _recall_row(name, "student", records, student_tiers)
        for name, records in sorted(students.items())
    ]
    pooled = [r for records in students.values() for r in records]
    if not students:
        notes.append("no student has answered yet")
    for run in latest_runs(db, assignment.id):
        if parse_tiers(run.config.get("recall_tiers")) != tiers:
            notes.append(f"run {run.id} was graded with other tiers; regraded here by one set")
        records, tiers_json = recall_records(db, run.id, tiers)
        mine = [r for r in records if r.item_id in in_set]
        row = _recall_row(run.model_requested, "model", mine, tiers_json)
        row.update(
            run_id=run.id,
            second_pass_run_id=None,
            percentile=None,
            percentile_detail=None,
            tests=[],
            recall_tests=welch_by_aspect(mine, pooled) if pooled else None,
        )
        respondents.append(row)
    if not any(r["kind"] == "model" for r in respondents):
        notes.append("no finished model run made for this assignment yet")
    pooled_row = _recall_row("students", "students", pooled, student_tiers) if pooled else None
    return {
        "assignment": assignment.name,
        "kb": assignment.kb_name,
        "mode": assignment.mode,
        "format": "recall",
        "n_items": len(assignment.item_ids),
        "all_variants": False,
        "two_pass": False,
        "opens_at": None if assignment.opens_at is None else assignment.opens_at.isoformat(),
        "closes_at": None if assignment.closes_at is None else assignment.closes_at.isoformat(),
        "respondents": respondents,
        "students_pooled": pooled_row,
        "model_tests": [],
        "notes": notes,
        "protocol": Protocol.of_assignment(assignment.config).as_json(),
        "other_protocol_runs": [],
        "retired": [],
        "items": [],  # item analysis covers true/false and multiple-choice items
        "reliability": {"kr20": None},
        "headline": [],
    }
