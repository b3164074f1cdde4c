"""The whole test suite's time, before and after, like for like (issue 27).

Two checkouts' suites run at the same time on this machine (so both see the same load), each as
``.ci/run`` runs it (``-n auto``, PostgreSQL, Chromium, nginx, the local model and the interop
tools required), each with a JUnit file that holds every test's set-up, call and tear-down time.
The comparison keeps the tests that passed in both runs, by the same id, and prints the ratio of
their summed times, overall and per folder; the wall times are printed too but are not like for
like when the two runs hold different tests.

    # two checkouts, e.g. before = git worktree add /work/wt-before f813fb6
    .venv/bin/python bench/suite_time.py run /work/wt-before /work/main --out /work/suite
    # or one after the other, each alone on a quiet machine (here the after suite runs first)
    .venv/bin/python bench/suite_time.py run /work/wt-before /work/main --in-turn --after-first
    # or compare two JUnit files made earlier
    .venv/bin/python bench/suite_time.py compare before.xml after.xml

The venv is this checkout's ``.venv`` (``--venv`` to change); a checkout's own code is the one
tested (pytest runs from its root). A run takes as long as the slower suite (about 80 minutes
for two suites side by side on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

REQUIRED = {
    "QUIZBOT_REQUIRE_POSTGRES": "1",
    "QUIZBOT_REQUIRE_BROWSER": "1",
    "QUIZBOT_REQUIRE_LOCAL_MODEL": "1",
    "QUIZBOT_REQUIRE_NGINX": "1",
    "QUIZBOT_REQUIRE_INTEROP": "1",
}


@dataclass(frozen=True)
class Case:
    """One test of a JUnit file: its id, whether it passed, and its time in seconds."""

    test_id: str
    passed: bool
    seconds: float


def read_junit(path: Path) -> dict[str, Case]:
    """Every test case of the JUnit file ``path`` by id (``tests/ui/test_x.py::test_y[sqlite]``)."""
    cases: dict[str, Case] = {}
    for element in ET.parse(path).getroot().iter("testcase"):
        classname = element.get("classname", "")
        name = element.get("name", "")
        parts = classname.split(".")
        # pytest writes "tests.ui.test_x" (or "tests.ui.test_x.TestClass"): the module is the
        # last part that starts with "test_"; a class after it belongs to the id.
        modules = [i for i, part in enumerate(parts) if part.startswith("test_")]
        cut = modules[0] + 1 if modules else len(parts)
        test_id = "/".join(parts[:cut]) + ".py::" + "::".join([*parts[cut:], name])
        failed = any(child.tag in ("failure", "error", "skipped") for child in element)
        cases[test_id] = Case(test_id, not failed, float(element.get("time", "0") or 0))
    return cases


def folder_of(test_id: str) -> str:
    """The test's folder under ``tests/`` (``tests/ui``), or the file for a top-level test."""
    path = test_id.split("::", 1)[0]
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else path


def compare(before: dict[str, Case], after: dict[str, Case]) -> str:
    """A report: the summed times of the tests that passed in both, overall and by folder."""
    common = sorted(k for k in before.keys() & after.keys() if before[k].passed and after[k].passed)
    lines = [
        f"before: {len(before)} tests, {sum(not c.passed for c in before.values())} not passed,"
        f" {sum(c.seconds for c in before.values()):.0f} s of test time",
        f"after:  {len(after)} tests, {sum(not c.passed for c in after.values())} not passed,"
        f" {sum(c.seconds for c in after.values()):.0f} s of test time",
    ]
    if not common:
        lines.append("no test passed in both runs: nothing to compare")
        return "\n".join(lines)
    total_b = sum(before[k].seconds for k in common)
    total_a = sum(after[k].seconds for k in common)
    lines.append(
        f"passed in both: {len(common)} tests, {total_b:.0f} s -> {total_a:.0f} s,"
        f" after/before {total_a / total_b:.2f}"
    )
    by_folder: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for key in common:
        row = by_folder[folder_of(key)]
        row[0] += 1
        row[1] += before[key].seconds
        row[2] += after[key].seconds
    lines.append(f"{'folder':<28} {'tests':>6} {'before s':>9} {'after s':>9} {'ratio':>6}")
    for folder, (count, b, a) in sorted(by_folder.items(), key=lambda kv: -kv[1][1]):
        ratio = f"{a / b:.2f}" if b else "-"
        lines.append(f"{folder:<28} {int(count):>6} {b:>9.0f} {a:>9.0f} {ratio:>6}")
    return "\n".join(lines)


def _load() -> str:
    return Path("/proc/loadavg").read_text(encoding="ascii").split()[0]


def run(
    checkouts: list[Path],
    venv: Path,
    out: Path,
    workers: str,
    in_turn: bool = False,
    after_first: bool = False,
) -> int:
    """Run each checkout's suite at the same time (or, ``in_turn``, one after the other, each
    alone on the machine, the last one first with ``after_first``); print the wall times and
    the comparison of the first checkout (before) with the last (after)."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **REQUIRED, "CI": "true"}
    junits = [out / f"run{index}.xml" for index in range(len(checkouts))]

    def start(index: int) -> tuple[subprocess.Popen[bytes], float]:
        log = (out / f"run{index}.log").open("w", encoding="utf-8")
        cmd = [str(venv / "bin" / "python"), "-m", "pytest", "-p", "no:cacheprovider", "-q"]
        cmd += ["-n", workers, f"--junitxml={junits[index]}"]
        proc = subprocess.Popen(
            cmd,
            cwd=checkouts[index],
            env={**env, "PYTHONPATH": str(checkouts[index])},  # the checkout's code, not the venv's
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()  # the child holds its own copy
        return proc, time.monotonic()

    def finish(index: int, proc: subprocess.Popen[bytes], since: float) -> None:
        code = proc.wait()
        minutes = (time.monotonic() - since) / 60
        print(
            f"{checkouts[index]}: exit {code} after {minutes:.1f} min"
            f"{' alone' if in_turn else ''}, load average {_load()}",
            flush=True,
        )

    if in_turn:
        order = range(len(checkouts))
        for index in reversed(order) if after_first else order:
            print(f"starting {checkouts[index]}, load average {_load()}", flush=True)
            finish(index, *start(index))
    else:
        started = [start(index) for index in range(len(checkouts))]
        print(f"started {len(started)} suites, load average {_load()}", flush=True)
        for index, (proc, since) in enumerate(started):
            finish(index, proc, since)
    reports = [read_junit(junit) for junit in junits]
    print(compare(reports[0], reports[-1]))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line: ``run BEFORE AFTER`` or ``compare BEFORE.xml AFTER.xml``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run_p = sub.add_parser("run", help="run two checkouts' suites side by side")
    run_p.add_argument("before", type=Path)
    run_p.add_argument("after", type=Path)
    run_p.add_argument("--venv", type=Path, default=ROOT / ".venv")
    run_p.add_argument("--out", type=Path, default=Path("suite-time"))
    run_p.add_argument("--workers", default="auto", help="pytest -n for each suite")
    run_p.add_argument(
        "--in-turn",
        action="store_true",
        help="one suite after the other, each alone on the machine (a quiet machine's figures)",
    )
    run_p.add_argument(
        "--after-first", action="store_true", help="with --in-turn, run the after suite first"
    )
    cmp_p = sub.add_parser("compare", help="compare two JUnit files")
    cmp_p.add_argument("before", type=Path)
    cmp_p.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "compare":
        for path in (args.before, args.after):
            if not path.is_file():
                print(f"error: {path}: no such file", file=sys.stderr)
                return 2
        print(compare(read_junit(args.before), read_junit(args.after)))
        return 0
    for path in (args.before, args.after):
        if not (path / "pyproject.toml").is_file():
            print(f"error: {path}: not a quizbot checkout (no pyproject.toml)", file=sys.stderr)
            return 2
    return run(
        [args.before, args.after],
        args.venv,
        args.out,
        args.workers,
        args.in_turn,
        args.after_first,
    )


if __name__ == "__main__":
    sys.exit(main())
