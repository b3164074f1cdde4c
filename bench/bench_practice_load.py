"""Practice under load: simulated students against `quizbot serve` over a million stored responses.

Every figure comes from this one run. Steps:

1. A fresh database (a SQLite file in a temporary directory, or a new database created on the
   PostgreSQL server named by ``--database-url`` and dropped afterwards) is seeded with
   ``--seed-responses`` answers (bench/_seed_responses.py: clinical-core items, students with
   finished sessions, baseline runs) and the students' spaced-review cards (built with the app's
   own backfill, as the answer hook would have built them: a returning student in a running
   deployment has them); the seeding time is printed. ``--no-review-cards`` seeds no cards: a
   deployment upgraded from before spaced review, where every returning student's first start
   also builds their cards from ~500 answers, once (about 40 ms of CPU each).
2. ``quizbot serve`` starts in a subprocess on a free port over that database, with the default
   settings (SQLite ``synchronous=FULL``: a committed answer survives power loss).
3. ``--students`` simulated students (asyncio tasks in this process, each its own Gradio session,
   talking plain HTTP to the Practice tab's ``practice_start`` and ``practice_answer`` endpoints
   exactly as the browser does: ``POST /gradio_api/queue/join`` then the ``/queue/data`` event
   stream) start a session, answer until it ends (the last answer returns the summary), start
   another, for ``--duration`` seconds. They log in as the seeded students ``student-0001``...,
   so they are returning students with a history. Between answers each one "thinks" for a time
   drawn uniformly from ``--think`` (seconds): real students read the feedback and the next
   question; ``--think 0,0`` measures saturation instead.
   ``--returning`` (the "returning class" scenario) runs a phase before that: every student
   finishes one session of the same settings in the running app, as they would have done last
   time, so the app plans their next session on its background thread and stores it
   (``practice_plans``); the bench waits until every student's plan is stored, then the
   measured phase begins with the same burst of starts. Without it (the default) the measured
   starts are the first after a deployment: no student has a stored plan. Either way the
   bench counts how many of the students' first measured starts took their stored plan (the
   session's seed is the stored plan's, and a start that plans draws a seed of its own).
   ``--scenarios release`` is the returning class after a release: once the plans are stored,
   the bench makes every one stale (the basis an older release's code would leave), stops the
   servers and starts new ones (the deployment), times how long the new servers take to plan
   them again (``quizbot serve`` renews stale plans on its planner thread at its start), and
   the class arrives when that is done. ``--scenarios rush`` is the same release with the class
   arriving as soon as the new servers answer, while they still renew: what the renewal costs
   the starts it races, and how many starts still find their plan renewed in time.
4. Afterwards every answer a student received feedback for is looked up in the database by its
   session and question; lost answers (acknowledged, not stored) and errors are counted.

Two times are reported for each answer, both from answer to the next question on screen:

- server: the handler's own time as Gradio measures it around the function call and reports in
  the ``process_completed`` message (``output.duration``): storing the answer, the feedback,
  reading the next question (or the session summary after the last answer). It excludes time
  waiting in Gradio's queue, pre/post-processing and the network.
- round trip: measured here, from sending the answer to receiving the result; everything the
  student waits for, including queueing, on a machine where this client shares the cores.

The last answer of a session (its result is the summary, with the comparison to models) and
session starts are reported on lines of their own; the goal (p95 <= 50 ms) is about the rest.
The server's and this client's CPU use and the load average are printed with the figures.

Usage:

    .venv/bin/python bench/bench_practice_load.py [--duration 300] [--students 50]
        [--seed-responses 1000000] [--think 1,5] [--database-url postgresql://...] [--quick]
        [--no-review-cards] [--checkouts /main/checkout,/this/checkout]
        [--returning | --scenarios first,returning] [--py-spy /tmp/pyspy/bin/py-spy]

``--quick`` is a 30 s run over 20,000 seeded responses (each can still be set explicitly).

``--as-browser`` also sends, after each start and each answer, the server events the page sends
by itself (found in the app's /config): the steps chained with ``.then`` and the handlers set off
by a change of the chat or of a server-side state the event wrote (before Part 7 of
docs/performance.md: the due panel's refresh and the flag form's reset after every answer).
With one student (no overlap) the server's CPU is read around each answer and what it set off,
and the CPU per answer as a browser sends it is printed; with ``--checkouts`` before and after,
their ratio too.

The server runs the ``quizbot`` of this virtualenv with this process's environment, so
``PYTHONPATH=/another/checkout`` measures that checkout's server with this client (a before/after
pair with the same client and the same seeding).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psycopg  # noqa: E402
from sqlalchemy import delete, func, update  # noqa: E402
from sqlmodel import col, select  # noqa: E402

from bench._collapsed import Profile  # noqa: E402
from bench._seed_responses import (  # noqa: E402
    analyze_seeded,
    check_references,
    describe,
    seed_responses,
    student_name,
)
from storage import EngineOptions, mask_url, normalize_database_url, open_database  # noqa: E402
from storage.models import PracticePlanRow, Respondent  # noqa: E402
from storage.repo import count_responses  # noqa: E402
from storage.sessions import load_session  # noqa: E402
from tests.helpers.gradio_tab import EventTab, JoinRefusedError  # noqa: E402
from tests.helpers.net import free_port, stop_process, wait_for_http  # noqa: E402

QUIZBOT = str(Path(sys.executable).with_name("quizbot"))
GOAL_P95_MS = 50.0
CALL_TIMEOUT_S = 120.0
STATEMENT_ANSWERS = ("True", "False", "I don't know")
STATEMENT_WEIGHTS = (0.45, 0.45, 0.10)


# --------------------------------------------------------------------------------------------
# The database


@contextlib.contextmanager
def fresh_database(url: str | None, tmp: Path, keep: bool) -> Iterator[str]:
    """A fresh database URL: a SQLite file under ``tmp``, or a new PostgreSQL database."""
    if url is None:
        yield f"sqlite:///{tmp / 'bench.db'}"
        return
    normalized = normalize_database_url(url)
    if normalized.startswith("sqlite"):
        path = Path(normalized.split("///", 1)[1])
        if path.exists():
            raise SystemExit(f"error: {path} exists; the bench needs a fresh database")
        yield normalized
        return
    # PostgreSQL: the URL names a server (and a database to connect to for admin work).
    admin = normalized.replace("postgresql+psycopg://", "postgresql://")
    name = f"quizbot_load_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{normalized.rsplit('/', 1)[0]}/{name}"
    finally:
        if keep:
            print(f"kept database {name}")
        else:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --------------------------------------------------------------------------------------------
# The server


@contextlib.contextmanager
def served(
    database_url: str, home: Path, checkout: str | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """`quizbot serve` on a free port over ``database_url``: (base URL, process, log file).
    ``checkout``: a source tree the server imports quizbot from (``PYTHONPATH``)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_")}
    env.pop("DATABASE_URL", None)
    env.update({"QUIZBOT_HOME": str(home), "DATABASE_URL": database_url})
    if checkout is not None:
        env["PYTHONPATH"] = checkout
    log_path = home / "server.log"
    home.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [QUIZBOT, "serve", "--port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=log
        )
        try:
            try:
                wait_for_http(f"http://127.0.0.1:{port}/", timeout=180)
            except TimeoutError:
                print(log_path.read_text(errors="replace")[-3000:])
                raise
            yield f"http://127.0.0.1:{port}", proc, log_path
        finally:
            stop_process(proc, 30)


@contextlib.contextmanager
def profiled(args: argparse.Namespace, pids: list[int], out: Path) -> Iterator[Profile | None]:
    """With ``--py-spy``: sample each of ``pids`` (py-spy ``record``, raw format, idle threads
    left out) while the body runs; the summary is filled in afterwards."""
    if not args.py_spy:
        yield None
        return
    out.mkdir(parents=True, exist_ok=True)
    procs = [
        subprocess.Popen(
            [
                args.py_spy,
                "record",
                "--pid",
                str(pid),
                "--format",
                "raw",
                "--nolineno",
                "--gil",
                "--nonblocking",
                "--rate",
                "200",
                "-o",
                str(out / f"{pid}.txt"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for pid in pids
    ]
    profile = Profile()
    try:
        yield profile
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)  # py-spy writes its file on Ctrl-C
        for proc, pid in zip(procs, pids, strict=True):
            _, err = proc.communicate(timeout=60)
            path = out / f"{pid}.txt"
            if path.exists():
                profile.add_file(path)
                if args.keep:
                    print(f"kept {path}")
            else:
                print(f"py-spy wrote nothing for {pid}: {err.decode(errors='replace')[-500:]}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --------------------------------------------------------------------------------------------
# A Gradio client that keeps the server's own timing


@dataclass(frozen=True)
class Endpoint:
    """A named Gradio event: its function index and which of its inputs are server-side state."""

    fn_index: int
    state_inputs: tuple[bool, ...]


def endpoints(config: dict[str, Any], names: tuple[str, ...]) -> dict[str, Endpoint]:
    """The endpoints called ``names`` in the app's /config."""
    types = {c["id"]: c.get("type") for c in config["components"]}
    found: dict[str, Endpoint] = {}
    for i, dep in enumerate(config["dependencies"]):
        name = dep.get("api_name")
        if name in names:
            states = tuple(types.get(c) == "state" for c in dep["inputs"])
            found[name] = Endpoint(int(dep.get("id", i)), states)
    missing = [n for n in names if n not in found]
    if missing:
        raise SystemExit(f"error: the app has no endpoint {', '.join(missing)}")
    return found


@dataclass(frozen=True)
class FollowUp:
    """A server event the page sends by itself after another (see ``--as-browser``), and what
    its non-state inputs are: ``student`` or ``kb`` (the Practice tab's fields)."""

    endpoint: Endpoint
    fields: tuple[str, ...]


_FIELDS = {"qb-practice-student": "student", "qb-practice-kb": "kb"}


def follow_ups(config: dict[str, Any], name: str) -> list[FollowUp]:
    """The server events a browser sends after endpoint ``name`` by itself: the steps chained
    after it (``.then``), and the handlers a change of the chat, or of a server-side state it
    writes but does not read (a state it reads is the session's, the same after an answer),
    sets off. Steps that run in the page only (no backend function) are left out."""
    comps = {c["id"]: c for c in config["components"]}
    deps = {int(d.get("id", i)): d for i, d in enumerate(config["dependencies"])}
    (main_id,) = (i for i, d in deps.items() if d.get("api_name") == name)
    main = deps[main_id]
    chat = [i for i, c in comps.items() if c["props"].get("elem_id") == "qb-practice-chat"]
    watched = set(chat) | {
        o for o in main["outputs"] if comps[o].get("type") == "state" and o not in main["inputs"]
    }
    found: list[int] = []
    chained = [main_id]
    while chained:
        after = chained.pop()
        for i, d in deps.items():
            if d.get("trigger_after") == after:
                chained.append(i)
                found.append(i)
    found += [
        i
        for i, d in deps.items()
        if any(t[0] in watched and t[1] == "change" for t in d["targets"])
    ]
    result = []
    for i in dict.fromkeys(found):
        d = deps[i]
        if not d.get("backend_fn", True):
            continue
        states = tuple(comps[c].get("type") == "state" for c in d["inputs"])
        fields = []
        for c, state in zip(d["inputs"], states, strict=True):
            if not state:
                elem = comps[c]["props"].get("elem_id")
                if elem not in _FIELDS:
                    raise SystemExit(f"error: a follow-up of {name} reads {elem!r}")
                fields.append(_FIELDS[elem])
        result.append(FollowUp(Endpoint(i, states), tuple(fields)))
    return result


@dataclass(frozen=True)
class CallResult:
    """One call: its outputs, whether Gradio reported success, and both times in ms."""

    outputs: list[Any]
    success: bool
    handler_ms: float | None  # Gradio's own measure of the function call
    processing_ms: float | None  # process_starts -> process_completed, as received here
    round_trip_ms: float
    error: str | None = None


class Student:
    """One browser tab: a Gradio session (its state lives on the server) and its calls, whose
    results come on the tab's one event stream, as a page's do (tests/helpers/gradio_tab.py)."""

    def __init__(self, client: httpx.AsyncClient, base: str, eps: dict[str, Endpoint]) -> None:
        self.tab = EventTab(client, base)
        self.eps = eps

    async def call(self, name: str, values: list[Any]) -> CallResult:
        """Call endpoint ``name`` with the values of its non-state inputs, in order."""
        return await self.call_endpoint(self.eps[name], values)

    async def call_endpoint(self, ep: Endpoint, values: list[Any]) -> CallResult:
        """Call ``ep`` with the values of its non-state inputs, in order."""
        given = iter(values)
        data = [None if state else next(given) for state in ep.state_inputs]
        started = time.perf_counter()
        try:
            done = await self.tab.call(ep.fn_index, data, CALL_TIMEOUT_S)
        except JoinRefusedError as exc:
            return _failed(started, str(exc))
        if not done.completed:
            return _failed(started, str(done.message.get("message") or done.message.get("msg")))
        output = done.message.get("output") or {}
        duration = output.get("duration")
        return CallResult(
            list(output.get("data") or []),
            bool(done.message.get("success")),
            duration * 1000 if isinstance(duration, int | float) else None,
            None if done.processing_from is None else _ms(done.processing_from),
            _ms(started),
            None if done.message.get("success") else str(output.get("error"))[:200],
        )

    async def close(self) -> None:
        """Close the tab: its event stream ends."""
        await self.tab.close()


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _failed(started: float, why: str) -> CallResult:
    return CallResult([], False, None, None, _ms(started), why)


# --------------------------------------------------------------------------------------------
# The students


@dataclass
class Timings:
    """The three times of a kind of call, in ms."""

    handler: list[float] = field(default_factory=list)
    processing: list[float] = field(default_factory=list)
    round_trip: list[float] = field(default_factory=list)

    def add(self, result: CallResult) -> None:
        """Record one successful call."""
        self.round_trip.append(result.round_trip_ms)
        if result.handler_ms is not None:
            self.handler.append(result.handler_ms)
        if result.processing_ms is not None:
            self.processing.append(result.processing_ms)

    def lines(self) -> list[str]:
        """The percentiles of each time, one line each."""
        return [
            _line("server: handler (Gradio's duration)", self.handler),
            _line("server: processing (starts->completed)", self.processing),
            _line("round trip (this client)", self.round_trip),
        ]


@dataclass
class Tally:
    """Everything the students saw."""

    answer: Timings = field(default_factory=Timings)  # answer -> next question
    last: Timings = field(default_factory=Timings)  # last answer of a session -> summary
    start: Timings = field(default_factory=Timings)  # start -> first question
    first_start: Timings = field(default_factory=Timings)  # each student's first: the burst
    first_sessions: dict[str, int] = field(default_factory=dict)  # student -> first session
    acknowledged: set[tuple[int, str]] = field(default_factory=set)  # (session, question id)
    # --as-browser: events sent after starts and answers; with one student, the server's CPU
    # (seconds) around each answer and what it set off, and around each start likewise
    follow_up_events: int = 0
    answer_cpu_s: list[float] = field(default_factory=list)
    start_cpu_s: list[float] = field(default_factory=list)
    sessions: set[int] = field(default_factory=set)
    sessions_finished: int = 0
    errors: list[str] = field(default_factory=list)


def _answer_for(question: dict[str, Any], rng: random.Random) -> str:
    if question.get("kind") == "choice" and question.get("options"):
        letters = [str(o["letter"]) for o in question["options"]]
        return rng.choice(letters)
    return rng.choices(STATEMENT_ANSWERS, STATEMENT_WEIGHTS)[0]


@dataclass(frozen=True)
class Browser:
    """What ``--as-browser`` adds: the follow-ups of a start and of an answer, and a reading of
    the server's CPU (seconds) when one student runs alone (``None`` otherwise)."""

    after_start: list[FollowUp]
    after_answer: list[FollowUp]
    cpu: Any = None  # Callable[[], float] | None


async def _send_follow_ups(student: Student, ups: list[FollowUp], name: str, tally: Tally) -> None:
    """Send ``ups`` one after the other, as the page does once the event before is done."""
    values = {"student": name, "kb": "clinical-core"}
    for up in ups:
        result = await student.call_endpoint(up.endpoint, [values[f] for f in up.fields])
        tally.follow_up_events += 1
        if not result.success:
            tally.errors.append(f"follow-up {up.endpoint.fn_index}: {result.error}"[:200])


async def student_loop(
    student: Student,
    name: str,
    args: argparse.Namespace,
    deadline: float,
    tally: Tally,
    rng: random.Random,
    browser: Browser | None = None,
) -> None:
    """Practise until the deadline: start a session, answer it to the end, start another."""
    think_min, think_max = args.think

    def cpu() -> float:
        return browser.cpu() if browser is not None and browser.cpu is not None else 0.0

    async def think() -> None:
        pause = min(rng.uniform(think_min, think_max), max(0.0, deadline - time.monotonic()))
        if pause > 0:
            await asyncio.sleep(pause)

    # Stagger the first clicks over one think time, as people do not all press Start at once.
    await asyncio.sleep(rng.uniform(0, think_max))
    while time.monotonic() < deadline:
        try:
            cpu0 = cpu()
            started = await student.call(
                "practice_start",
                [name, "clinical-core", "all", args.format, args.length, "", None],
            )
            if browser is not None and started.success:
                await _send_follow_ups(student, browser.after_start, name, tally)
                tally.start_cpu_s.append(cpu() - cpu0)
        except (httpx.HTTPError, json.JSONDecodeError) as exc:
            tally.errors.append(f"start: {type(exc).__name__}: {exc}"[:200])
            await think()
            continue
        data = started.outputs[0] if started.outputs else None
        if not started.success or not isinstance(data, dict) or data.get("error"):
            reason = started.error or (data or {}).get("error") or "no data"
            tally.errors.append(f"start: {reason}"[:200])
            await think()
            continue
        tally.start.add(started)
        session_id = int(data["session"]["id"])
        tally.sessions.add(session_id)
        if name not in tally.first_sessions:
            tally.first_sessions[name] = session_id
            tally.first_start.add(started)
        question = data.get("question")
        while question is not None and time.monotonic() < deadline:
            await think()
            if time.monotonic() >= deadline:
                break
            text = _answer_for(question, rng)
            try:
                cpu0 = cpu()
                result = await student.call("practice_answer", [text])
                if browser is not None and result.success:
                    await _send_follow_ups(student, browser.after_answer, name, tally)
                    tally.answer_cpu_s.append(cpu() - cpu0)
            except (httpx.HTTPError, json.JSONDecodeError) as exc:
                tally.errors.append(f"answer: {type(exc).__name__}: {exc}"[:200])
                break  # state unknown: start a new session
            data = result.outputs[0] if result.outputs else None
            feedback = data.get("feedback") if isinstance(data, dict) else None
            if not result.success or not isinstance(data, dict) or data.get("error"):
                reason = result.error or (data or {}).get("error") or "no data"
                tally.errors.append(f"answer: {reason}"[:200])
                break
            if not feedback or feedback.get("question_id") != question["id"]:
                tally.errors.append(f"answer: no feedback for {question['id']}")
                break
            tally.acknowledged.add((session_id, question["id"]))
            question = data.get("question")
            (tally.answer if question is not None else tally.last).add(result)
            if question is None:
                if not data.get("summary"):
                    tally.errors.append(f"answer: session {session_id} ended without a summary")
                tally.sessions_finished += 1
        if question is None:
            await think()


async def run_students(
    bases: list[str], args: argparse.Namespace, tally: Tally, pids: list[int]
) -> float:
    """All students until the deadline, student ``i`` on replica ``i % len(bases)`` (what a
    proxy's sticky sessions do); returns the measured wall time in seconds."""
    limits = httpx.Limits(max_connections=4 * args.students, max_keepalive_connections=None)
    timeout = httpx.Timeout(CALL_TIMEOUT_S)
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
        configs = [(await client.get(f"{b}/config")).json() for b in bases]
        eps = [endpoints(c, ("practice_start", "practice_answer")) for c in configs]
        browsers: list[Browser | None] = [None] * len(bases)
        if args.as_browser:
            alone = args.students == 1 and len(bases) == 1
            browsers = [
                Browser(
                    follow_ups(c, "practice_start"),
                    follow_ups(c, "practice_answer"),
                    (lambda pid=pid: cpu_seconds(pid)) if alone else None,
                )
                for c, pid in zip(configs, pids, strict=True)
            ]
            for k, b in enumerate(browsers):
                assert b is not None
                print(
                    f"  as a browser on replica {k + 1}: {len(b.after_start)} more event(s) per "
                    f"start, {len(b.after_answer)} per answer"
                )
        started = time.monotonic()
        deadline = started + args.duration
        students = [
            Student(client, bases[i % len(bases)], eps[i % len(bases)])
            for i in range(args.students)
        ]
        await asyncio.gather(
            *(
                student_loop(
                    student,
                    student_name(args.first_student + i),
                    args,
                    deadline,
                    tally,
                    random.Random(i),
                    browsers[i % len(bases)],
                )
                for i, student in enumerate(students)
            )
        )
        took = time.monotonic() - started
        await asyncio.gather(*(student.close() for student in students))
        return took


# --------------------------------------------------------------------------------------------
# The returning class (--returning): last time's session, and the plans it left


async def finish_one_session(student: Student, name: str, args: argparse.Namespace) -> str | None:
    """Start a session with the measured phase's settings and answer it to the end without
    pausing (the plan of the next session is made when it ends); an error, or ``None``."""
    rng = random.Random(name)
    started = await student.call(
        "practice_start", [name, "clinical-core", "all", args.format, args.length, "", None]
    )
    data = started.outputs[0] if started.outputs else None
    if not started.success or not isinstance(data, dict) or data.get("error"):
        return f"warm-up start: {started.error or (data or {}).get('error') or 'no data'}"
    question = data.get("question")
    while question is not None:
        result = await student.call("practice_answer", [_answer_for(question, rng)])
        data = result.outputs[0] if result.outputs else None
        if not result.success or not isinstance(data, dict) or data.get("error"):
            return f"warm-up answer: {result.error or (data or {}).get('error') or 'no data'}"
        question = data.get("question")
    return None


async def finish_sessions(
    bases: list[str], args: argparse.Namespace, names: list[str]
) -> list[str]:
    """Every student (student ``i`` on replica ``i % len(bases)``, as in the measured phase)
    finishes one session, all at once; the errors."""
    limits = httpx.Limits(max_connections=4 * len(names), max_keepalive_connections=None)
    async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(CALL_TIMEOUT_S)) as client:
        configs = [(await client.get(f"{b}/config")).json() for b in bases]
        eps = [endpoints(c, ("practice_start", "practice_answer")) for c in configs]
        students = [
            Student(client, bases[i % len(bases)], eps[i % len(bases)]) for i in range(len(names))
        ]
        found = await asyncio.gather(
            *(
                finish_one_session(student, name, args)
                for student, name in zip(students, names, strict=True)
            )
        )
        await asyncio.gather(*(student.close() for student in students))
    return [e for e in found if e is not None]


def stored_plan_seeds(database_url: str, names: list[str]) -> dict[str, str]:
    """The seed of the stored practice plan of each of ``names`` that has one (any KB: the
    bench practises one)."""
    db = open_database(database_url, ensure=False)
    try:
        query = (
            select(Respondent.name, PracticePlanRow.config)
            .join(Respondent, col(Respondent.id) == col(PracticePlanRow.respondent_id))
            .where(col(Respondent.name).in_(names))
        )
        return db.read(lambda s: {str(n): str(c.get("seed")) for n, c in s.exec(query).all()})
    finally:
        db.dispose()


class PlanWatch:
    """``--scenarios rush``: every stored plan seed each student had while the class arrived
    (read every 0.2 s on a thread of its own), and when the last stale plan was renewed."""

    def __init__(self, database_url: str, names: list[str]) -> None:
        self.url, self.names = database_url, names
        self.seeds: dict[str, set[str]] = defaultdict(set)
        self.stale_at_arrival = stale_plans(database_url)
        self.stale_now = self.stale_at_arrival
        self.renewed_after_s: float | None = 0.0 if not self.stale_at_arrival else None
        self._began = time.monotonic()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="plan-watch", daemon=True)

    def __enter__(self) -> PlanWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _watch(self) -> None:
        while not self._done.wait(0.2):
            for name, seed in stored_plan_seeds(self.url, self.names).items():
                self.seeds[name].add(seed)
            self.stale_now = stale_plans(self.url)
            if not self.stale_now and self.renewed_after_s is None:
                self.renewed_after_s = time.monotonic() - self._began

    def stop(self) -> dict[str, set[str]]:
        """Stop watching; every seed seen per student (a stale plan's seed included: a start
        never takes a stale plan, so it cannot match a start's seed)."""
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()
        return dict(self.seeds)


def _seeds(found: str | set[str] | None) -> set[str]:
    if found is None:
        return set()
    return {found} if isinstance(found, str) else found


def session_seeds(database_url: str, sessions: dict[str, int]) -> dict[str, str]:
    """The seed of each student's session in ``sessions`` (student -> session id)."""
    db = open_database(database_url, ensure=False)
    try:
        return {
            name: str(load_session(db, sid).session.config.get("seed"))
            for name, sid in sessions.items()
        }
    finally:
        db.dispose()


def returning_class(bases: list[str], args: argparse.Namespace, url: str) -> dict[str, str]:
    """``--returning``: each student finishes a session in the running app, then the bench
    waits (up to 5 minutes) for the plans of their next sessions; the stored plans' seeds."""
    names = [student_name(args.first_student + i) for i in range(args.students)]
    started = time.monotonic()
    errors = asyncio.run(finish_sessions(bases, args, names))
    took = time.monotonic() - started
    for line in errors[:5]:
        print(f"    {line}")
    seeds = stored_plan_seeds(url, names)
    while len(seeds) < len(names) and time.monotonic() - started < took + 300:
        time.sleep(0.5)
        seeds = stored_plan_seeds(url, names)
    print(
        f"returning class: {len(names) - len(errors)} of {len(names)} students finished a "
        f"session in {took:.1f} s ({len(errors)} errors); {len(seeds)} next sessions planned "
        f"and stored {time.monotonic() - started - took:.1f} s later"
    )
    return seeds


STALE_BASIS = "0" * 64  # no basis the planner computes: what a release's new code sees


def make_plans_stale(database_url: str, names: list[str]) -> int:
    """Give the stored plans of ``names`` a basis no current code computes (as after a
    release); how many. Plans of other students (an earlier run's class) are deleted, so that
    every run's new servers renew the same number of plans and runs compare."""
    db = open_database(database_url, ensure=False)
    ours = select(Respondent.id).where(col(Respondent.name).in_(names))

    def _do(session: Any) -> int:
        session.execute(
            delete(PracticePlanRow).where(col(PracticePlanRow.respondent_id).not_in(ours))
        )
        stale = update(PracticePlanRow).values(basis=STALE_BASIS)
        return int(session.execute(stale).rowcount)

    try:
        return db.write(_do)
    finally:
        db.dispose()


def stale_plans(database_url: str) -> int:
    """How many stored plans still have :data:`STALE_BASIS`."""
    db = open_database(database_url, ensure=False)
    try:
        query = select(func.count()).where(col(PracticePlanRow.basis) == STALE_BASIS)
        return int(db.read(lambda s: s.exec(query).one()))
    finally:
        db.dispose()


def wait_renewed(database_url: str, bound_s: float = 600.0) -> tuple[float, int]:
    """Wait until no stored plan is stale (or ``bound_s``): (seconds waited, still stale)."""
    began = time.monotonic()
    left = stale_plans(database_url)
    while left and time.monotonic() - began < bound_s:
        time.sleep(0.25)
        left = stale_plans(database_url)
    return time.monotonic() - began, left


# --------------------------------------------------------------------------------------------
# Checking and reporting


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by nearest rank; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100)
    return ordered[int(rank) - 1]


def _line(label: str, values: list[float]) -> str:
    return (
        f"  {label:<40} p50 {percentile(values, 50):7.1f}  p95 {percentile(values, 95):7.1f}  "
        f"p99 {percentile(values, 99):7.1f}  max {max(values, default=float('nan')):7.1f} ms  "
        f"(n={len(values):,})"
    )


def stored_answers(database_url: str, sessions: set[int]) -> set[tuple[int, str]]:
    """(session, question id) of every answer stored in the bench's sessions."""
    db = open_database(database_url, ensure=False)
    try:
        found: set[tuple[int, str]] = set()
        for session_id in sorted(sessions):
            loaded = load_session(db, session_id)
            positions = {
                e["id"]: k for k, e in enumerate(loaded.session.config.get("items", []), start=1)
            }
            for a in loaded.answers:
                found.add((session_id, f"s{session_id}q{positions[a.item_id]}"))
        return found
    finally:
        db.dispose()


@dataclass(frozen=True)
class Usage:
    """How busy the machine was during the run."""

    wall_s: float
    server_cpu_s: float
    client_cpu_s: float
    load_before: str
    load_after: str


def report(
    args: argparse.Namespace,
    tally: Tally,
    usage: Usage,
    stored: set[tuple[int, str]],
    new_rows: int,
    server_errors: list[str],
) -> bool:
    """Print the figures; True when there were no lost answers and no errors."""
    acked = tally.acknowledged
    lost = acked - stored
    unacked = stored - acked
    n_errors = len(tally.errors) + len(server_errors)
    print(
        f"\n{args.students} students on {args.replicas} replica(s), {usage.wall_s:.0f} s: "
        f"{len(tally.sessions):,} sessions started, {tally.sessions_finished:,} finished"
    )
    print(
        f"  answers acknowledged {len(acked):,} ({len(acked) / usage.wall_s:.1f}/s); stored in "
        f"the bench's sessions {len(stored):,}; new rows in the database {new_rows:,}"
    )
    print(
        f"  lost answers (acknowledged, not stored): {len(lost)}; stored but not acknowledged "
        f"(in flight at an error): {len(unacked)}"
    )
    print(f"  errors: {len(tally.errors)} seen by students, {len(server_errors)} in the server log")
    for line in (tally.errors + server_errors)[:5]:
        print(f"    {line}")
    for title, timings in (
        ("answer -> next question", tally.answer),
        ("last answer of a session -> its summary", tally.last),
        ("start a session -> first question (history, items)", tally.start),
        ("each student's first start (the class's burst)", tally.first_start),
    ):
        print(f"{title}:")
        for line in timings.lines():
            print(line)
    print(f"goal: p95 from answer to next question <= {GOAL_P95_MS:.0f} ms")
    for label, values in (
        ("server processing", tally.answer.processing),
        ("handler alone", tally.answer.handler),
        ("round trip", tally.answer.round_trip),
    ):
        p95 = percentile(values, 95)
        verdict = "met" if p95 <= GOAL_P95_MS else "NOT met"
        print(f"  {label:<18} p95 {p95:7.1f} ms: {verdict}")
    cores = os.cpu_count() or 1
    requests = len(tally.answer.handler) + len(tally.last.handler) + len(tally.start.handler)
    if requests:
        # CPU time, unlike wall time, hardly depends on what else the machine is running.
        print(
            f"server CPU per request (answers and starts): "
            f"{usage.server_cpu_s * 1000 / requests:.1f} ms over {requests:,} requests"
        )
    print(
        f"load: server(s) {usage.server_cpu_s / usage.wall_s:.2f} cores, client "
        f"{usage.client_cpu_s / usage.wall_s:.2f} cores of {cores}; load average "
        f"{usage.load_before} before, {usage.load_after} after"
    )
    return not lost and n_errors == 0


def print_summary(rows: list[tuple[str, Tally, str, str]]) -> None:
    """One line per run (p95s in ms), and each run's ratio to the first run."""
    if len(rows) < 2:
        return
    print("\nsummary (p95, ms; ratio to the first run):")
    base = rows[0][1]

    def cell(values: list[float], first: list[float]) -> str:
        p95, p95_first = percentile(values, 95), percentile(first, 95)
        return f"{p95:7.0f} ({p95 / p95_first:4.2f})" if p95_first else f"{p95:7.0f}"

    for label, t, from_plan, load in rows:
        first = base.first_start
        print(
            f"  {label}: first start handler {cell(t.first_start.handler, first.handler)}"
            f" round trip {cell(t.first_start.round_trip, first.round_trip)}; answer "
            f"handler {cell(t.answer.handler, base.answer.handler)} round trip "
            f"{cell(t.answer.round_trip, base.answer.round_trip)}; from plan {from_plan}; "
            f"load {load}"
        )


def _loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def run_once(args: argparse.Namespace, url: str, tmp: Path, seeded: Any, n_before: int) -> bool:
    """One run of ``args.students`` students on ``args.replicas`` servers; prints its figures."""
    low, high = args.think
    load_before = _loadavg()
    with contextlib.ExitStack() as stack:
        servers = [
            stack.enter_context(served(url, tmp / f"home-{args.first_student}-{k}", args.checkout))
            for k in range(args.replicas)
        ]
        bases = [base for base, _, _ in servers]
        print(
            f"\n=== {args.checkout or 'this environment'}, {args.replicas} replica(s), "
            f"{args.students} students; load average {load_before}"
        )
        print(
            f"serving on {', '.join(bases)}: {args.students} students for "
            f"{args.duration:.0f} s, thinking {low:g}-{high:g} s, sessions of "
            f"{args.length} {args.format} questions; "
            f"student-{args.first_student:04d} on, "
            f"{max(0, min(args.students, seeded.n_students - args.first_student + 1))} of them "
            "returning students "
            f"with about {seeded.n_human_answers // max(1, seeded.n_students)} answers "
            "of history and "
            + (
                "their review cards (as in a running deployment)"
                if seeded.review_cards
                else "no review cards (each first start backfills them: an upgraded deployment)"
            )
        )
        print(
            "scenario: "
            + (
                "returning class after a release, arriving at once (their stored plans made "
                "stale, the servers restarted, the class arriving while they renew the plans)"
                if args.rush
                else "returning class after a release (their stored plans made stale, the "
                "servers restarted, the plans renewed before the class arrives)"
                if args.release
                else "returning class (each student finished a session in this app before: the "
                "next one is planned and stored)"
                if args.returning
                else "first starts after a deployment (no stored plans)"
            )
        )
        plans: Mapping[str, str | set[str]] = (
            returning_class(bases, args, url) if args.returning else {}
        )
        watcher: PlanWatch | None = None
        if args.release:  # a release: the plans go stale, new servers start and renew them
            n_stale = make_plans_stale(
                url, [student_name(args.first_student + i) for i in range(args.students)]
            )
            stack.close()
            deployed = time.monotonic()
            servers = [
                stack.enter_context(
                    served(url, tmp / f"home-{args.first_student}-{k}-new", args.checkout)
                )
                for k in range(args.replicas)
            ]
            bases = [base for base, _, _ in servers]
            up = time.monotonic() - deployed
            names = [student_name(args.first_student + i) for i in range(args.students)]
            if args.rush:  # the class arrives now; plans renewed meanwhile are watched
                watcher = stack.enter_context(PlanWatch(url, names))
                print(
                    f"release, the class arriving at once: {n_stale} stored plans made stale; "
                    f"the new server(s) answered in {up:.1f} s; {watcher.stale_at_arrival} "
                    "still stale as the class arrives"
                )
            else:
                waited, left = wait_renewed(url)
                print(
                    f"release: {n_stale} stored plans made stale; the new server(s) answered "
                    f"in {up:.1f} s and renewed them {waited:.1f} s later ({left} still stale)"
                )
                plans = stored_plan_seeds(url, names)
        server_cpu0 = sum(cpu_seconds(proc.pid) for _, proc, _ in servers)
        client_cpu0 = time.process_time()
        tally = Tally()
        pids = [proc.pid for _, proc, _ in servers]
        with profiled(args, pids, tmp / f"profile-{args.first_student}") as profile:
            wall = asyncio.run(run_students(bases, args, tally, pids))
        per_server = [cpu_seconds(proc.pid) for _, proc, _ in servers]
        if watcher is not None:
            plans = watcher.stop()
            print(
                f"rush: the last stale plan renewed {watcher.renewed_after_s:.1f} s after the "
                f"class arrived ({watcher.stale_now} still stale at the end)"
                if watcher.renewed_after_s is not None
                else f"rush: {watcher.stale_now} plans still stale at the end of the run"
            )
        usage = Usage(
            wall,
            sum(per_server) - server_cpu0,
            time.process_time() - client_cpu0,
            load_before,
            _loadavg(),
        )
    # The servers have stopped: whatever they acknowledged must be in the database now.
    server_errors = [
        line.strip()
        for _, _, log_path in servers
        for line in log_path.read_text(errors="replace").splitlines()
        if "Traceback" in line or " ERROR " in line
    ]
    stored = stored_answers(url, tally.sessions)
    db = open_database(url, ensure=False)
    new_rows = count_responses(db) - n_before
    db.dispose()
    ok = report(args, tally, usage, stored, new_rows, server_errors)
    if profile is not None:
        print("py-spy, the server(s) during the measured phase (CPU samples, bench/_collapsed.py):")
        for line in profile.lines():
            print(line)
    taken = session_seeds(url, tally.first_sessions)
    from_plan = sum(1 for n, seed in taken.items() if seed in _seeds(plans.get(n)))
    print(
        f"first starts that took the student's stored plan: {from_plan} of {len(taken)} "
        f"({len(plans)} plans stored before the measured phase)"
    )
    args.summary.append(
        (
            f"{args.scenario}, {args.replicas} replica(s), "
            f"{args.students} students, {args.checkout or 'this environment'}",
            tally,
            f"{from_plan}/{len(taken)}",
            f"{usage.load_before} -> {usage.load_after}",
        )
    )
    if tally.answer_cpu_s:
        per_answer = sum(tally.answer_cpu_s) * 1000 / len(tally.answer_cpu_s)
        per_start = sum(tally.start_cpu_s) * 1000 / max(1, len(tally.start_cpu_s))
        events = (len(tally.answer_cpu_s) + len(tally.start_cpu_s) + tally.follow_up_events) / (
            len(tally.answer_cpu_s) + len(tally.start_cpu_s)
        )
        print(
            f"as a browser, one student alone: server CPU per answer {per_answer:.1f} ms "
            f"(n={len(tally.answer_cpu_s):,}), per start {per_start:.1f} ms "
            f"(n={len(tally.start_cpu_s):,}); {events:.2f} server events per action"
        )
        args.per_answer.append((args.checkout or "this environment", per_answer, per_start))
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=None, help="seconds (default 300)")
    parser.add_argument(
        "--students", default="50", help="simulated students; a list (50,200) runs each in turn"
    )
    parser.add_argument(
        "--replicas",
        default="1",
        help="`quizbot serve` processes on the one database, students split between them; "
        "a list (1,2) runs each in turn over the same seeded database",
    )
    parser.add_argument("--seed-responses", type=int, default=None, help="default 1,000,000")
    parser.add_argument(
        "--think", default="1,5", help="MIN,MAX seconds a student pauses before answering"
    )
    parser.add_argument("--length", type=int, default=10, help="questions per session")
    parser.add_argument("--format", default="statement", choices=("statement", "choice", "mixed"))
    parser.add_argument(
        "--database-url", default=None, help="a PostgreSQL server (a fresh database is made)"
    )
    parser.add_argument(
        "--checkouts",
        default=None,
        help="source trees the servers import quizbot from, one after the other (e.g. a "
        "checkout of main, then this one: before/after in one run over one seeding)",
    )
    parser.add_argument(
        "--no-review-cards",
        action="store_true",
        help="seed no spaced-review cards: every returning student's first start backfills "
        "them (a deployment upgraded from before spaced review)",
    )
    parser.add_argument(
        "--as-browser",
        action="store_true",
        help="also send the events the page sends by itself after starts and answers; with "
        "--students 1, the server CPU per answer as a browser sends it",
    )
    parser.add_argument(
        "--returning",
        action="store_true",
        help="the returning class: each student first finishes a session in the running app "
        "(its next session is planned and stored), then the measured phase (same as "
        "--scenarios returning)",
    )
    parser.add_argument(
        "--scenarios",
        default=None,
        help="first (starts after a deployment, the default), returning (see --returning), "
        "release (the returning class after a release: stale plans renewed by the new "
        "servers), rush (the same release, the class arriving as soon as the servers answer), "
        "or several (e.g. first,returning) in turn for each configuration",
    )
    parser.add_argument(
        "--py-spy",
        default=None,
        metavar="PATH",
        help="a py-spy executable: sample the servers during the measured phase and print "
        "where their CPU went outside process_api (py-spy needs ptrace)",
    )
    parser.add_argument(
        "--no-analyze",
        action="store_true",
        help="PostgreSQL: leave the seeded tables without statistics (a server with autovacuum "
        "off, before anyone runs ANALYZE); by default the bench runs ANALYZE after seeding",
    )
    parser.add_argument("--quick", action="store_true", help="30 s over 20,000 responses")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()
    if args.duration is None:
        args.duration = 30.0 if args.quick else 300.0
    if args.seed_responses is None:
        args.seed_responses = 20_000 if args.quick else 1_000_000
    low, high = (float(x) for x in args.think.split(","))
    if not 0 <= low <= high:
        parser.error("--think needs MIN,MAX with 0 <= MIN <= MAX")
    args.think = (low, high)
    checkouts: list[str | None] = (
        [str(Path(c).resolve()) for c in args.checkouts.split(",")] if args.checkouts else [None]
    )
    scenario_names = (args.scenarios or ("returning" if args.returning else "first")).split(",")
    if not set(scenario_names) <= {"first", "returning", "release", "rush"}:
        parser.error("--scenarios takes first, returning, release, rush or several of them")
    student_counts = [int(x) for x in str(args.students).split(",")]
    replica_counts = [int(x) for x in str(args.replicas).split(",")]
    if min(student_counts + replica_counts) < 1:
        parser.error("--students and --replicas need positive numbers")

    tmp = Path(tempfile.mkdtemp(prefix="quizbot-load-"))
    try:
        with fresh_database(args.database_url, tmp, args.keep) as url:
            print(f"database {mask_url(url)}")
            # Seeding only: no fsync per commit, foreign keys checked once at the end.
            options = EngineOptions(sqlite_synchronous="NORMAL", sqlite_foreign_keys=False)
            db = open_database(url, options)
            seeded = seed_responses(
                db,
                args.seed_responses,
                review_cards=not args.no_review_cards,
                progress=lambda m: print(f"  {m}"),
            )
            print(describe(seeded))
            started = time.perf_counter()
            if check_references(db):
                took = time.perf_counter() - started
                print(f"  foreign keys of every row checked in {took:.1f} s")
            else:
                print("  foreign keys were enforced while inserting")
            if not args.no_analyze:
                started = time.perf_counter()
                if analyze_seeded(db):
                    took = time.perf_counter() - started
                    print(f"  ANALYZE (the planner's statistics) in {took:.1f} s")
            n_before = count_responses(db)
            db.dispose()
            assert n_before == seeded.n_responses, f"{n_before:,} rows, {seeded.n_responses:,}"

            ok = True
            # Each run has students of its own (the next seeded ones), so every run's students
            # start with the same kind of history: no run finds its students' review cards
            # already built by an earlier run.
            args.first_student = 1
            args.per_answer = []
            args.summary = []
            for replicas, students, checkout, scenario in itertools.product(
                replica_counts, student_counts, checkouts, scenario_names
            ):
                args.checkout, args.replicas, args.students = checkout, replicas, students
                args.scenario = scenario
                args.returning = scenario in ("returning", "release", "rush")
                args.release = scenario in ("release", "rush")
                args.rush = scenario == "rush"
                if args.first_student + students - 1 > seeded.n_students:
                    print(
                        f"note: only {seeded.n_students} seeded students; students above "
                        "that have no history"
                    )
                ok = run_once(args, url, tmp, seeded, n_before) and ok
                args.first_student += students
                db = open_database(url, ensure=False)
                n_before = count_responses(db)
                db.dispose()
        print_summary(args.summary)
        if len(args.per_answer) == 2:
            (before, b_answer, b_start), (after, a_answer, a_start) = args.per_answer
            print(
                f"\nserver CPU per answer as a browser sends it, {after} / {before}: "
                f"{a_answer / b_answer:.2f} ({a_answer:.1f} / {b_answer:.1f} ms); per start "
                f"{a_start / b_start:.2f} ({a_start:.1f} / {b_start:.1f} ms)"
            )
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
