"""Multiple choice without tells (issue 24): how many options are right, stems that name a key,
distractors of only other organ systems, and questions skipped.

Generates the semantic multiple-choice questions of a KB the way ``quizbot generate --format
choice`` does and prints the distribution of the number of right options and of options, the
stems that name a key or a word of it, the questions whose distractors all come from other groups,
and the skip count by reason. Usage:

    .venv/bin/python bench/choice_tells.py [--kb clinical-core|hpo] [--points N] [--seed S]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from quizbot.generate.candidates import CandidatePool  # noqa: E402
from quizbot.generate.choice import choice_questions, stem_names  # noqa: E402
from quizbot.generate.points import candidate_points, stratified  # noqa: E402
from quizbot.items import I_DO_NOT_KNOW, ChoiceItem  # noqa: E402
from quizbot.kb.model import KnowledgeBaseData  # noqa: E402


def load(name: str) -> KnowledgeBaseData:
    """The built-in KB ``name``."""
    if name == "hpo":
        from quizbot.kb.hpo import load_hpo

        return load_hpo()
    from quizbot.kb.clinical import load_clinical_core

    return load_clinical_core()


def main(argv: list[str] | None = None) -> int:
    """Print the tells of one generation of multiple-choice questions."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--kb", default="clinical-core", choices=["clinical-core", "hpo"])
    parser.add_argument("--points", type=int, default=None, help="stratified sample of points")
    parser.add_argument("--seed", default="0")
    args = parser.parse_args(argv)
    kb = load(args.kb)
    facts = candidate_points(kb)
    if args.points is not None:
        facts = stratified(kb.name, facts, f"seed\x1f{args.seed}", limit=args.points)
    skipped: Counter[str] = Counter()
    items = choice_questions(kb, facts, seed=args.seed, subtypes=("semantic",), skipped=skipped)
    n = len(items)
    rights = Counter(len(i.answer_keys) for i in items)
    sizes = Counter(len([o for o in i.options if o != I_DO_NOT_KNOW]) for i in items)
    named = [i for i in items if any(stem_names(i.head, t) for t in i.meta["correct_tails"])]
    knowledge = CandidatePool(kb).knowledge

    def implausible(item: ChoiceItem) -> bool:
        """A head without groups and no distractor of a group of a right option (the rule of
        quizbot.generate.choice._distractors)."""
        if knowledge.groups(item.head):
            return False
        aim = frozenset().union(*map(knowledge.groups, item.meta["correct_tails"]))
        return bool(aim) and not any(knowledge.groups(d) & aim for d in item.meta["distractors"])

    far = [i for i in items if implausible(i)]
    print(f"{args.kb} seed {args.seed}: {len(facts):,} points, {n:,} questions")
    print(
        "  right options: "
        + ", ".join(f"{k}: {rights[k]} ({100 * rights[k] / n:.1f}%)" for k in sorted(rights))
    )
    print(
        "  options (besides 'I do not know'): "
        + ", ".join(f"{k}: {sizes[k]}" for k in sorted(sizes))
    )
    print(f"  largest share of one count: {100 * max(rights.values()) / n:.1f}%")
    print(f"  stems naming a key or a word of it: {len(named)}")
    for item in named[:5]:
        print(f"    {item.question} -> {item.meta['correct_tails']}")
    print(f"  no plausible distractor (none of the head's or right options' groups): {len(far)}")
    print(
        f"  skipped: {sum(skipped.values())}"
        + "".join(f"; {reason} {count}" for reason, count in skipped.most_common())
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
