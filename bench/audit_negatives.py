"""Write a KB's negatives and multiple-choice distractors as CSV, for a clinician to mark.

    python bench/audit_negatives.py --kb clinical-core --seed 11 --out audit.csv
    python bench/audit_negatives.py --same-system has_complication,investigated_with \
        --out same.csv [--min-reviewed 4] [--per-pair 6] [--own-system]
    python bench/audit_negatives.py --score audit-marked.csv
    python bench/audit_negatives.py --record audit.csv --marks m1.csv m2.csv --name r1 \
        --reviewer "..." --into quizbot/kb/data/clinical_review.json

The first form lists, for every point (or ``--points N`` of them), the negative tail the generator
draws and, with ``--choice``, every distractor of the multiple-choice questions, with the tier
each came from and the facts the KB lists for the head (so a reviewer sees what is known). A
reviewer fills ``verdict`` with ``false`` (a safe negative), ``true`` (it is a true fact: a
defect) or ``unsure``; a reviewer may instead list only the rows they mark, in a file of
``row,verdict,reason`` (the fourth form reads those; with several reviewers' files the
stronger verdict of a row holds, true over unsure over false, in any order).

The second form (audits r3, r6) lists, for every (head, relation) of the named relations with
fewer than ``--min-reviewed`` same-system candidates reviewed false, the unreviewed same-system
candidates the generator would consider: safe ones, in its seeded order, plain before
close-neighbour or common ones, up to ``--per-pair`` of them; with ``--own-system`` only those a
disease of the head's own organ system lists, not one of the further systems the lexicon gives
a multi-system disease. Once reviewed false they become multiple choice's plausible options.

The third form prints the share of rows marked ``true``, overall, per relation and per tier, and
the rows themselves. The fourth form records an audit in a KB's review file (every unmarked row
of the audit as reviewed false, marked rows as found true), which ``load_clinical_core`` reads;
docs/knowledge.md records the audits made so far.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

FIELDS = ("row", "kind", "relation", "head", "candidate", "true_tail", "tier", "known", "verdict")


def _export(kb_name: str, seed: str, points: int | None, choice: bool, out: Path) -> int:
    from quizbot.generate.choice import choice_questions
    from quizbot.generate.negatives import NegativeSampler
    from quizbot.generate.points import candidate_points, stratified
    from quizbot.kb.registry import load_builtin

    kb = load_builtin(kb_name)
    facts = candidate_points(kb)
    if points is not None:
        facts = stratified(kb.name, facts, f"audit\x1f{seed}")[:points]
    known: dict[str, list[str]] = defaultdict(list)
    for t in kb.triplets:
        known[t.head].append(f"{t.relation}: {t.tail}")
    sampler = NegativeSampler(kb, seed)
    rows: list[dict[str, str]] = []
    for fact in facts:
        chosen = sampler.choose(fact)
        if chosen is not None:
            rows.append(
                {
                    "kind": "negative",
                    "relation": fact.relation,
                    "head": fact.head,
                    "candidate": chosen.tail,
                    "true_tail": fact.tail,
                    "tier": chosen.tier,
                }
            )
    if choice:
        for item in choice_questions(kb, facts, seed=seed, subtypes=("semantic",)):
            for tail, tier in zip(
                item.meta["distractors"], item.meta["distractor_tiers"], strict=True
            ):
                rows.append(
                    {
                        "kind": "distractor",
                        "relation": item.relation,
                        "head": item.head,
                        "candidate": tail,
                        "true_tail": "; ".join(item.meta["correct_tails"]),
                        "tier": tier,
                    }
                )
    _write(rows, known, out)
    return len(rows)


def _same_system(
    kb_name: str,
    relations: list[str],
    min_reviewed: int,
    per_pair: int,
    out: Path,
    own_system: bool = False,
) -> tuple[int, int]:
    """Write unreviewed same-system candidates of thin (head, relation) pairs; (pairs, rows).

    ``own_system`` keeps only candidates some disease of the head's *own* system lists (the
    group of its facts), leaving out the lexicon's further systems of multi-system diseases.
    """
    from quizbot.generate.candidates import CandidatePool
    from quizbot.kb.registry import load_builtin

    kb = load_builtin(kb_name)
    unknown = set(relations) - set(kb.relations)
    if unknown:
        raise SystemExit(f"{kb_name} has no relation {sorted(unknown)}")
    pool = CandidatePool(kb)
    known: dict[str, list[str]] = defaultdict(list)
    for t in kb.triplets:
        known[t.head].append(f"{t.relation}: {t.tail}")
    own: dict[str, set[str]] = defaultdict(set)
    listed_in: dict[tuple[str, str], set[str]] = defaultdict(set)
    for t in kb.triplets:
        if t.group is not None:
            own[t.head].add(t.group)
            listed_in[(t.relation, t.tail)].add(t.group)
    pairs = sorted({(t.head, t.relation) for t in kb.triplets if t.relation in relations})
    rows: list[dict[str, str]] = []
    thin = 0
    for head, relation in pairs:
        same: list[tuple[str, str]] = []
        same_reviewed = 0
        key = f"same-system-audit\x1f{head}\x1f{relation}".encode()
        for candidate in pool.ranked(head, relation, key):
            if own_system and not listed_in[(relation, candidate.tail)] & own[head]:
                continue
            if candidate.tier == "same group, reviewed":
                same_reviewed += 1
            elif candidate.tier.startswith("same group"):
                same.append((candidate.tail, candidate.tier))
        if same_reviewed >= min_reviewed or not same:
            continue
        thin += 1
        # plain before close-neighbour or common, each in the generator's seeded order
        same.sort(key=lambda c: c[1] != "same group")
        for tail, tier in same[:per_pair]:
            rows.append(
                {
                    "kind": "same-system",
                    "relation": relation,
                    "head": head,
                    "candidate": tail,
                    "true_tail": "; ".join(pool.tails(head, relation)),
                    "tier": tier,
                }
            )
    _write(rows, known, out)
    return thin, len(rows)


def _write(rows: list[dict[str, str]], known: dict[str, list[str]], out: Path) -> None:
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, FIELDS)
        writer.writeheader()
        for number, row in enumerate(rows, 1):
            listed = "; ".join(known[row["head"]])
            writer.writerow({**row, "row": str(number), "known": listed, "verdict": ""})


def _score(path: Path) -> None:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    marked = [r for r in rows if r.get("verdict", "").strip()]
    true = [r for r in marked if r["verdict"].strip().lower() == "true"]
    unsure = [r for r in marked if r["verdict"].strip().lower() == "unsure"]
    print(f"{len(marked)} of {len(rows)} rows marked; {len(true)} true, {len(unsure)} unsure")
    if marked:
        print(f"true share: {len(true) / len(marked):.2%}")
    for key in ("kind", "relation", "tier"):
        totals = Counter(r[key] for r in marked)
        bad = Counter(r[key] for r in true)
        for value, n in sorted(totals.items()):
            print(f"  {key}={value}: {bad[value]}/{n} true ({bad[value] / n:.2%})")
    for r in true:
        print(f"  TRUE: {r['head']} | {r['relation']} | {r['candidate']} ({r['tier']})")


def _read_marks(paths: list[Path]) -> dict[str, tuple[str, str]]:
    marks: dict[str, tuple[str, str]] = {}
    for path in paths:
        with path.open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                verdict = row["verdict"].strip().lower()
                if verdict not in {"true", "unsure", "false"}:
                    raise SystemExit(f"{path}: row {row['row']}: unknown verdict {verdict!r}")
                key, reason = row["row"].strip(), row.get("reason", "").strip()
                before = marks.get(key)
                if before is None or _STRENGTH[verdict] > _STRENGTH[before[0]]:
                    marks[key] = (verdict, reason)  # two reviewers: the stronger verdict holds
                elif before[0] == verdict and reason and reason not in before[1]:
                    marks[key] = (verdict, f"{before[1]} / {reason}" if before[1] else reason)
    return marks


_STRENGTH = {"false": 0, "unsure": 1, "true": 2}


def _record(audit: Path, mark_files: list[Path], name: str, reviewer: str, into: Path) -> None:
    with audit.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    marks = _read_marks(mark_files)
    unknown = set(marks) - {r["row"] for r in rows}
    if unknown:
        raise SystemExit(f"marks name rows the audit does not have: {sorted(unknown)[:5]}")
    data: dict[str, Any] = (
        json.loads(into.read_text("utf-8")) if into.exists() else {"version": "1"}
    )
    false = {tuple(f) for f in data.get("false", [])}
    true = {(t["head"], t["relation"], t["tail"]): t for t in data.get("true", [])}
    counts: Counter[str] = Counter()
    for row in rows:
        fact = (row["head"], row["relation"], row["candidate"])
        verdict, reason = marks.get(row["row"], ("false", ""))
        counts[verdict] += 1
        if verdict == "false":
            false.add(fact)
        elif fact not in true:
            true[fact] = {
                "head": fact[0],
                "relation": fact[1],
                "tail": fact[2],
                "verdict": verdict,
                "reason": reason,
                "audit": name,
            }
    audits = [a for a in data.get("audits", []) if a.get("name") != name]
    audits.append(
        {
            "name": name,
            "file": str(audit),
            "rows": len(rows),
            "reviewer": reviewer,
            **{k: counts[k] for k in ("false", "true", "unsure")},
        }
    )
    data["audits"] = audits
    data["false"] = sorted(list(f) for f in false - set(true))
    data["true"] = sorted(true.values(), key=lambda t: (t["head"], t["relation"], t["tail"]))
    into.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"recorded {name}: {dict(counts)} into {into}")


def main() -> None:
    """Export an audit file, or score a marked one."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", default="clinical-core")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--points", type=int)
    parser.add_argument("--choice", action="store_true", help="also list MC distractors")
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--same-system", help="comma-separated relations: list unreviewed same-system candidates"
    )
    parser.add_argument("--min-reviewed", type=int, default=4)
    parser.add_argument("--per-pair", type=int, default=6)
    parser.add_argument(
        "--own-system",
        action="store_true",
        help="with --same-system: only candidates a disease of the head's own system lists",
    )
    parser.add_argument("--score", type=Path, help="a marked audit file to summarise")
    parser.add_argument("--record", type=Path, help="an exported audit file to record")
    parser.add_argument("--marks", type=Path, nargs="*", default=[], help="row,verdict,reason")
    parser.add_argument("--name", default="audit")
    parser.add_argument("--reviewer", default="")
    parser.add_argument("--into", type=Path, help="the review JSON file to update")
    args = parser.parse_args()
    if args.record is not None:
        if args.into is None:
            parser.error("--record needs --into FILE")
        _record(args.record, args.marks, args.name, args.reviewer, args.into)
    elif args.score is not None:
        _score(args.score)
    elif args.out is not None and args.same_system:
        relations = [r.strip() for r in args.same_system.split(",") if r.strip()]
        thin, n = _same_system(
            args.kb, relations, args.min_reviewed, args.per_pair, args.out, args.own_system
        )
        print(f"wrote {n} rows for {thin} thin (head, relation) pairs to {args.out}")
    elif args.out is not None:
        n = _export(args.kb, args.seed, args.points, args.choice, args.out)
        print(f"wrote {n} rows to {args.out}")
    else:
        parser.error("give --out FILE or --score FILE")
        sys.exit(2)


if __name__ == "__main__":
    main()
