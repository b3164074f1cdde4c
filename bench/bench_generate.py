"""Statement generation over all of MedLAMA vs a bare str.replace loop, in one run.

Generates every statement (19 relations x 1,000 rows: one gold tail per head and relation, 8
transforms x (positive, negative) = 16 per point, about 304,000) with the project's prototype pool,
and fills the same templates with the same entities with a bare ``str.replace`` loop in the same
process. Prints statements/s for both and the ratio, plus the time to read the KB, plan negatives,
and serialise everything to JSONL (record by record with ``to_json``, and with the
``StatementEncoder`` that ``quizbot generate`` uses), and the peak memory. Usage:

    .venv/bin/python bench/bench_generate.py [--medlama ../shared/data/medlama] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orjson import OPT_SORT_KEYS, dumps  # noqa: E402

from quizbot.generate.points import candidate_points  # noqa: E402
from quizbot.generate.prototypes import default_prototypes  # noqa: E402
from quizbot.generate.statements import PointPlan, plan_points, statements  # noqa: E402
from quizbot.items import StatementEncoder  # noqa: E402
from quizbot.kb.importers import read_medlama  # noqa: E402
from quizbot.transforms import TRANSFORMS  # noqa: E402


def bare(plans: list[PointPlan], templates: dict[str, list[str]]) -> int:
    """The floor: fill each template with two str.replace calls, keep nothing."""
    n = 0
    for plan in plans:
        head = plan.fact.head
        for tail in (plan.fact.tail, plan.negative_tail):
            if tail is None:
                continue
            for template in templates[plan.fact.relation]:
                template.replace("[X]", head).replace("[Y]", tail)
                n += 1
    return n


def ours(kb: object, plans: list[PointPlan], prototypes: object) -> int:
    """quizbot: full StatementItem objects (text, label, lineage) streamed and dropped."""
    n = 0
    for _item in statements(kb, plans, prototypes):  # type: ignore[arg-type]
        n += 1
    return n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--medlama", type=Path, default=ROOT.parent / "shared" / "data" / "medlama")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not args.medlama.exists():
        print(f"MedLAMA not found at {args.medlama}")
        return 1

    t0 = time.perf_counter()
    kb = read_medlama(args.medlama, "medlama")
    t_read = time.perf_counter() - t0
    prototypes = default_prototypes()
    t0 = time.perf_counter()
    plans = plan_points(kb, candidate_points(kb))
    t_plan = time.perf_counter() - t0
    templates = {
        r: [prototypes.prototypes[(r, t)].template for t in TRANSFORMS] for r in kb.relations
    }

    ours_s: list[float] = []
    bare_s: list[float] = []
    n_ours = n_bare = 0
    for _ in range(args.repeat):  # interleaved, so both see the same machine load
        t0 = time.perf_counter()
        n_bare = bare(plans, templates)
        bare_s.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        n_ours = ours(kb, plans, prototypes)
        ours_s.append(time.perf_counter() - t0)
    assert n_ours == n_bare, (n_ours, n_bare)

    t0 = time.perf_counter()
    size = 0
    for item in statements(kb, plans, prototypes):
        size += len(dumps(item.to_json(), option=OPT_SORT_KEYS)) + 1
    t_json = time.perf_counter() - t0
    t0 = time.perf_counter()
    encoder, size_fast = StatementEncoder(), 0
    for item in statements(kb, plans, prototypes):
        size_fast += len(encoder.encode(item)[1]) + 1
    t_fast = time.perf_counter() - t0
    assert size_fast == size, (size_fast, size)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    o, b = statistics.median(ours_s), statistics.median(bare_s)
    print(
        f"MedLAMA: {len(plans):,} points, {n_ours:,} statements "
        f"({sum(p.negative_tail is None for p in plans)} points without a negative)"
    )
    print(f"  read KB                     {t_read:6.2f} s")
    print(f"  plan negatives              {t_plan:6.2f} s")
    runs = f"(median of {args.repeat})"
    print(f"  bare str.replace loop       {b:6.2f} s  = {n_bare / b:>10,.0f} statements/s {runs}")
    print(f"  quizbot statements          {o:6.2f} s  = {n_ours / o:>10,.0f} statements/s {runs}")
    print(f"  plan + generate             {t_plan + o:6.2f} s")
    rate, mb = n_ours / t_json, size / 1e6
    print(f"  serialise to JSONL (ids)    {t_json:6.2f} s  = {rate:>10,.0f} records/s, {mb:.0f} MB")
    fast = n_ours / t_fast
    print(
        f"  same, StatementEncoder      {t_fast:6.2f} s  = {fast:>10,.0f} records/s "
        f"({t_json / t_fast:.1f}x; what `quizbot generate` uses)"
    )
    print(f"  peak RSS                    {peak_mb:6.0f} MB (statements stream; nothing is held)")
    print(f"ratio quizbot / bare loop = {(n_ours / o) / (n_bare / b):.2f} (goal >= 0.50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
