"""A writer process for the reliability tests.

Usage: python -m tests.helpers.writer URL RUN_ID RESPONDENT_ID PREFIX START COUNT BATCH [LOOP]

Writes responses for items ``PREFIX`` START..START+COUNT in batches of BATCH through the real
repository functions, and prints ``ack <first> <last>`` (flushed) only after each batch's write
has returned, i.e. committed. With LOOP=1 it keeps going until killed (for the crash test).
"""

from __future__ import annotations

import sys

from quizbot.domain import Outcome
from storage import Database
from storage.repo import NewResponse, record_response, record_responses


def main(argv: list[str]) -> int:
    url, run_id, respondent_id, prefix = argv[0], int(argv[1]), int(argv[2]), argv[3]
    start, count, batch = int(argv[4]), int(argv[5]), int(argv[6])
    db = Database(url)
    for first in range(start, start + count, batch):
        last = min(first + batch, start + count) - 1
        rows = [
            NewResponse(
                item_id=f"i1:{prefix}{i:08d}",
                respondent_id=respondent_id,
                run_id=run_id,
                outcome=Outcome.CORRECT if i % 3 else Outcome.ABSTAINED,
                raw_text=f"answer {i}",
                parsed_answer="true",
                latency_ms=float(i),
            )
            for i in range(first, last + 1)
        ]
        if len(rows) == 1:
            record_response(db, rows[0])
        else:
            record_responses(db, rows)
        sys.stdout.write(f"ack {first} {last}\n")
        sys.stdout.flush()
    db.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
