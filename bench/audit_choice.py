"""Can a student reject a multiple-choice option by organ system alone? Measured on a sample.

    python bench/audit_choice.py [--kb clinical-core] [--seed 5] [--items 50] [--show]
    python bench/audit_choice.py --all [--seed 5]     # every question of the KB

Draws ``--items`` semantic questions (one per sampled point's head and relation) with the default
difficulty and counts, per question, the distractors from another organ system than any the head
involves: such an option can be rejected without knowing the fact. For each such question it says
whether the KB offered anything better: a safe same-system candidate reviewed false by a
clinician (unreviewed same-system candidates are not used before other systems, see
quizbot/generate/candidates.py). The counts are also given per relation. A stricter count follows:
questions with an option not listed (for that relation) by any disease of the head's *own* organ
system, the group of its facts, leaving out the further systems the lexicon gives a multi-system
disease (Addison's disease also counts as rheumatological and dermatological for the generator).
``--all`` asks every question of the KB instead of a sample (one per head and relation) and sums
the strict count over the relations added for open recall (complications, investigations, drug
classes), the older ones, and age groups (for which the organ system says nothing). ``--show``
prints the questions.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict

from quizbot.generate.candidates import CandidatePool
from quizbot.generate.choice import choice_questions
from quizbot.generate.points import candidate_points, stratified
from quizbot.items import ChoiceItem
from quizbot.kb.registry import load_builtin

# The relations added for open recall where the organ system says something (docs/knowledge.md,
# audits r4-r6), and the one where it says nothing.
NEW_RELATIONS = frozenset({"has_complication", "investigated_with", "treated_with_drug_class"})
AGE_GROUPS = "typical_age_group"


def main() -> None:
    """Print the sample's counts (and, with --show, its questions)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", default="clinical-core")
    parser.add_argument("--seed", default="5")
    parser.add_argument("--items", type=int, default=50)
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--all", action="store_true", help="every question, not a sample")
    args = parser.parse_args()
    kb = load_builtin(args.kb)
    pool = CandidatePool(kb)
    own: dict[str, set[str]] = defaultdict(set)  # head -> the groups of its own facts
    listed_in: dict[tuple[str, str], set[str]] = defaultdict(set)  # (relation, tail) -> groups
    for t in kb.triplets:
        if t.group is not None:
            own[t.head].add(t.group)
            listed_in[(t.relation, t.tail)].add(t.group)
    knowledge = pool.knowledge
    items: list[ChoiceItem] = []
    if args.all:
        items = choice_questions(kb, kb.triplets, seed=args.seed, subtypes=("semantic",))
        args.items = len(items)
    else:
        facts = stratified(kb.name, candidate_points(kb), f"choice-audit\x1f{args.seed}")
        for fact in facts:
            if len(items) >= args.items:
                break
            items.extend(choice_questions(kb, [fact], seed=args.seed, subtypes=("semantic",)))
    tiers: Counter[str] = Counter()
    rejectable = nothing_better = 0
    asked: Counter[str] = Counter()
    rejectable_by: Counter[str] = Counter()
    strict_by: Counter[str] = Counter()
    for item in items[: args.items]:
        item_tiers = item.meta["distractor_tiers"]
        tiers.update(item_tiers)
        asked[item.relation] += 1
        away = [t for t in item_tiers if t.startswith("other group")]
        if away:
            rejectable += 1
            rejectable_by[item.relation] += 1
            correct = set(item.meta["correct_tails"]) | set(item.meta["distractors"])
            better = [
                c.tail
                for c in pool.ranked(item.head, item.relation, b"audit")
                if c.tier == "same group, reviewed" and c.tail not in correct
            ]
            nothing_better += not better
        if own[item.head] and any(
            not listed_in[(item.relation, tail)] & own[item.head]
            for tail in item.meta["distractors"]
        ):
            strict_by[item.relation] += 1
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
    for relation, n_asked in sorted(asked.items()):
        print(f"  {relation}: {rejectable_by[relation]} of {n_asked}")
    print(
        f"{sum(strict_by.values())} of {n} have an option no disease of the head's own organ "
        "system lists (the lexicon's further systems of multi-system diseases left out)"
    )
    for relation, n_asked in sorted(asked.items()):
        print(f"  {relation}: {strict_by[relation]} of {n_asked}")

    def kind(relation: str) -> str:
        if relation == AGE_GROUPS:
            return "age groups"
        return "new relations" if relation in NEW_RELATIONS else "old relations"

    for label in ("new relations", "old relations", "age groups"):
        n_kind = sum(n_asked for r, n_asked in asked.items() if kind(r) == label)
        strict = sum(n_strict for r, n_strict in strict_by.items() if kind(r) == label)
        print(f"  {label}: {strict} of {n_kind}")


if __name__ == "__main__":
    main()
