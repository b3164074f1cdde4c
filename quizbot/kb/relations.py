"""The catalogue of relations quizbot knows: label and entity types of every built-in and MedLAMA
relation, so an imported knowledge base gets readable relation names without asking generation.

The prototype pool (``quizbot/generate/data/prototypes.csv``) repeats these columns on each of its
rows; tests/kb/test_relations.py checks that the two agree.
"""

from __future__ import annotations

import csv
import io
from functools import lru_cache
from importlib import resources

from quizbot.kb.model import Relation

__all__ = ["known_relations"]


@lru_cache(maxsize=1)
def known_relations() -> dict[str, Relation]:
    """Every catalogued relation by name (a fresh copy is not needed: callers only read it)."""
    text = resources.files("quizbot.kb").joinpath("data/relations.csv").read_text("utf-8")
    return {
        row["relation"]: Relation(row["relation"], row["label"], row["head_type"], row["tail_type"])
        for row in csv.DictReader(io.StringIO(text))
    }
