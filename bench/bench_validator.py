"""How well the rephrasing validator separates faithful rewordings from corrupted ones.

Reads the hand-written rewordings in ``tests/generate/data/rewordings.jsonl`` (or ``--data``),
judges each with :func:`quizbot.generate.rephrase.validate_rephrasing`, and prints the share of
faithful rewordings accepted and of corrupted ones rejected: overall, per kind and per
transform, then the faithful rewordings rejected and the corrupted ones accepted. Usage:

    .venv/bin/python bench/bench_validator.py [--data FILE] [--quiet]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from quizbot.generate.rephrase import validate_rephrasing  # noqa: E402

DATA = ROOT / "tests" / "generate" / "data" / "rewordings.jsonl"


def judge(record: dict[str, object]) -> tuple[bool, str]:
    """The validator's decision on one record: (accepted, reason)."""
    verdict = validate_rephrasing(
        str(record["original"]),
        str(record["candidate"]),
        head=str(record["head"]),
        tail=str(record["tail"]),
        negated=bool(record["negated"]),
        synonyms=record.get("synonyms"),  # type: ignore[arg-type]
    )
    return verdict.ok, verdict.reason


def _rate(right: int, total: int) -> str:
    return f"{right / total:7.1%} ({right}/{total})" if total else "      -"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--quiet", action="store_true", help="rates only, no list of misses")
    args = parser.parse_args()
    records = [json.loads(line) for line in args.data.read_text("utf-8").splitlines() if line]
    # (faithful?, group) -> [right, total]
    tally: dict[tuple[bool, str], list[int]] = defaultdict(lambda: [0, 0])
    misses: list[tuple[dict[str, object], str]] = []
    started = time.perf_counter()
    for record in records:
        accepted, reason = judge(record)
        faithful = bool(record["faithful"])
        right = accepted == faithful
        for group in ("all", f"kind {record['kind']}", f"transform {record['transform']}"):
            tally[(faithful, group)][0] += right
            tally[(faithful, group)][1] += 1
        if not right:
            misses.append((record, reason))
    elapsed = time.perf_counter() - started
    print(f"{len(records)} rewordings judged in {elapsed * 1000:.0f} ms")
    print(f"{'group':<28}{'faithful accepted':>24}{'corrupted rejected':>26}")
    groups = sorted({group for _, group in tally}, key=lambda g: (g != "all", g))
    for group in groups:
        print(f"{group:<28}{_rate(*tally[(True, group)]):>24}{_rate(*tally[(False, group)]):>26}")
    if not args.quiet:
        for faithful, title in ((True, "faithful but rejected"), (False, "corrupted but accepted")):
            chosen = [(r, why) for r, why in misses if bool(r["faithful"]) == faithful]
            print(f"\n{title}: {len(chosen)}")
            for record, why in chosen:
                print(f"  [{record['kind']}] {record['candidate']}\n      <- {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
