"""Importers: MedLAMA directories and generic triplet files (CSV or JSONL).

Each reads and validates the *whole* input before anything is written, and raises
:class:`~quizbot.errors.InputError` naming the file, line and field of the first problem, so a
malformed file is rejected as a whole and nothing is half-imported.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from quizbot.errors import InputError
from quizbot.jsonl import read_objects
from quizbot.kb.model import KnowledgeBaseData, Relation, Triplet
from quizbot.kb.relations import known_relations
from quizbot.names import check_text

__all__ = ["read_medlama", "read_triplets"]

MEDLAMA_COLUMNS = ("head_cui", "head_name", "rel", "tail_names", "tail_cuis")
MEDLAMA_LICENSE = (
    "MedLAMA (Meng et al., ACL 2022) draws its triplets from the UMLS Metathesaurus 2021AA; "
    "use under the UMLS licence, for evaluation, without redistribution."
)
_RELATION_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
# Column sizes of the knowledge_point table: checked here so a long name is a clear error.
MAX_ENTITY = 500
MAX_RELATION = 100
MAX_TYPE = 100


def _check_length(value: str, limit: int, label: str, line: int, field: str) -> None:
    check_text(value, field=field, path=label, line=line)  # a NUL byte or a control character
    if len(value) > limit:
        raise InputError(
            f"{len(value)} characters; at most {limit} are allowed",
            path=label,
            line=line,
            field=field,
        )


_SEP = " || "


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    files = sorted(path.rglob("*")) if path.is_dir() else [path]
    for f in files:
        if f.is_file():
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _clean(value: str | None) -> str:
    return " ".join((value or "").split())


def read_medlama(path: Path, name: str) -> KnowledgeBaseData:
    """Read a MedLAMA directory (``2021AA/<relation>_1000.csv`` files, or those files' folder).

    Each row is one head and relation with one or more gold tails (``tail_names`` joined by
    `` || ``). The first gold tail is the row's knowledge point; the others are kept as true facts
    (so they are never used as negatives) but not asked, as in the PretexEval paper.
    """
    folder = path / "2021AA" if (path / "2021AA").is_dir() else path
    if not folder.is_dir():
        raise InputError("not a directory", path=str(path), hint="give the MedLAMA folder")
    files = sorted(folder.glob("*_1000.csv"))
    if not files:
        raise InputError(
            "no <relation>_1000.csv files found",
            path=str(folder),
            hint="give the MedLAMA folder that contains 2021AA/",
        )
    known = known_relations()
    relations: dict[str, Relation] = {}
    triplets: list[Triplet] = []
    for file in files:
        label = str(file)
        expected = file.name.removesuffix("_1000.csv")
        try:
            handle = file.open(encoding="utf-8-sig", newline="")
        except OSError as exc:
            raise InputError(f"cannot read ({exc.strerror})", path=label) from None
        with handle:
            reader = csv.DictReader(handle)
            missing = [c for c in MEDLAMA_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise InputError(
                    f"missing column {missing[0]!r}", path=label, line=1, field=missing[0]
                )
            try:
                # line_num is the physical line, right even after blank lines
                rows = [(reader.line_num, row) for row in reader]
            except (csv.Error, UnicodeDecodeError) as exc:
                raise InputError(f"not valid CSV ({exc})", path=label) from None
        for line, row in rows:
            head = _clean(row["head_name"])
            if not head:
                raise InputError("empty head", path=label, line=line, field="head_name")
            _check_length(head, MAX_ENTITY, label, line, "head_name")
            rel = _clean(row["rel"])
            if rel != expected:
                raise InputError(
                    f"relation {rel!r} does not match the file name ({expected})",
                    path=label,
                    line=line,
                    field="rel",
                )
            tails = [_clean(t) for t in (row["tail_names"] or "").split(_SEP)]
            cuis = [_clean(c) for c in (row["tail_cuis"] or "").split(_SEP)]
            if not tails or any(not t for t in tails):
                raise InputError("empty gold tail", path=label, line=line, field="tail_names")
            for tail in tails:
                _check_length(tail, MAX_ENTITY, label, line, "tail_names")
            if len(cuis) != len(tails):
                cuis = [""] * len(tails)
            for i, tail in enumerate(tails):
                triplets.append(
                    Triplet(
                        head,
                        rel,
                        tail,
                        head_ref=_clean(row["head_cui"]) or None,
                        tail_ref=cuis[i] or None,
                        meta={"primary": i == 0, "gold_tails": len(tails)},
                    )
                )
        relations[expected] = known.get(expected) or Relation(
            expected, expected.replace("_", " "), "entity", "entity"
        )
    triplets = _dedupe(triplets)
    return KnowledgeBaseData(
        name=name,
        version=_digest(folder),
        source="medlama",
        relations=relations,
        triplets=tuple(triplets),
        title="MedLAMA",
        license=MEDLAMA_LICENSE,
        description="Biomedical knowledge probing triplets from UMLS 2021AA (MedLAMA).",
        meta={"path": str(path), "digest": _digest(folder)},
    )


def _dedupe(triplets: list[Triplet]) -> list[Triplet]:
    """Drop repeated (relation, head, tail), keeping the first (a primary wins over a secondary)."""
    seen: dict[tuple[str, str, str], int] = {}
    out: list[Triplet] = []
    for t in triplets:
        key = (t.relation, t.head, t.tail)
        if key in seen:
            if t.meta.get("primary") and not out[seen[key]].meta.get("primary"):
                out[seen[key]] = t
            continue
        seen[key] = len(out)
        out.append(t)
    return out


def _triplet_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    label = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # tolerate Excel's byte-order mark
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc})", path=label) from None
    if path.suffix.lower() in {".jsonl", ".ndjson"}:
        yield from read_objects(path)
        return
    reader = csv.DictReader(io.StringIO(text, newline=""))
    for field in ("head", "relation", "tail"):
        if field not in (reader.fieldnames or []):
            raise InputError(f"missing column {field!r}", path=label, line=1, field=field)
    try:
        for row in reader:
            yield reader.line_num, row  # the physical line, right even after blank lines
    except csv.Error as exc:
        raise InputError(f"not valid CSV ({exc})", path=label, line=reader.line_num) from None


def read_triplets(path: Path, name: str) -> KnowledgeBaseData:
    """Read a generic triplet file: CSV with a header, or JSONL objects.

    Fields: ``head``, ``relation``, ``tail`` (required), ``head_type``, ``tail_type``, ``group``
    (optional). A relation's types must be the same on every line that gives them.
    """
    label = str(path)
    known = known_relations()
    types: dict[str, tuple[str, str, int]] = {}
    triplets: list[Triplet] = []
    for line, record in _triplet_records(path):
        values: dict[str, str] = {}
        for field in ("head", "relation", "tail", "head_type", "tail_type", "group"):
            raw = record.get(field)
            if raw is not None and not isinstance(raw, str):
                raise InputError("must be text", path=label, line=line, field=field)
            values[field] = _clean(raw)
        for field in ("head", "relation", "tail"):
            if not values[field]:
                raise InputError("missing value", path=label, line=line, field=field)
        limits = {"head": MAX_ENTITY, "tail": MAX_ENTITY, "relation": MAX_RELATION,
                  "head_type": MAX_TYPE, "tail_type": MAX_TYPE}  # fmt: skip
        for field, limit in limits.items():
            _check_length(values[field], limit, label, line, field)
        check_text(values["group"], field="group", path=label, line=line)
        relation = values["relation"]
        if not _RELATION_NAME.match(relation):
            raise InputError(
                f"relation {relation!r} must be lowercase letters, digits and underscores",
                path=label,
                line=line,
                field="relation",
            )
        if values["head_type"] or values["tail_type"]:
            given = (values["head_type"], values["tail_type"])
            if relation in types and types[relation][:2] != given:
                first = types[relation][2]
                raise InputError(
                    f"types {given} differ from line {first}'s {types[relation][:2]}",
                    path=label,
                    line=line,
                    field="head_type",
                )
            types.setdefault(relation, (*given, line))
        triplets.append(
            Triplet(values["head"], relation, values["tail"], group=values["group"] or None)
        )
    if not triplets:
        raise InputError("no triplets", path=label)
    relations: dict[str, Relation] = {}
    for relation in sorted({t.relation for t in triplets}):
        if relation in types:
            relations[relation] = Relation(
                relation, relation.replace("_", " "), *types[relation][:2]
            )
        else:
            relations[relation] = known.get(relation) or Relation(
                relation, relation.replace("_", " "), "entity", "entity"
            )
    digest = _digest(path)
    return KnowledgeBaseData(
        name=name,
        version=digest,
        source="triplets",
        relations=relations,
        triplets=tuple(_dedupe(triplets)),
        title=name,
        meta={"path": str(path), "digest": digest},
    )
