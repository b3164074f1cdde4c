"""What ``quizbot kb list`` shows, built from light parts: no database layer, no KB parsers.

:func:`quizbot.kb.registry.kb_listing` builds the list through the database layer;
:func:`quick_listing` builds the same list from a SQLite file with the standard library alone
(:mod:`storage.quick`), so listing does not import SQLAlchemy, Alembic or the KB loaders.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BUILTIN_NAMES", "KbListing", "merge_listing", "quick_listing"]

# The built-in KBs, in the order they are offered (the keys of quizbot.kb.registry.BUILTINS;
# tests/kb/test_listing.py checks the two agree).
BUILTIN_NAMES = ("clinical-core", "hpo")


@dataclass(frozen=True)
class KbListing:
    """One line of ``quizbot kb list``."""

    name: str
    version: str | None
    source: str
    installed: bool
    points: int
    relations: dict[str, int]
    license: str

    def as_json(self) -> dict[str, Any]:
        """The listing as a JSON object."""
        return {
            "name": self.name,
            "version": self.version,
            "source": self.source,
            "installed": self.installed,
            "points": self.points,
            "relations": self.relations,
            "license": self.license,
        }


def merge_listing(stored: Iterable[KbListing]) -> list[KbListing]:
    """The stored KBs plus the built-ins not installed yet, by name."""
    listed = list(stored)
    names = {entry.name for entry in listed}
    for name in BUILTIN_NAMES:
        if name not in names:
            listed.append(KbListing(name, None, "builtin", False, 0, {}, ""))
    return sorted(listed, key=lambda e: e.name)


def quick_listing(sqlite_file: Path | None) -> list[KbListing] | None:
    """The listing read straight from a SQLite file, or None to take the general path.

    None when no SQLite file is in force or :func:`storage.quick.sqlite_kb_summaries` declines
    (missing file, schema not at the newest revision, unreadable).
    """
    if sqlite_file is None:
        return None
    from storage.quick import sqlite_kb_summaries  # noqa: PLC0415

    rows = sqlite_kb_summaries(sqlite_file)
    if rows is None:
        return None
    return merge_listing(
        KbListing(r.name, r.version, r.source, True, r.n_points, r.relations, r.license)
        for r in rows
    )
