"""Summaries of a py-spy profile in its ``raw`` format (collapsed stacks: ``frame;frame N``).

``bench_practice_load.py --py-spy PATH`` samples each server with ``py-spy record --format
raw --gil`` during the measured phase (only samples of a thread holding the GIL: the CPU the
Python code used, not threads waiting); :class:`Profile` says how many fell in our handlers,
in Gradio's ``process_api`` around them, in the background planning, in our middleware, and
outside all of these (HTTP, Gradio's queue, JSON), and which functions those were in.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

INSIDE = "process_api ("
# Functions (the last part of a frame's name) on nearly every stack, the event loop's or a
# thread's machinery and the command line's: not worth a line.
_UBIQUITOUS = frozenset(
    {
        "<module>",
        "run",
        "_run",
        "_run_once",
        "run_forever",
        "run_until_complete",
        "_bootstrap",
        "_bootstrap_inner",
        "_worker",
        "serve",
        "main",
        "invoke",
        "new_func",
        "asyncio_run",
        "serve_cmd",
        "_main",
    }
)


# Where a sample is counted. First the work that contains everything below it (the first that
# any frame matches): our handlers, Gradio's process_api around them, the background plans.
CONTAINING: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("our handlers (Gradio's worker threads)", ("function_wrapper.<locals>.wrapper (gradio/",)),
    ("Gradio's process_api around them (pre/postprocessing)", (INSIDE,)),
    ("next sessions planned (background thread)", ("(quizbot/practice/next_plan.py",)),
)
# Then the layers a request passes through, nested in one another (the gate calls Starlette,
# which calls Gradio's routes...): a sample is the innermost layer's that any frame names, so
# a layer's share is its own code and the standard library it calls.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the gate middleware (quizbot/ui/gate.py)", ("(quizbot/ui/gate.py",)),
    ("the request timer (quizbot/ui/metrics.py)", ("(quizbot/ui/metrics.py",)),
    ("other quizbot code", ("(quizbot/", "(storage/")),
    ("Gradio: routes, queue, event streams", ("(gradio/",)),
    ("Starlette and FastAPI: routing, middleware, responses", ("(starlette/", "(fastapi/")),
    ("uvicorn and h11: HTTP", ("(uvicorn/", "(h11/", "(httptools", "(websockets/")),
    ("pydantic", ("(pydantic",)),
    ("SQLAlchemy", ("(sqlalchemy/", "(sqlmodel/")),
    ("anyio: worker threads", ("(anyio/",)),
)
REST = "the event loop and the standard library alone"
CATEGORIES = (*(name for name, _ in (*CONTAINING, *LAYERS)), REST)


def _function(frame: str) -> str:
    return frame.split(" (", 1)[0].rsplit(".", 1)[-1]


def _category(frames: list[str]) -> str:
    for name, marks in CONTAINING:
        if any(m in f for f in frames for m in marks):
            return name
    for frame in reversed(frames):
        if _function(frame) in _UBIQUITOUS:  # uvicorn's Server.run under every loop stack
            continue
        for name, marks in LAYERS:
            if any(m in frame for m in marks):
                return name
    return REST


@dataclass
class Profile:
    """Samples of one or more processes, split by where they were."""

    total: int = 0
    by_category: Counter[str] = field(default_factory=Counter)
    # outside the containing work (the requests' layers): inclusive per function, the frame
    # sampled, the package of that frame
    outside: Counter[str] = field(default_factory=Counter)
    outside_leaf: Counter[str] = field(default_factory=Counter)
    outside_files: Counter[str] = field(default_factory=Counter)

    def add_file(self, path: Path) -> None:
        """Add the samples of one raw py-spy file."""
        for line in path.read_text(errors="replace").splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            n = int(count)
            frames = stack.split(";")
            self.total += n
            label = _category(frames)
            self.by_category[label] += n
            if label in (name for name, _ in CONTAINING):
                continue
            for f in dict.fromkeys(frames):
                if _function(f) not in _UBIQUITOUS:
                    self.outside[f] += n
            leaf = frames[-1]
            self.outside_leaf[leaf] += n
            where = leaf.rpartition("(")[2].rstrip(")").split(":")[0]
            self.outside_files[where.split("/")[0] if "/" in where else where] += n

    def lines(self, top: int = 25) -> list[str]:
        """The summary, one line each."""
        if not self.total:
            return ["  no samples"]

        def pct(n: int) -> str:
            return f"{100 * n / self.total:5.1f} %"

        result = [f"  samples {self.total:,}, by where they were:"]
        result += [f"    {pct(self.by_category[name])}  {name}" for name in CATEGORIES]
        result.append("  outside the first three, by the package of the sampled frame:")
        result += [f"    {pct(n)}  {name}" for name, n in self.outside_files.most_common(12)]
        result.append("  outside the first three, functions on the stack (inclusive):")
        result += [f"    {pct(n)}  {name}" for name, n in self.outside.most_common(top)]
        result.append("  outside the first three, the sampled frame (self):")
        result += [f"    {pct(n)}  {name}" for name, n in self.outside_leaf.most_common(top)]
        return result
