"""How long `quizbot serve` takes from its command to its first answered page, in one run.

A replica that is restarted (or added behind the proxy) serves nobody until it answers, and
every browser test with an app of its own pays the same start. Each start runs `quizbot serve`
as its own process on a free port over a home prepared once (database migrated, the default KB
installed), and times the wall clock until ``GET /`` answers 200 and the process's CPU time
(user + system, from /proc) at that moment: on a shared machine the wall time follows the load,
the CPU time much less. ``--against DIR`` (another checkout, e.g. ``git worktree add DIR REV``)
starts that checkout's quizbot in its own home, interleaved with this one, and prints the ratio
of the medians. Usage (from the repository root):

    .venv/bin/python bench/bench_serve_start.py [--repeat 7] [--against /work/wt-before]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.helpers.net import free_port, stop_process  # noqa: E402

START_BOUND_S = 300.0  # a start that has not answered by then is reported as failed
TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of the process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _env(root: Path, home: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_") and k != "DATABASE_URL"
    }
    env.update(
        {
            "QUIZBOT_HOME": str(home),
            "PYTHONPATH": str(root),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "GRADIO_ANALYTICS_ENABLED": "False",
        }
    )
    return env


def prepare(root: Path, home: Path) -> None:
    """Migrate ``home``'s database with ``root``'s quizbot and start it once (the first start
    installs the default KB; it is not timed)."""
    subprocess.run(
        [sys.executable, "-m", "quizbot", "db", "upgrade"],
        cwd=root,
        env=_env(root, home),
        check=True,
        capture_output=True,
    )
    start_once(root, home, home / "first-start.log")


def start_once(root: Path, home: Path, log: Path) -> tuple[float, float]:
    """Start ``root``'s `quizbot serve`; wall and CPU seconds until ``GET /`` answered."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with log.open("w") as out:
        began = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "quizbot", "serve", "--port", str(port)],
            cwd=root,
            env=_env(root, home),
            stdout=out,
            stderr=out,
        )
        try:
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"quizbot serve exited with {proc.returncode}: see {log}")
                if time.perf_counter() - began > START_BOUND_S:
                    raise RuntimeError(f"no answer within {START_BOUND_S:.0f} s: see {log}")
                try:
                    with urllib.request.urlopen(url, timeout=5) as response:
                        if response.status == 200:
                            break
                except (urllib.error.URLError, OSError):
                    pass
                time.sleep(0.05)
            wall = time.perf_counter() - began
            cpu = _cpu_seconds(proc.pid)
        finally:
            stop_process(proc, 30)
    return wall, cpu


def main() -> int:
    """Run the benchmark; print medians (and ratios with ``--against``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="starts of each checkout")
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    args = parser.parse_args()
    roots = {"this": ROOT}
    if args.against is not None:
        roots["against"] = args.against.resolve()
    work = Path(tempfile.mkdtemp(prefix="quizbot-serve-start-"))
    try:
        for label, root in roots.items():
            prepare(root, work / label)
        times: dict[str, list[tuple[float, float]]] = {label: [] for label in roots}
        loads = []
        for round_ in range(args.repeat):
            for label, root in roots.items():
                loads.append(os.getloadavg()[0])
                wall, cpu = start_once(root, work / label, work / f"{label}-{round_}.log")
                times[label].append((wall, cpu))
                print(
                    f"round {round_ + 1} {label:8} {wall:6.2f} s wall {cpu:6.2f} s CPU", flush=True
                )
        medians = {
            label: (
                statistics.median(w for w, _ in runs),
                statistics.median(c for _, c in runs),
            )
            for label, runs in times.items()
        }
        print(f"\nload average {min(loads):.1f}-{max(loads):.1f}, {args.repeat} starts each")
        for label, (wall, cpu) in medians.items():
            print(f"{label:8} median {wall:6.2f} s wall {cpu:6.2f} s CPU  ({roots[label]})")
        if "against" in medians:
            (w_this, c_this), (w_against, c_against) = medians["this"], medians["against"]
            print(f"this / against: wall {w_this / w_against:.2f}, CPU {c_this / c_against:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
