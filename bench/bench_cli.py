"""Wall-clock time of everyday CLI commands against the goals of issue 15, in one run.

Each command runs as its own process (as a user runs it: interpreter start, imports, work), in a
temporary QUIZBOT_HOME prepared once (database created, both built-ins installed, HPO's cache
written), so "warm" means what a user sees from the second command on. The commands are
interleaved, ``--repeat`` rounds of each, so all see the same machine load; the medians are
printed with each goal and the load average. The cold cases (a fresh home, the first HPO load)
are timed once, for information.

``--against DIR`` also runs another checkout of quizbot (e.g. ``git archive <rev> | tar -x -C
DIR``) in its own home, interleaved with this one, and prints the ratio of the medians. Usage:

    .venv/bin/python bench/bench_cli.py [--repeat 7] [--against /tmp/quizbot-before]
"""

from __future__ import annotations

import argparse
import os
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


def run(args: list[str], home: Path, out: Path, root: Path = ROOT) -> float:
    """Seconds one ``quizbot`` process (the code under ``root``) takes; raises if it fails."""
    if args[0] == "generate":
        args = [*args, "--out", str(out)]
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
    return elapsed


def prepare(home: Path, out: Path, root: Path) -> dict[str, float]:
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
    return cold


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    args = parser.parse_args()
    roots = {"this": ROOT}
    if args.against is not None:
        roots["against"] = args.against.resolve()

    with tempfile.TemporaryDirectory() as tmp:
        load_before = os.getloadavg()
        homes = {name: Path(tmp) / name for name in roots}
        out = Path(tmp) / "items.jsonl"
        cold = {name: prepare(homes[name], out, root) for name, root in roots.items()}
        times: dict[tuple[str, str], list[float]] = {
            (name, label): [] for name in roots for label, _, _ in CASES
        }
        for _ in range(args.repeat):  # interleaved: every command sees the same load
            for label, argv, _goal in CASES:
                for name, root in roots.items():
                    times[(name, label)].append(run(argv, homes[name], out, root))
        load_after = os.getloadavg()

    print(f"quizbot CLI, {args.repeat} runs each, medians (min-max); cpus: {os.cpu_count()}")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} (1 min)")
    for label, _argv, goal in CASES:
        ts = times[("this", label)]
        median = statistics.median(ts)
        line = f"  {label:<48} {median:6.2f} s ({min(ts):.2f}-{max(ts):.2f})"
        if goal is not None:
            line += f"  goal <= {goal:.1f} s: {'met' if median <= goal else 'NOT MET'}"
        if "against" in roots:
            other = times[("against", label)]
            line += f"  | against {statistics.median(other):.2f} s"
            line += f", {statistics.median(other) / median:.1f}x faster"
        print(line)
    print("once, for information:")
    for name, found in cold.items():
        for label, seconds in found.items():
            print(f"  {name:<8} {label:<68} {seconds:6.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
