"""Session starts and answers in one process, as Gradio runs them: CPU and wall time, no HTTP.

Over a copy of a database seeded by bench/_seed_responses.py (``--database``, a SQLite file; it
is copied, never changed), the app is built as ``quizbot serve`` builds it (the default KB
planned first, :func:`quizbot.practice.planning.prepare`) and each step is run through
Gradio's own ``Blocks.process_api`` for the Practice tab's ``practice_start`` and
``practice_answer`` endpoints: preprocessing, the handler (the UI layer and the practice
service) and postprocessing of every output, as a request from the browser or the HTTP API
would run it (minus the queue and the network). CPU is ``time.process_time`` of this process
(user + system), which depends much less on what else the machine runs than wall time does.

Students (the seeded ``student-0001``...):

- ``--students`` *returning* students, with their spaced-review cards built (as the answer hook
  builds them in a running deployment; a database seeded without cards gets them here, before
  any timing): each starts a session (their first start), answers two questions, and starts a
  second session (a later start);
- ``--backfill-students`` (default: as many) other seeded students whose cards are removed
  first: a deployment upgraded from before spaced review, where a returning student's first
  start also builds their cards from their whole history, once. Reported on a line of its own.

Each returning student then answers the later session to its end (not timed) and starts once
more: "start after a finished session", which a checkout that plans a student's next session
when one ends (:mod:`quizbot.practice.next_plan`, in a background thread, waited for first, as
a student reads the summary) serves from the stored plan; the CPU of those plans, on their own
thread, is the line "plan made ahead".

For each step: CPU and wall p50/p95 of the whole ``process_api``, the CPU of the handler alone
(the rest is Gradio's pre- and postprocessing), how many of the outputs were sent as updates
(not ``gr.skip()``) and the bytes of their JSON.

Before/after: run it over the same seeded file with each checkout first on ``PYTHONPATH``
(this script does not put its own checkout ahead of it), ideally ABBA.

Usage:

    PYTHONPATH=. .venv/bin/python bench/bench_practice_start.py --database seeded.db [--students 20]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.append(ROOT)  # after PYTHONPATH: another checkout given there is the one measured
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from gradio.state_holder import SessionState  # noqa: E402
from sqlalchemy import delete  # noqa: E402

from bench._seed_responses import student_name  # noqa: E402
from quizbot.config import load_settings  # noqa: E402
from quizbot.domain import RespondentKind  # noqa: E402
from quizbot.kb.registry import DEFAULT_KB, get_kb  # noqa: E402
from quizbot.practice import review_queue  # noqa: E402
from quizbot.practice.planning import prepare  # noqa: E402
from quizbot.ui.app import build_app  # noqa: E402
from quizbot.ui.context import UiContext  # noqa: E402
from storage import Database, open_database  # noqa: E402
from storage.models import ReviewCardRow, ReviewSyncRow  # noqa: E402
from storage.sessions import find_respondent  # noqa: E402

Row = tuple[float, float, float, int, int]  # CPU ms, wall ms, handler CPU ms, updates, bytes


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _json_size(data: list[Any]) -> tuple[int, int]:
    """How many outputs are real updates (not ``gr.skip()``) and the bytes of them all."""

    def plain(value: Any) -> Any:
        dump = getattr(value, "model_dump", None)
        return dump() if callable(dump) else str(value)

    updates = sum(1 for d in data if d != {"__type__": "update"})
    return updates, len(json.dumps(data, default=plain).encode())


def _respondent(db: Database, i: int) -> int:
    found = find_respondent(db, RespondentKind.HUMAN, student_name(i))
    if found is None or found.id is None:
        raise SystemExit(f"error: the database has no seeded {student_name(i)}")
    return found.id


def _forget_cards(db: Database, respondent_id: int) -> None:
    """As before spaced review: the student's answers stored, no card and no watermark."""

    def _do(session: Any) -> None:
        session.execute(delete(ReviewCardRow).where(ReviewCardRow.respondent_id == respondent_id))  # type: ignore[arg-type]
        session.execute(delete(ReviewSyncRow).where(ReviewSyncRow.respondent_id == respondent_id))  # type: ignore[arg-type]

    db.write(_do)


class Runner:
    """The app over one database, and a way to run an endpoint as Gradio does."""

    def __init__(self, db: Database, url: str, home: str) -> None:
        settings = load_settings(models=["openai/stub"], database_url=url, home=home)
        self.app = build_app(settings, db, UiContext(settings, db))
        fns = {f.api_name: f for f in self.app.fns.values() if f.api_name}
        self.start_fn, self.answer_fn = fns["practice_start"], fns["practice_answer"]
        self.handler_ms: list[float] = []
        for block_fn in (self.start_fn, self.answer_fn):
            assert block_fn.fn is not None
            block_fn.fn = self._timed(block_fn.fn)

    def _timed(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)  # Gradio reads the signature (the request parameter)
        def timed(*args: Any, **kwargs: Any) -> Any:
            cpu = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.handler_ms.append((time.process_time() - cpu) * 1000)

        return timed

    def run(self, block_fn: Any, inputs: list[Any], state: SessionState) -> tuple[Row, list[Any]]:
        """One call through ``process_api``; its figures and outputs."""
        inputs = inputs + [None] * (len(block_fn.inputs) - len(inputs))  # the states, if more
        cpu, wall = time.process_time(), time.perf_counter()
        out = asyncio.run(
            self.app.process_api(block_fn=block_fn, inputs=inputs, state=state, request=None)
        )
        cpu_ms, wall_ms = (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000
        data = list(out["data"])
        first = data[0]
        payload = first.model_dump() if hasattr(first, "model_dump") else first
        if isinstance(payload, dict) and payload.get("error"):
            raise SystemExit(f"error: {payload['error']}")
        return (cpu_ms, wall_ms, self.handler_ms[-1], *_json_size(data)), data

    def start(self, name: str, state: SessionState) -> Row:
        """``practice_start`` as the load bench calls it (all topics, 10 statements)."""
        inputs = [name, DEFAULT_KB, "all", "statement", 10, "", None, None, None]
        return self.run(self.start_fn, inputs, state)[0]

    def answer(self, text: str, state: SessionState) -> Row:
        """``practice_answer`` to the question on screen."""
        return self.run(self.answer_fn, [text, None, None, None], state)[0]


class _PlansAhead:
    """The plans a checkout makes in the background after a session ends (none before issue
    32's plan-ahead): waited for before the next start, and their CPU (of their own thread)."""

    def __init__(self) -> None:
        self.rows: list[Row] = []
        try:
            from quizbot.practice import next_plan
        except ImportError:
            self._module: Any = None
            return
        self._module = next_plan
        real = next_plan.plan_next

        def timed(*args: Any, **kwargs: Any) -> Any:
            cpu, wall = time.thread_time(), time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                cpu_ms = (time.thread_time() - cpu) * 1000
                self.rows.append((cpu_ms, (time.perf_counter() - wall) * 1000, cpu_ms, 0, 0))

        next_plan.plan_next = timed

    def wait(self) -> None:
        """Until every plan scheduled so far is made (a no-op for a checkout without them)."""
        if self._module is not None:
            self._module.wait_planned(timeout=120)


def _report(steps: dict[str, list[Row]]) -> None:
    for step, rows in steps.items():
        if not rows:
            continue
        cpu = [r[0] for r in rows]
        wall = [r[1] for r in rows]
        handler = [r[2] for r in rows]
        print(
            f"  {step:36s} CPU p50 {_pct(cpu, 0.5):6.1f} p95 {_pct(cpu, 0.95):6.1f} ms "
            f"(handler {_pct(handler, 0.5):5.1f}) | wall p50 {_pct(wall, 0.5):6.1f} "
            f"p95 {_pct(wall, 0.95):6.1f} ms | {rows[0][3]} outputs sent, "
            f"{_pct([float(r[4]) for r in rows], 0.5):,.0f} B (n={len(rows)})"
        )


def main() -> int:
    """Run the steps and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", required=True, help="a seeded SQLite file (copied)")
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument(
        "--backfill-students",
        type=int,
        default=None,
        help="students whose first start builds their review cards (default: --students)",
    )
    args = parser.parse_args()
    n_backfill = args.students if args.backfill_students is None else args.backfill_students
    steps: dict[str, list[Row]] = {
        "first start (returning student)": [],
        "first start with backfill (upgrade)": [],
        "answer": [],
        "later start": [],
        "start after a finished session": [],
        "plan made ahead (background thread)": [],
    }
    with tempfile.TemporaryDirectory(prefix="quizbot-start-") as tmp:
        path = Path(tmp) / "bench.db"
        shutil.copy(args.database, path)
        url = f"sqlite:///{path}"
        db = open_database(url)
        prepare(get_kb(db, DEFAULT_KB)[0])  # as `quizbot serve` does before its first request
        returning = range(1, args.students + 1)
        upgraded = range(args.students + 1, args.students + n_backfill + 1)
        for i in returning:  # their cards, as the answer hook would have written them
            review_queue.sync(db, _respondent(db, i))
        for i in upgraded:
            _forget_cards(db, _respondent(db, i))
        runner = Runner(db, url, tmp)
        ahead = _PlansAhead()
        runner.start("warm-up", SessionState(runner.app))
        for i in returning:
            state = SessionState(runner.app)
            steps["first start (returning student)"].append(runner.start(student_name(i), state))
            steps["answer"].append(runner.answer("True", state))
            steps["answer"].append(runner.answer("False", state))
            steps["later start"].append(runner.start(student_name(i), state))
            for _ in range(10):  # to its end: the last answer ends it (not timed here)
                runner.answer("True", state)
            ahead.wait()  # the student reads the summary meanwhile
            steps["start after a finished session"].append(runner.start(student_name(i), state))
        steps["plan made ahead (background thread)"] = ahead.rows
        for i in upgraded:
            state = SessionState(runner.app)
            steps["first start with backfill (upgrade)"].append(
                runner.start(student_name(i), state)
            )
        db.dispose()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    code = os.environ.get("PYTHONPATH") or ROOT
    print(f"{args.students} returning students, {n_backfill} backfilling; code {code}; load {load}")
    _report(steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
