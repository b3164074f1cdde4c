"""Wall-clock time of everyday CLI commands against the goals of issue 15, in one run.

Each command runs as its own process (as a user runs it: interpreter start, imports, work), in a
temporary QUIZBOT_HOME prepared once (database created, both built-ins installed, HPO's cache
written), so "warm" means what a user sees from the second command on. The commands are
interleaved, ``--repeat`` rounds of each, so all see the same machine load; the medians are
printed with each goal and the load average. The cold cases (a fresh home, the first HPO load)
are timed once, for information.

``--against DIR`` also runs another checkout of quizbot (e.g. ``git archive <rev> | tar -x -C
DIR``) in its own home, interleaved with this one, and prints the ratio of the medians.

``--medlama DIR`` (a MedLAMA folder, e.g. ../shared/data/medlama) imports it into each home and
adds the bulk rows: all 304,000 statements with ``--no-store``, and stored into a copy of the
prepared home made afresh for every run (so every run stores all of them), ``--medlama-repeat``
times each. Each row also gives the CPU time (user + system) of the process: on a shared machine
wall time follows the load, CPU time much less. Usage:

    .venv/bin/python bench/bench_cli.py [--repeat 7] [--against /tmp/quizbot-before]
        [--medlama ../shared/data/medlama --medlama-repeat 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (label, arguments, goal in seconds or None)
CASES: list[tuple[str, list[str], float | None]] = [
    ("quizbot --help", ["--help"], None),
    ("quizbot kb list", ["kb", "list"], 0.5),
    (
        "quizbot generate --kb hpo --points 30 (warm)",
        ["generate", "--kb", "hpo", "--points", "30"],
        2.0,
    ),
    (
        "quizbot generate --kb clinical-core --points 30",
        ["generate", "--kb", "clinical-core", "--points", "30"],
        None,
    ),
]


# Bulk rows (with --medlama): label, arguments, goal in seconds, a fresh copy of the home per run.
MEDLAMA_CASES: list[tuple[str, list[str], float, bool]] = [
    (
        "quizbot generate --kb medlama --no-store",
        ["generate", "--kb", "medlama", "--no-store"],
        3.0,
        False,
    ),
    ("quizbot generate --kb medlama (stored)", ["generate", "--kb", "medlama"], 5.0, True),
]
CPU: dict[tuple[str, str], list[float]] = {}  # CPU seconds of each timed run, by (root, label)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(args: list[str], home: Path, out: Path, root: Path = ROOT, label: str = "") -> float:
    """Seconds one ``quizbot`` process (the code under ``root``) takes; raises if it fails.

    With a ``label``, its CPU time is kept in :data:`CPU`."""
    if args[0] == "generate":
        args = [*args, "--out", str(out)]
    cpu = _children_cpu()
    env = {**os.environ, "QUIZBOT_HOME": str(home), "PYTHONPATH": str(root)}
    env.pop("DATABASE_URL", None)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", "from quizbot.cli import main; main()", *args],
        env=env,
        cwd=root,  # `python -c` puts the working directory first on sys.path
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"quizbot {' '.join(args)} failed:\n{done.stderr}")
    if label:
        CPU.setdefault((str(root), label), []).append(_children_cpu() - cpu)
    return elapsed


def run_fresh(args: list[str], home: Path, out: Path, root: Path, label: str) -> float:
    """:func:`run` in a copy of ``home`` made for this run (removed afterwards)."""
    copy = home.with_name(home.name + "-fresh")
    shutil.copytree(home, copy)
    try:
        return run(args, copy, out, root, label)
    finally:
        shutil.rmtree(copy)


def prepare(home: Path, out: Path, root: Path, medlama: Path | None = None) -> dict[str, float]:
    """Create ``home`` as a user's first commands would; their times, for information."""
    cold = {
        "kb list, fresh home (creates and migrates the database)": run(
            ["kb", "list"], home, out, root
        ),
        "generate --kb hpo --points 30, first time (parse, cache, install)": run(
            ["generate", "--kb", "hpo", "--points", "30"], home, out, root
        ),
    }
    run(["generate", "--kb", "clinical-core", "--points", "30"], home, out, root)  # install it
    if medlama is not None:
        cold["kb import --format medlama (once)"] = run(
            ["kb", "import", "--format", "medlama", str(medlama), "--name", "medlama"],
            home,
            out,
            root,
        )
    return cold


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("--medlama", type=Path, help="a MedLAMA folder: add the bulk rows")
    parser.add_argument("--medlama-repeat", type=int, default=3)
    args = parser.parse_args()
    roots = {"this": ROOT}
    if args.against is not None:
        roots["against"] = args.against.resolve()

    with tempfile.TemporaryDirectory() as tmp:
        load_before = os.getloadavg()
        homes = {name: Path(tmp) / name for name in roots}
        out = Path(tmp) / "items.jsonl"
        cold = {name: prepare(homes[name], out, root, args.medlama) for name, root in roots.items()}
        times: dict[tuple[str, str], list[float]] = {
            (name, label): [] for name in roots for label, _, _ in CASES
        }
        for _ in range(args.repeat):  # interleaved: every command sees the same load
            for label, argv, _goal in CASES:
                for name, root in roots.items():
                    times[(name, label)].append(run(argv, homes[name], out, root, label))
        bulk = MEDLAMA_CASES if args.medlama is not None else []
        for label, _argv, _goal, _fresh in bulk:
            times.update({(name, label): [] for name in roots})
        for _ in range(args.medlama_repeat if bulk else 0):
            for label, argv, _goal, fresh in bulk:
                for name, root in roots.items():
                    timed = run_fresh if fresh else run
                    times[(name, label)].append(timed(argv, homes[name], out, root, label))
        load_after = os.getloadavg()

    print(f"quizbot CLI, {args.repeat} runs each, medians (min-max); cpus: {os.cpu_count()}")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} (1 min)")
    rows = [(label, goal) for label, _argv, goal in CASES]
    if args.medlama is not None:
        rows += [(label, goal) for label, _argv, goal, _fresh in MEDLAMA_CASES]
    for label, goal in rows:
        ts = times[("this", label)]
        median = statistics.median(ts)
        cpu = statistics.median(CPU[(str(ROOT), label)])
        line = f"  {label:<48} {median:6.2f} s ({min(ts):.2f}-{max(ts):.2f}), cpu {cpu:5.2f} s"
        if goal is not None:
            line += f"  goal <= {goal:.1f} s: {'met' if median <= goal else 'NOT MET'}"
        if "against" in roots:
            other = times[("against", label)]
            other_cpu = statistics.median(CPU[(str(roots["against"]), label)])
            line += f"  | against {statistics.median(other):.2f} s, cpu {other_cpu:.2f} s"
            line += f", {statistics.median(other) / median:.1f}x faster"
        print(line)
    print("once, for information:")
    for name, found in cold.items():
        for label, seconds in found.items():
            print(f"  {name:<8} {label:<68} {seconds:6.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
