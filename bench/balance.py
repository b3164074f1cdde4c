"""True/false balance inside each wording of a full generation (issue 24).

Generates every statement of a KB the way ``quizbot generate`` does (negatives planned by
:func:`quizbot.generate.statements.plan_generation`, statements ``balanced``) and prints, per
transform, the share of true statements, and how many points were left out or had their negative
redrawn. ``--dropped`` shows the old behaviour for comparison (a duplicate negative dropped, points
without a negative stated on their true side only). Usage:

    .venv/bin/python bench/balance.py [--kb clinical-core|hpo] [--seed S] [--dropped]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from quizbot.generate.negatives import NegativeSampler  # noqa: E402
from quizbot.generate.points import candidate_points  # noqa: E402
from quizbot.generate.prototypes import default_prototypes  # noqa: E402
from quizbot.generate.statements import plan_for, plan_generation, statements  # noqa: E402
from quizbot.kb.model import KnowledgeBaseData  # noqa: E402


def load(name: str) -> KnowledgeBaseData:
    """The built-in KB ``name``."""
    if name == "hpo":
        from quizbot.kb.hpo import load_hpo

        return load_hpo()
    from quizbot.kb.clinical import load_clinical_core

    return load_clinical_core()


def main(argv: list[str] | None = None) -> int:
    """Print the share of true statements per transform."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--kb", default="clinical-core", choices=["clinical-core", "hpo"])
    parser.add_argument("--seed", default="0")
    parser.add_argument("--dropped", action="store_true", help="the old planning, for comparison")
    args = parser.parse_args(argv)
    kb = load(args.kb)
    prototypes = default_prototypes()
    facts = [f for f in candidate_points(kb) if prototypes.covers(f.relation)]
    sampler = NegativeSampler(kb, args.seed)
    if args.dropped:
        plans = [plan_for(sampler, f) for f in facts]
    else:
        plans = plan_generation(sampler, facts)
    true: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for item in statements(kb, plans, prototypes, balanced=not args.dropped):
        name = item.transform.value
        total[name] += 1
        true[name] += item.label
    print(f"{args.kb} seed {args.seed}: {len(facts):,} points, {sum(total.values()):,} statements")
    print(f"  points without a safe negative: {sum(p.negative_tail is None for p in plans):,}")
    for name in sorted(total):
        print(
            f"  {name:<12} {true[name]:>7,} / {total[name]:>7,} true = "
            f"{100 * true[name] / total[name]:.2f}%"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
