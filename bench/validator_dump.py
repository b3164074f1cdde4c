"""Every verdict and reason of the rephrasing validator, and what the wording functions return.

A regression check for refactorings that must not change behaviour: run it before and after and
compare the outputs byte for byte. It covers the *tune* part of the PretexEval dev files (never
the held-back part), our probes (``bench/rephrase_probes.py``), the hand-written rewordings
(``tests/generate/data/rewordings.jsonl``), every validator call the rephrasing tests make
(``--tests``: runs them with :func:`~quizbot.generate.rephrase.validator.judge` recorded), and
pairs of generated clinical-core statements of one triplet side and negation (alternative
wordings of one claim, seed 0), plus the wording functions (stems, word forms, predicate readings,
entity patterns) over every word and sentence seen. Usage:

    .venv/bin/python bench/validator_dump.py OUT [--tests] [--no-generation]

``VALIDATOR_DUMP_CODE=DIR`` imports ``quizbot`` from ``DIR`` instead (for example an export of the
commit before a refactoring: ``git archive BASE quizbot | tar -x -C DIR``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
if "VALIDATOR_DUMP_CODE" in os.environ:  # the code to dump (an older tree's copy), not ours
    sys.path.insert(0, os.environ["VALIDATOR_DUMP_CODE"])

from quizbot.generate import wording  # noqa: E402
from quizbot.generate.rephrase import validate_rephrasing  # noqa: E402
from quizbot.generate.rephrase import validator as validator_module  # noqa: E402
from quizbot.generate.rephrase.dev_data import TUNE, load_cases  # noqa: E402

Row = tuple[str, str, str, str, bool]  # statement, candidate, head, tail, negated


def _dev() -> Iterator[Row]:
    for c in load_cases():
        if c.part == TUNE:
            yield c.statement, c.candidate, c.head, c.tail, c.negated


def _probes() -> Iterator[Row]:
    import rephrase_probes

    for statement, candidate, head, tail, negated, _expect in rephrase_probes.cases():
        yield statement, candidate, head, tail, negated


def _rewordings() -> Iterator[tuple[str, dict[str, Any]]]:
    path = ROOT / "tests" / "generate" / "data" / "rewordings.jsonl"
    for line in path.read_text("utf-8").splitlines():
        if line:
            yield line, json.loads(line)


def _generated() -> Iterator[Row]:
    from quizbot.generate.negatives import NegativeSampler
    from quizbot.generate.points import candidate_points
    from quizbot.generate.prototypes import default_prototypes
    from quizbot.generate.statements import plan_generation, statements
    from quizbot.kb.clinical import load_clinical_core

    kb = load_clinical_core()
    prototypes = default_prototypes()
    facts = [f for f in candidate_points(kb) if prototypes.covers(f.relation)]
    plans = plan_generation(NegativeSampler(kb, "0"), facts)
    groups: dict[tuple[Any, ...], list[Any]] = defaultdict(list)
    for item in statements(kb, plans, prototypes, balanced=True):
        side = item.side
        key = (side.relation, side.head, side.tail, side.polarity, item.transform.negated)
        groups[key].append(item)
    for (_relation, head, tail, _polarity, negated), items in groups.items():
        for a, b in itertools.islice(itertools.permutations(items, 2), 1):
            yield a.text, b.text, head, tail, negated


def _verdict(row: Row) -> str:
    statement, candidate, head, tail, negated = row
    verdict = validate_rephrasing(statement, candidate, head=head, tail=tail, negated=negated)
    return json.dumps([*row, verdict.ok, verdict.reason], ensure_ascii=False)


def _wording(sentences: set[str], names: set[str]) -> Iterator[str]:
    words = sorted({w for s in sentences for w in re.findall(r"[^\W\d_][\w'’-]*", s)})
    for w in words:
        yield json.dumps(
            [
                w,
                wording.stem(w),
                sorted(wording.word_forms(w)),
                sorted(wording.families_of([w])),
                sorted(wording.families_of([w], implied=True)),
            ],
            ensure_ascii=False,
        )
    for name in sorted(names):
        yield json.dumps(
            [name, wording.entity_regex(name).pattern, wording.is_inheritance_mode(name)],
            ensure_ascii=False,
        )
    for s in sorted(sentences):
        starts = [0] + [m.end() for m in re.finditer(r"\s+", s)]
        for i in starts:
            r = wording.predicate_reading(s[i:], s[i + 10 :])
            yield json.dumps([s[i:], None if r is None else repr(r)], ensure_ascii=False)
        lower = [w.lower() for w in re.findall(r"[^\W\d_][\w'’-]*", s)]
        yield json.dumps([s, wording.antonym_clash(lower, lower[::-1])], ensure_ascii=False)


def _recorded_tests(out: list[str]) -> None:
    import pytest

    from quizbot.generate.rephrase import driver

    real = validator_module.judge

    def recording(*args: Any, **kwargs: Any) -> Any:
        verdict = real(*args, **kwargs)
        out.append(json.dumps([args, sorted(kwargs.items()), verdict.reason], ensure_ascii=False))
        return verdict

    patched: Callable[..., Any] = recording
    validator_module.judge = patched  # type: ignore[assignment]
    driver.judge = patched  # type: ignore[assignment]
    try:
        files = sorted(str(p) for p in (ROOT / "tests" / "generate").glob("test_*.py"))
        pytest.main(["-q", "-p", "no:cacheprovider", "-x", *files])
    finally:
        validator_module.judge = real  # type: ignore[assignment]
        driver.judge = real  # type: ignore[assignment]


def main(argv: list[str] | None = None) -> int:
    """Write the dump."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--tests", action="store_true")
    parser.add_argument("--no-generation", action="store_true")
    args = parser.parse_args(argv)
    lines: list[str] = []
    sentences: set[str] = set()
    names: set[str] = set()
    sources: list[tuple[str, Iterator[Row]]] = [("dev", _dev()), ("probes", _probes())]
    if not args.no_generation:
        sources.append(("generated", _generated()))
    for label, rows in sources:
        lines.append(f"== {label}")
        for row in rows:
            lines.append(_verdict(row))
            if label != "generated":  # their words are the KB's: the verdicts cover them
                sentences |= {row[0], row[1]}
                names |= {row[2], row[3]}
    lines.append("== rewordings")
    import bench_validator

    for raw, record in _rewordings():
        lines.append(json.dumps([raw, bench_validator.judge(record)], ensure_ascii=False))
    lines.append("== wording")
    lines += _wording(sentences, names)
    if args.tests:
        recorded: list[str] = []
        _recorded_tests(recorded)
        lines.append("== tests")
        lines += recorded
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines):,} lines -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
