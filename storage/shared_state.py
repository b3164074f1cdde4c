"""State the app's replicas share through the database (migration 0023).

Several ``quizbot serve`` processes on one PostgreSQL database (behind a reverse proxy) must
agree on request-rate limits, on which account owns a Gradio session hash and on each account's
upload volume; one process on SQLite uses the same tables (no extra service). Every function here
is one short write transaction: a token bucket is one ``INSERT ... ON CONFLICT DO UPDATE ...
RETURNING`` (atomic on both databases, so parallel requests on any replica never take more than
the bucket holds). Times are seconds since the epoch, from the caller's clock.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session

from storage.engine import Database

__all__ = [
    "claim_session_hash",
    "sweep_rate_buckets",
    "sweep_session_hashes",
    "take_token",
    "take_upload",
]

_BUCKET = """
INSERT INTO rate_buckets (key, tokens, updated_at, allowed)
VALUES (:key, CAST(:burst AS {real}) - 1, CAST(:now AS {real}), {true})
ON CONFLICT (key) DO UPDATE SET
    tokens = CASE WHEN {refill} >= 1 THEN {refill} - 1 ELSE {refill} END,
    allowed = {refill} >= 1,
    updated_at = {greatest}(rate_buckets.updated_at, CAST(:now AS {real}))
RETURNING tokens, allowed
"""
# what the bucket holds at :now, before this request (a clock behind the last writer's adds none)
_REFILL = (
    "{least}(CAST(:burst AS {real}), rate_buckets.tokens + "
    "{greatest}(0, CAST(:now AS {real}) - rate_buckets.updated_at) * CAST(:rate AS {real}))"
)


def _bucket_sql(backend: str) -> str:
    if backend == "postgresql":
        words = {"least": "LEAST", "greatest": "GREATEST", "real": "double precision"}
        true = "true"
    else:  # SQLite: min() and max() of several arguments are its LEAST and GREATEST
        words = {"least": "min", "greatest": "max", "real": "REAL"}
        true = "1"
    refill = _REFILL.format(**words)
    return _BUCKET.format(refill=refill, true=true, **words)


def take_token(db: Database, key: str, *, rate: float, burst: int, now: float) -> float | None:
    """Take one request from the bucket ``key`` (``burst`` at once, then ``rate`` per second):
    None when it is let through, else the seconds until one is earned back (nothing taken)."""
    sql = text(_bucket_sql(db.backend))
    params = {"key": key[:200], "burst": float(burst), "rate": float(rate), "now": float(now)}

    def _take(session: Session) -> tuple[float, bool]:
        tokens, allowed = session.execute(sql, params).one()
        return float(tokens), bool(allowed)

    tokens, allowed = db.write(_take)
    return None if allowed else (1 - tokens) / rate


def sweep_rate_buckets(db: Database, prefix: str, *, older_than: float) -> int:
    """Delete the buckets of keys starting with ``prefix`` untouched since ``older_than`` (full
    again by now, so a missing row means the same); returns how many went."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    sql = text(
        "DELETE FROM rate_buckets WHERE updated_at < :cutoff AND key LIKE :pattern ESCAPE '\\'"
    )

    def _sweep(session: Session) -> int:
        result = session.execute(sql, {"cutoff": older_than, "pattern": escaped + "%"})
        return int(result.rowcount or 0)  # type: ignore[attr-defined]

    return db.write(_sweep)


def claim_session_hash(db: Database, session_hash: str, owner: str, *, now: float) -> str:
    """The account owning ``session_hash``: ``owner`` when the hash was new (it is theirs now),
    else whoever claimed it first, on any replica."""
    insert = text(
        "INSERT INTO gradio_sessions (session_hash, owner, claimed_at) VALUES (:h, :o, :t) "
        "ON CONFLICT (session_hash) DO NOTHING"
    )
    select = text("SELECT owner FROM gradio_sessions WHERE session_hash = :h")
    params = {"h": session_hash[:128], "o": owner[:100], "t": float(now)}

    def _claim(session: Session) -> str:
        session.execute(insert, params)
        return str(session.execute(select, {"h": params["h"]}).scalar_one())

    return db.write(_claim)


def sweep_session_hashes(db: Database, *, older_than: float) -> int:
    """Forget the session hashes claimed before ``older_than``; returns how many went."""

    def _sweep(session: Session) -> int:
        result = session.execute(
            text("DELETE FROM gradio_sessions WHERE claimed_at < :cutoff"), {"cutoff": older_than}
        )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]

    return db.write(_sweep)


def take_upload(
    db: Database, owner: str, size: int, *, limit: int, window: float, now: float
) -> float | None:
    """Count ``size`` bytes for ``owner`` unless that takes the last ``window`` seconds' uploads
    past ``limit`` bytes: None when counted, else the seconds until enough of them age out.
    Uploads of one account are counted one at a time on every replica (PostgreSQL: a transaction
    lock per account; SQLite has one writer at a time anyway)."""
    owner = owner[:100]
    since = now - window

    def _take(session: Session) -> float | None:
        if db.backend == "postgresql":
            session.execute(
                text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": f"upload:{owner}"}
            )
        session.execute(
            text("DELETE FROM upload_usage WHERE at <= :since"),  # every account's old uploads
            {"since": since},
        )
        recent = session.execute(
            text("SELECT at, size FROM upload_usage WHERE owner = :o ORDER BY at, id"),
            {"o": owner},
        ).all()
        used = sum(int(n) for _, n in recent)
        if used + size > limit:
            freed, wait = used + size - limit, window
            for at, n in recent:
                freed -= int(n)
                if freed <= 0:
                    wait = window - (now - float(at))
                    break
            return max(1.0, wait)
        session.execute(
            text("INSERT INTO upload_usage (owner, size, at) VALUES (:o, :n, :t)"),
            {"o": owner, "n": int(size), "t": float(now)},
        )
        return None

    return db.write(_take)
