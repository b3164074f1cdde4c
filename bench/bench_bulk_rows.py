"""CPU of building the rows of a bulk generation (before SQLite sees them), in one process.

Imports MedLAMA into a temporary home, prepares ``quizbot generate --kb medlama`` and, for the
first ``--items`` statements, times (CPU of this process) ``item_rows`` (items to ``NewItem``s,
linked to their stored points) and ``RowWriter.rows`` (``NewItem``s to the driver's tuples, bind
processors applied), ``--repeat`` times each, interleaved. Run it from two checkouts to compare
them (``PYTHONPATH`` or the checkout's own ``bench/``). Usage:

    .venv/bin/python bench/bench_bulk_rows.py [--medlama ../shared/data/medlama]
        [--items 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--medlama", type=Path, default=ROOT.parent / "shared/data/medlama")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as home:
        os.environ["QUIZBOT_HOME"] = home
        os.environ.pop("DATABASE_URL", None)
        from quizbot.generate.service import GenerateRequest, item_rows, prepare
        from quizbot.items import StatementEncoder, StatementItem
        from storage import open_database
        from storage.bulk import RowWriter
        from storage.models import Item
        from storage.repo import _ITEM_ATTRIBUTES, knowledge_point_ids
        from storage.types import utcnow

        subprocess.run(
            [sys.executable, "-c", "from quizbot.cli import main; main()", "kb", "import",
             "--format", "medlama", str(args.medlama), "--name", "medlama"],
            env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, check=True,
            capture_output=True,
        )  # fmt: skip
        db = open_database(f"sqlite:///{home}/quizbot.db")
        gc.freeze()
        generation = prepare(db, GenerateRequest(kb="medlama"))
        items = list(islice(generation.items(), args.items))
        gc.freeze()
        encoder = StatementEncoder()
        known = [encoder.encode(i)[0] if isinstance(i, StatementItem) else None for i in items]
        point_ids = knowledge_point_ids(db, generation.kb_id)
        table: Any = Item.__table__  # type: ignore[attr-defined]

        times: dict[str, list[float]] = {"item_rows": [], "RowWriter.rows": []}
        for _ in range(args.repeat):
            start = time.process_time()
            rows = item_rows(items, point_ids, known)
            times["item_rows"].append(time.process_time() - start)

            def bind(session: Any, rows: Any = rows) -> float:
                writer = RowWriter(
                    session.connection(),
                    table,
                    _ITEM_ATTRIBUTES,
                    {"kb_id": 1, "created_at": utcnow()},
                )
                start = time.process_time()
                writer.rows(rows)
                return time.process_time() - start

            times["RowWriter.rows"].append(db.read(bind))

    print(f"{len(items):,} statements, {args.repeat} runs, CPU medians (min-max); "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    for label, found in times.items():
        print(
            f"  {label:<16} {statistics.median(found):6.3f} s ({min(found):.3f}-{max(found):.3f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
