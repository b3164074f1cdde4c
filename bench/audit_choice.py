"""Can a student reject a multiple-choice option by organ system alone? Measured on a sample.

    python bench/audit_choice.py [--kb clinical-core] [--seed 5] [--items 50] [--show]

Draws ``--items`` semantic questions (one per sampled point's head and relation) with the default
difficulty and counts, per question, the distractors from another organ system than any the head
involves: such an option can be rejected without knowing the fact. For each such question it says
whether the KB offered anything better: a safe same-system candidate reviewed false by a
clinician (unreviewed same-system candidates are not used before other systems, see
quizbot/generate/candidates.py). ``--show`` prints the questions.
"""

from __future__ import annotations

import argparse
from collections import Counter

from quizbot.generate.candidates import CandidatePool
from quizbot.generate.choice import choice_questions
from quizbot.generate.points import candidate_points, stratified
from quizbot.kb.registry import load_builtin


def main() -> None:
    """Print the sample's counts (and, with --show, its questions)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", default="clinical-core")
    parser.add_argument("--seed", default="5")
    parser.add_argument("--items", type=int, default=50)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    kb = load_builtin(args.kb)
    pool = CandidatePool(kb)
    knowledge = pool.knowledge
    facts = stratified(kb.name, candidate_points(kb), f"choice-audit\x1f{args.seed}")
    items = []
    for fact in facts:
        if len(items) >= args.items:
            break
        items.extend(choice_questions(kb, [fact], seed=args.seed, subtypes=("semantic",)))
    tiers: Counter[str] = Counter()
    rejectable = nothing_better = 0
    for item in items[: args.items]:
        item_tiers = item.meta["distractor_tiers"]
        tiers.update(item_tiers)
        away = [t for t in item_tiers if t.startswith("other group")]
        if away:
            rejectable += 1
            correct = set(item.meta["correct_tails"]) | set(item.meta["distractors"])
            better = [
                c.tail
                for c in pool.ranked(item.head, item.relation, b"audit")
                if c.tier == "same group, reviewed" and c.tail not in correct
            ]
            nothing_better += not better
        if args.show:
            groups = ", ".join(sorted(knowledge.groups(item.head))) or "-"
            print(f"\n[{item.relation}] {item.question}  (systems: {groups})")
            for letter, option in zip("ABCDEFGHIJ", item.options, strict=False):
                mark = "*" if letter in item.answer_keys else " "
                tier = ""
                if option in item.meta["distractors"]:
                    tier = item_tiers[item.meta["distractors"].index(option)]
                print(f"  {mark} {letter}. {option}  {tier}")
    n = min(len(items), args.items)
    print(f"{n} questions; distractor tiers: {dict(tiers)}")
    print(
        f"{rejectable} of {n} have an option from another organ system; in {nothing_better} of "
        "them the KB had no reviewed same-system candidate left"
    )


if __name__ == "__main__":
    main()
