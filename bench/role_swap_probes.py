"""Mechanical role swaps: every faithful rewording with its head and tail exchanged.

For every faithful rephrasing of the *tune* part of the PretexEval dev files (never the
held-back part), of our probes (``bench/rephrase_probes.py``), of the hand-written rewordings
(``tests/generate/data/rewordings.jsonl``) and, with ``--generated``, for every statement of a
clinical-core generation (seed 0) itself, the head and tail mentions the validator's entity
matching finds are exchanged, each in the surface form the sentence gave the other one, and the
result is judged as a rephrasing of the statement. A swap should be rejected, unless the
statement's predicate is symmetric ("associated with"): those are counted apart. Usage:

    .venv/bin/python bench/role_swap_probes.py [--generated [--every N]] [--show]
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from quizbot.generate.rephrase import negation_cues, validate_rephrasing  # noqa: E402
from quizbot.generate.rephrase.dev_data import TUNE, load_cases  # noqa: E402
from quizbot.generate.rephrase.reading import (  # noqa: E402
    mask_entities,
    names_of,
    normalise,
)
from quizbot.generate.voice import predicate_reading  # noqa: E402

Synonyms = dict[str, list[str]] | None
# statement, faithful candidate, head, tail, negated, synonyms
Row = tuple[str, str, str, str, bool, Synonyms]


def _case(text: str, first: bool, name: str) -> str:
    if first:
        return text[:1].upper() + text[1:]
    if _ARTICLE_START.match(text):
        return text[:1].lower() + text[1:]
    if text[:1].isupper() and not text[1:2].isupper() and not name[:1].isupper():
        return text[:1].lower() + text[1:]
    return text


# words that label an entity and move with it in a swap that carries its labels
_LABEL_WORDS = frozenset(
    [
        "abnormal",
        "associated",
        "anatomic",
        "anatomical",
        "normal",
        "molecular",
        "biochemical",
        "biological",
        "physiologic",
        "physiological",
        "cell",
        "cells",
        "tissue",
        "type",
        "gene",
        "genes",
        "product",
        "protein",
        "disease",
        "disorder",
        "condition",
        "abnormality",
        "site",
        "structure",
        "morphology",
        "process",
        "function",
        "drug",
        "medication",
        "finding",
        "phenotype",
        "symptom",
        "sign",
    ]
)
_ARTICLE_END = re.compile(r"\b(?:a|an|the)\s+$", re.IGNORECASE)
_ARTICLE_START = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)


def _carried(text: str, start: int, stop: int) -> tuple[int, int]:
    """The span widened over the label words right before it (and their article) and one label
    noun right after it: "the abnormal cell [X]", "[Y] gene"."""
    words = list(re.finditer(r"[^\W\d_][\w'’-]*", text[:start]))
    first = start
    for word in reversed(words):
        if text[word.end() : first].strip() or word.group(0).lower() not in _LABEL_WORDS:
            break
        first = word.start()
    if first < start:
        article = re.search(r"\b(?:a|an|the)\s+$", text[:first], re.IGNORECASE)
        first = article.start() if article else first
    after = re.match(r" ([^\W\d_][\w'’-]*)", text[stop:])
    last = stop
    if after and after.group(1).lower() in _LABEL_WORDS - {"cell", "cells", "type"}:
        last = stop + after.end()
    return first, last


def swap(
    sentence: str, head: str, tail: str, synonyms: Synonyms = None, *, carry: bool = False
) -> str | None:
    """``sentence`` with every mention of head and tail exchanged, or None when one is missing
    or the two share words (their mentions overlap). With ``carry`` each mention takes its
    labels along ("the gene [X]" and "[Y]" become "[Y]" and "the gene [X]")."""
    names = (normalise(head), normalise(tail))
    keys = (names[0].casefold(), names[1].casefold())
    if keys[0] == keys[1]:
        return None
    text = normalise(sentence)
    groups = {key: names_of(name, synonyms) for key, name in zip(keys, names, strict=True)}
    _masked, found = mask_entities(text, groups)
    if not found[keys[0]] or not found[keys[1]]:
        return None
    if carry:
        found = {key: [_carried(text, *span) for span in spans] for key, spans in found.items()}
    surface = {key: text[slice(*found[key][0])] for key in keys}
    edits = sorted(
        (span, keys[1] if key == keys[0] else keys[0]) for key in keys for span in found[key]
    )
    out, at = [], 0
    for (start, stop), other in edits:
        if start < at:
            return None
        index = keys.index(other)
        moved = _case(surface[other], start == 0, names[index])
        if _ARTICLE_END.search(text[at:start]) and _ARTICLE_START.match(moved):
            moved = _ARTICLE_START.sub("", moved)  # "the" + "the gene X": one article
        out += [text[at:start], moved]
        at = stop
    return "".join(out) + text[at:]


_OF_BEFORE = re.compile(
    r"\b(?:the|a|an)\s+((?:[^\W\d_][\w'’-]*\s+)?[^\W\d_][\w'’-]*)\s+of\s+(?:the\s+)?$",
    re.IGNORECASE,
)


def genitive(sentence: str, head: str, tail: str, synonyms: Synonyms = None) -> str | None:
    """``sentence`` with its first "the [N] of [E]" written "[E]'s [N]" (a faithful change),
    or None when it has none."""
    names = (normalise(head), normalise(tail))
    keys = (names[0].casefold(), names[1].casefold())
    text = normalise(sentence)
    groups = {key: names_of(name, synonyms) for key, name in zip(keys, names, strict=True)}
    _masked, found = mask_entities(text, groups)
    for start, stop in sorted(span for spans in found.values() for span in spans):
        of = _OF_BEFORE.search(text[:start])
        if of is None or of.group(1).lower() in _LABEL_WORDS - {"morphology", "function"}:
            continue
        entity = _case(text[start:stop], of.start() == 0, text[start:stop])
        return f"{text[: of.start()]}{entity}'s {of.group(1)}{text[stop:]}"
    return None


_LAST_PP = re.compile(
    r"^(?P<clause>.*\S)\s+(?P<prep>in|within|for)\s+(?P<art>(?:the|a|an)\s+)?$", re.I
)


def fronted(sentence: str, head: str, tail: str, synonyms: Synonyms = None) -> str | None:
    """``sentence`` ending in "... in / for [E]." with that phrase set before the clause
    ("[B] plays a role in [A]." -> "In [A], [B] plays a role."; a faithful change), or None."""
    names = (normalise(head), normalise(tail))
    keys = (names[0].casefold(), names[1].casefold())
    text = normalise(sentence)
    groups = {key: names_of(name, synonyms) for key, name in zip(keys, names, strict=True)}
    _masked, found = mask_entities(text, groups)
    start, stop = max(span for spans in found.values() for span in spans)
    if text[stop:].strip() not in ("", ".") or (last := _LAST_PP.match(text[:start])) is None:
        return None
    clause = last.group("clause")
    if "," in clause or re.search(r"\b(?:patients?|individuals?|persons?)\b", clause, re.I):
        return None  # "In [A], a patient with [B] ...": no longer the same clause
    clause = _case(clause, False, clause) if not clause[1:2].isupper() else clause
    prep = last.group("prep").capitalize()
    return f"{prep} {last.group('art') or ''}{text[start:stop]}, {clause}."


Rewrite = Callable[[str, str, str, Synonyms], str | None]


def symmetric(statement: str, head: str, tail: str) -> bool:
    """Whether the statement's predicate between its entities is symmetric ("associated with")."""
    names = (normalise(head), normalise(tail))
    keys = (names[0].casefold(), names[1].casefold())
    groups = {key: names_of(name, None) for key, name in zip(keys, names, strict=True)}
    masked, found = mask_entities(normalise(statement), groups)
    if not found[keys[0]] or not found[keys[1]]:
        return False
    spans = sorted((found[keys[0]][0], found[keys[1]][0]))
    reading = predicate_reading(masked[spans[0][1] : spans[1][0]], masked[spans[1][1] :])
    return reading is not None and reading.symmetric


def _negated(statement: str, head: str, tail: str) -> bool:
    return len(negation_cues(statement, mask=(head, tail))) % 2 == 1


def _tune() -> Iterator[Row]:
    for c in load_cases():
        if c.part == TUNE and c.expect == "accept":
            yield c.statement, c.candidate, c.head, c.tail, c.negated, None


def _probes() -> Iterator[Row]:
    import rephrase_probes

    for statement, candidate, head, tail, negated, expect in rephrase_probes.cases():
        if expect == "accept":
            yield statement, candidate, head, tail, negated, None


def _rewordings() -> Iterator[Row]:
    path = ROOT / "tests" / "generate" / "data" / "rewordings.jsonl"
    for line in path.read_text("utf-8").splitlines():
        if not line:
            continue
        r = json.loads(line)
        if r["faithful"]:
            o, c, h, t = r["original"], r["candidate"], r["head"], r["tail"]
            yield o, c, h, t, bool(r["negated"]), r.get("synonyms")


def _generated(every: int = 1) -> Iterator[Row]:
    from quizbot.generate.negatives import NegativeSampler
    from quizbot.generate.points import candidate_points
    from quizbot.generate.prototypes import default_prototypes
    from quizbot.generate.statements import plan_generation, statements
    from quizbot.kb.clinical import load_clinical_core

    kb = load_clinical_core()
    prototypes = default_prototypes()
    facts = [f for f in candidate_points(kb) if prototypes.covers(f.relation)]
    plans = plan_generation(NegativeSampler(kb, "0"), facts)
    items = statements(kb, plans, prototypes, balanced=True)
    for item in itertools.islice(items, 0, None, every):
        yield item.text, item.text, item.side.head, item.side.tail, item.transform.negated, None


def probe(
    rows: Iterator[Row], *, carry: bool = False, rewrite: Rewrite | None = None
) -> tuple[Counter[str], list[tuple[str, str, str, str]]]:
    """Counts (``swaps``, ``rejected``, ``symmetric``, ``symmetric rejected``, ``no swap``) and
    the swaps accepted for an asymmetric statement."""
    counts: Counter[str] = Counter()
    passed: list[tuple[str, str, str, str]] = []
    for statement, given, head, tail, negated, synonyms in rows:
        candidate = given if rewrite is None else rewrite(given, head, tail, synonyms)
        if candidate is None:
            counts["no swap"] += 1
            continue
        if rewrite is not None:
            kept = validate_rephrasing(
                statement, candidate, head=head, tail=tail, negated=negated, synonyms=synonyms
            )
            counts["faithful"] += 1
            counts["faithful kept"] += kept.ok
        swapped = swap(candidate, head, tail, synonyms, carry=carry)
        if carry and swapped == swap(candidate, head, tail, synonyms):
            swapped = None  # no label to carry: the plain swap again
        if swapped is None:
            counts["no swap"] += 1
            continue
        verdict = validate_rephrasing(
            statement, swapped, head=head, tail=tail, negated=negated, synonyms=synonyms
        )
        sym = "symmetric " if symmetric(statement, head, tail) else ""
        counts[sym + "swaps"] += 1
        counts[sym + "rejected"] += not verdict.ok
        if verdict.ok and not sym:
            passed.append((statement, swapped, head, tail))
    return counts, passed


def main(argv: list[str] | None = None) -> int:
    """Print, per source, how many mechanical role swaps the validator rejects."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--generated", action="store_true", help="also clinical-core statements")
    parser.add_argument("--show", action="store_true", help="list the accepted swaps")
    parser.add_argument("--every", type=int, default=1, help="every Nth generated statement")
    args = parser.parse_args(argv)
    sources = [("tune faithful", _tune), ("probes", _probes), ("rewordings", _rewordings)]
    if args.generated:
        sources.append(("generated", lambda: _generated(args.every)))
    variants: list[tuple[str, bool, Rewrite | None]] = [
        ("", False, None),
        (" +labels", True, None),
        (" +genitive", False, genitive),
        (" +fronted", False, fronted),
    ]
    for (name, rows), (suffix, carry, rewrite) in itertools.product(sources, variants):
        counts, passed = probe(rows(), carry=carry, rewrite=rewrite)
        label = name + suffix
        n, bad = counts["swaps"], counts["swaps"] - counts["rejected"]
        print(
            f"{label:<22} swaps rejected {counts['rejected']}/{n}"
            + (f" = {100 * counts['rejected'] / n:.1f}%" if n else "")
            + f" (accepted {bad}); symmetric {counts['symmetric rejected']}/"
            f"{counts['symmetric swaps']} rejected; no swap {counts['no swap']}"
            + (
                f"; rewritten faithful kept {counts['faithful kept']}/{counts['faithful']}"
                if rewrite is not None
                else ""
            )
        )
        if args.show:
            for statement, swapped, head, tail in passed:
                print(f"  S: {statement}\n  W: {swapped}\n     [{head} | {tail}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
