"""The rephrasing validator on the PretexEval authors' real rephrasings, tune and held-back parts.

Reads ``../shared/data/pretexeval/rephrasings_{real,corrupt}_dev.jsonl`` (split by head, see
:mod:`quizbot.generate.rephrase.dev_data`), judges every candidate with
:func:`quizbot.generate.rephrase.validate_rephrasing` and prints, per part, the share of faithful
rephrasings accepted and of corruptions and meaning changes rejected, per corruption kind, and the
rejection categories of faithful ones. ``--held-back`` adds the held-back part (measure it once,
at the end). ``--show`` lists the mistakes of the *tune* part. ``--show-held`` lists the held-back
part's mistakes too: that part was measured seven times and was *spent in the eighth round* (it
became tuning material then and is no longer a held-out measure; see docs/knowledge.md). Usage:

    .venv/bin/python bench/rephrase_validator.py [--data DIR] [--show] [--held-back] [--show-held]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from quizbot.generate.rephrase import validate_rephrasing  # noqa: E402
from quizbot.generate.rephrase.dev_data import (  # noqa: E402
    HELD,
    TUNE,
    DevCase,
    default_dir,
    load_cases,
)


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} = {100 * hits / total:.1f}%" if total else "0/0"


def report(cases: list[DevCase], part: str, *, show: bool, show_held: bool = False) -> None:
    """Print the rates of one part (and, with ``show``, its mistakes)."""
    mine = [c for c in cases if c.part == part]
    accepted = {
        id(c): validate_rephrasing(
            c.statement, c.candidate, head=c.head, tail=c.tail, negated=c.negated
        )
        for c in mine
    }
    faithful = [c for c in mine if c.expect == "accept"]
    bad = [c for c in mine if c.expect == "reject"]
    ok_f = sum(accepted[id(c)].ok for c in faithful)
    ok_b = sum(not accepted[id(c)].ok for c in bad)
    print(f"== {part}: {len({c.head for c in mine})} heads")
    print(f"  faithful accepted            {_rate(ok_f, len(faithful))}")
    print(f"  corruptions/changed rejected {_rate(ok_b, len(bad))}")
    kinds = Counter(c.kind for c in bad)
    for kind in sorted(kinds):
        caught = sum(not accepted[id(c)].ok for c in bad if c.kind == kind)
        print(f"    {kind:<16} {_rate(caught, kinds[kind])}")
    why = Counter(accepted[id(c)].category for c in faithful if not accepted[id(c)].ok)
    if why:
        print("  faithful rejected by: " + ", ".join(f"{k} {n}" for k, n in why.most_common()))
    if (show and part == TUNE) or (show_held and part == HELD):
        for c in faithful:
            if not accepted[id(c)].ok:
                print(
                    f"  REJECTED faithful [{accepted[id(c)].reason}]\n    S: {c.statement}\n"
                    f"    C: {c.candidate}"
                )
        for c in bad:
            if accepted[id(c)].ok:
                print(f"  ACCEPTED {c.kind}\n    S: {c.statement}\n    C: {c.candidate}")


def main(argv: list[str] | None = None) -> int:
    """Print the rates of the tune and the held-back part."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", type=Path, default=default_dir())
    parser.add_argument("--show", action="store_true", help="list the tune part's mistakes")
    parser.add_argument(
        "--held-back",
        action="store_true",
        help="also measure the held-back part",
    )
    parser.add_argument(
        "--show-held",
        action="store_true",
        help="list the held-back part's mistakes (spent in the eighth round; implies --held-back)",
    )
    args = parser.parse_args(argv)
    if not (args.data / "rephrasings_real_dev.jsonl").exists():
        print(f"no data in {args.data}", file=sys.stderr)
        return 1
    cases = load_cases(args.data)
    for part in (TUNE, HELD) if args.held_back or args.show_held else (TUNE,):
        report(cases, part, show=args.show, show_held=args.show_held)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
