"""The parts of an assignment's results beyond the comparison: protocols, item analysis, headline.

* :func:`protocol_runs`: per model, the latest finished run made for the assignment under its
  protocol (compared), and the latest one under another protocol when no such run is newer
  (listed apart with why, never tested).
* :func:`respondent_answers` and :func:`item_analysis`: each respondent's first answer to each
  item (students: pass 1 in their sessions; models: the compared runs) and the analysis of
  :mod:`quizbot.analysis.item_analysis`.
* :func:`headline`: the sentence that says what the comparison found.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quizbot.analysis.item_analysis import Answer, ItemRow, Reliability, analyse
from quizbot.domain import Assignment, AssignmentRetiredItem, Outcome, Run, RunStatus
from quizbot.generate.protocol import Protocol
from quizbot.generate.service import load_any_items
from storage import Database
from storage.assignments import assignment_answers, assignment_runs, assignment_sessions
from storage.repo import list_responses

__all__ = [
    "ItemAnalysis",
    "headline",
    "item_analysis",
    "protocol_notes",
    "protocol_runs",
    "respondent_answers",
    "retired_json",
    "run_protocol",
    "session_protocols",
    "student_protocol",
]

_FINISHED = (RunStatus.COMPLETED.value, RunStatus.INTERRUPTED.value)


def _key(run: Run) -> tuple[Any, int]:
    return (run.finished_at or run.created_at, run.id or 0)


def protocol_runs(
    db: Database, assignment_id: int, protocol: Protocol
) -> tuple[list[Run], list[dict[str, Any]]]:
    """The runs compared (per model the latest finished first-pass run under ``protocol``) and
    the runs listed apart (per model its latest under another protocol, when newer than the
    compared one or the only one), each with the protocol it had and why it is not compared."""
    same: dict[str, Run] = {}
    other: dict[str, tuple[Run, list[str]]] = {}
    for run in assignment_runs(db, assignment_id):
        if run.status not in _FINISHED or run.config.get("pass") == 2:
            continue
        why = protocol.differences(Protocol.of_run(run.config))
        model = run.model_requested
        if not why:
            if model not in same or _key(run) > _key(same[model]):
                same[model] = run
        elif model not in other or _key(run) > _key(other[model][0]):
            other[model] = (run, why)
    apart = [
        {
            "name": model,
            "run_id": run.id,
            "protocol": Protocol.of_run(run.config).as_json(),
            "why": why,
        }
        for model, (run, why) in sorted(other.items())
        if model not in same or _key(run) > _key(same[model])
    ]
    return sorted(same.values(), key=lambda r: r.model_requested), apart


def session_protocols(db: Database, assignment_id: int) -> dict[str, Mapping[str, Any]]:
    """Student (respondent name) -> the protocol stored with their first session, if any."""
    found: dict[str, Mapping[str, Any]] = {}
    names = {
        a.response.quiz_session_id: a.respondent for a in assignment_answers(db, assignment_id)
    }
    for session in assignment_sessions(db, assignment_id):
        name = names.get(session.id)
        stored = session.config.get("protocol")
        if name is not None and name not in found and isinstance(stored, Mapping):
            found[name] = stored
    return found


def student_protocol(protocol: Protocol, stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """The protocol a student answered under: their session's, else the assignment's (sessions
    started before protocols were stored had "I do not know"), never with worked examples."""
    asked = Protocol.from_json(stored) if stored is not None else protocol
    mine = Protocol(idk=asked.idk, shots=0, two_pass=asked.two_pass, recorded=stored is not None)
    differs = [d for d in protocol.differences(mine) if "worked example" not in d]
    return {**mine.as_json(), "matches": not differs, "differences": differs}


def run_protocol(protocol: Protocol, config: Mapping[str, Any] | None) -> dict[str, Any]:
    """The protocol a compared run was asked under (it matches the assignment's)."""
    mine = Protocol.of_run(config or {})
    differs = protocol.differences(mine)
    return {**mine.as_json(), "matches": not differs, "differences": differs}


def protocol_notes(protocol: Protocol, retired: Sequence[AssignmentRetiredItem]) -> list[str]:
    """What the results say about retired items and about worked examples models were shown."""
    notes = [
        f"retired from scoring: item {r.item_id}"
        + (f" ({r.reason})" if r.reason else "")
        + (f" by {r.retired_by}" if r.retired_by else "")
        + f" on {r.retired_at:%Y-%m-%d}; every figure is scored without it"
        for r in retired
    ]
    if protocol.shots:
        notes.append(
            f"models were shown {protocol.shots} worked example(s) per question, students none "
            "(the assignment's protocol)"
        )
    return notes


def retired_json(r: AssignmentRetiredItem) -> dict[str, Any]:
    """A retirement as JSON."""
    return {
        "item_id": r.item_id,
        "reason": r.reason,
        "retired_by": r.retired_by,
        "retired_at": r.retired_at.isoformat(),
    }


def respondent_answers(
    db: Database, assignment: Assignment, runs: Sequence[Run]
) -> dict[str, dict[str, Answer]]:
    """Respondent -> item -> (outcome, parsed answer) of their first scored pass-1 answer."""
    wanted = set(assignment.item_ids)
    out: dict[str, dict[str, Answer]] = {}
    for given in assignment_answers(db, assignment.id):
        r = given.response
        if r.item_id not in wanted or r.outcome == Outcome.ERROR.value or r.answer_pass == 2:
            continue
        out.setdefault(f"student:{given.respondent}", {}).setdefault(
            r.item_id, (r.outcome, r.parsed_answer)
        )
    for run in runs:
        assert run.id is not None
        mine = out.setdefault(f"model:{run.model_requested}:{run.id}", {})
        for r in list_responses(db, run_id=run.id):
            if r.item_id in wanted and r.outcome != Outcome.ERROR.value:
                mine.setdefault(r.item_id, (r.outcome, r.parsed_answer))
    return out


@dataclass(frozen=True)
class ItemAnalysis:
    """The item rows, KR-20 and, when there is none, why."""

    rows: list[ItemRow]
    reliability: Reliability
    n_respondents: int
    note: str | None

    def as_json(self) -> dict[str, Any]:
        """Every figure with intervals, the flagged items and the minimum."""
        from quizbot.analysis.item_analysis import MIN_RESPONDENTS  # noqa: PLC0415

        return {
            "n_respondents": self.n_respondents,
            "min_respondents": MIN_RESPONDENTS,
            "who": "every respondent under the assignment's protocol: students and models",
            "items": [row.as_json() for row in self.rows],
            "flagged": [row.id for row in self.rows if row.flag and not row.retired],
            "kr20": self.reliability.as_json(),
            "note": self.note,
        }


def item_analysis(
    db: Database, assignment: Assignment, runs: Sequence[Run], retired: set[str]
) -> ItemAnalysis:
    """The item analysis of the assignment's true/false and choice items (module docstring)."""
    items = [i for i in load_any_items(db, list(assignment.item_ids)) if i.kind != "recall"]
    answers = respondent_answers(db, assignment, runs)
    rows, reliability, note = analyse(items, answers, retired)
    return ItemAnalysis(rows, reliability, sum(bool(a) for a in answers.values()), note)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def headline(respondents: Sequence[Mapping[str, Any]], n_items: int) -> list[str]:
    """One sentence per compared model (and one for the students alone): "Model X answered 87%
    [78–93] of the 80 items right; the 24 students' median was 62% (IQR 55–70); X scored above
    21 of them." Accuracy's interval is Wilson's; the IQR is of the students' own accuracies."""
    scores = [
        r["metrics"]["accuracy"]["value"]
        for r in respondents
        if r["kind"] == "student" and r["metrics"]["accuracy"]["value"] is not None
    ]
    cohort = ""
    if scores:
        q1, median, q3 = (
            statistics.quantiles(scores, n=4, method="inclusive")
            if len(scores) > 1
            else (scores[0], scores[0], scores[0])
        )
        cohort = (
            f"the {len(scores)} student{'s' if len(scores) != 1 else ''}' median was "
            f"{_pct(median)} (IQR {_pct(q1)}–{_pct(q3)})"
        )
    said: list[str] = []
    for r in respondents:
        if r["kind"] != "model":
            continue
        acc = r["metrics"]["accuracy"]
        if acc["value"] is None:
            continue
        part = (
            f"{r['name']} answered {_pct(acc['value'])} [{_pct(acc['low'])}–{_pct(acc['high'])}]"
            f" of the {acc['n']} items right"
        )
        detail = r.get("percentile_detail") or {}
        if cohort:
            part += f"; {cohort}"
            n_students = detail.get("n_students") or 0
            if n_students:
                part += f"; {r['name']} scored above {detail['below']} of them"
                if detail.get("tied"):
                    part += f" (tied with {detail['tied']})"
        else:
            part += "; no student has answered yet"
        said.append(part + ".")
    if not said:
        said.append(
            (cohort[0].upper() + cohort[1:] + f" on the {n_items} items.")
            if cohort
            else "Nobody has answered yet."
        )
    return said
