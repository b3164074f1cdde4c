"""Where knowledge bases come from and how they reach the database.

Built-in KBs (``clinical-core``, ``hpo``) are read from files installed with quizbot and written
to the database on first use; imported KBs live only in the database. Either way callers get a
:class:`~quizbot.kb.model.KnowledgeBaseData` from :func:`get_kb` and never touch storage.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from quizbot.errors import ConfigError, DuplicateError, NotFoundError
from quizbot.kb.clinical import load_clinical_core
from quizbot.kb.listing import KbListing, merge_listing
from quizbot.kb.model import KnowledgeBaseData, Relation, Triplet
from quizbot.kb.overrides import apply_overrides
from quizbot.names import check_name
from storage import Database
from storage.item_sets import ITEM_SET_SOURCE
from storage.repo import (
    NewPoint,
    get_knowledge_base,
    list_knowledge_bases,
    load_knowledge_points,
    upsert_knowledge_base,
)
from storage.review import list_overrides

__all__ = [
    "BUILTINS",
    "CACHED_BUILTINS",
    "DEFAULT_KB",
    "InstallResult",
    "KbListing",
    "check_import_name",
    "content_digest",
    "get_kb",
    "import_kb",
    "install",
    "kb_license",
    "kb_listing",
    "load_builtin",
]


def _load_hpo() -> KnowledgeBaseData:
    from quizbot.kb.hpo import load_hpo  # noqa: PLC0415 - parses ~60 MB; only when asked

    return load_hpo()


def _hpo_sources() -> list[Path]:
    from quizbot.kb.hpo import FILES, hpo_data_dir  # noqa: PLC0415

    directory = hpo_data_dir()
    return [directory / name for name in FILES]


DEFAULT_KB = "clinical-core"

BUILTINS: dict[str, Callable[[], KnowledgeBaseData]] = {
    "clinical-core": load_clinical_core,
    "hpo": _load_hpo,
}

# Built-ins worth an on-disk cache (quizbot/kb/cache.py), with the files each is read from.
# clinical-core is not among them: it parses in about 20 ms, no slower than reading a cache.
CACHED_BUILTINS: dict[str, Callable[[], list[Path]]] = {"hpo": _hpo_sources}

# The modules whose code shapes a cached KB: a change to any of them invalidates every cache.
_KB_DIR = Path(__file__).resolve().parent
_CACHE_CODE = tuple(
    _KB_DIR / f for f in ("model.py", "hpo.py", "hpo_text.py", "cache.py", "registry.py")
)

# name -> (the KB load_builtin returned, its content digest): spares install() from hashing
# 140,000 triplets again when the digest came with the cache or was computed to write it.
_DIGESTS: dict[str, tuple[KnowledgeBaseData, str]] = {}


def _cache_location(name: str) -> tuple[Path, str] | None:
    """(cache file, key) for built-in ``name``, or None if it has no usable cache."""
    sources = CACHED_BUILTINS.get(name)
    if sources is None:
        return None
    from quizbot.config import load_settings  # noqa: PLC0415 - pydantic: only when needed
    from quizbot.kb.cache import cache_key, cache_path  # noqa: PLC0415

    try:
        directory = load_settings().home / "cache" / "kb"
        return cache_path(directory, name), cache_key(sources(), _CACHE_CODE)
    except (ConfigError, OSError):
        return None  # no data directory, or a source missing: the loader reports it


@lru_cache(maxsize=4)
def load_builtin(name: str) -> KnowledgeBaseData:
    """A built-in KB read from its packaged files (cached for the process).

    HPO is read from its on-disk cache when the cache matches the source files and quizbot's
    code, and parsed (and the cache rewritten) otherwise; see :mod:`quizbot.kb.cache`.
    """
    if name not in BUILTINS:
        raise NotFoundError(f"no built-in knowledge base named {name!r}")
    location = _cache_location(name)
    if location is None:
        return BUILTINS[name]()
    from quizbot.kb.cache import read_cache, write_cache  # noqa: PLC0415

    path, key = location
    cached = read_cache(path, key)
    if cached is not None:
        _DIGESTS[name] = (cached.kb, cached.digest)
        return cached.kb
    kb = BUILTINS[name]()
    digest = content_digest(kb)
    write_cache(path, key, kb, digest)
    _DIGESTS[name] = (kb, digest)
    return kb


def _known_digest(kb: KnowledgeBaseData) -> str:
    """``content_digest(kb)``, taken from :func:`load_builtin` when it already knows it."""
    known = _DIGESTS.get(kb.name)
    if known is not None and known[0] is kb:
        return known[1]
    digest = content_digest(kb)
    if kb.name in BUILTINS:  # load_builtin's object, used again by every get_kb of the process
        _DIGESTS[kb.name] = (kb, digest)
    return digest


def content_digest(kb: KnowledgeBaseData) -> str:
    """A digest of a KB's facts and schema: equal digests mean nothing to re-import."""
    h = hashlib.sha256()
    for r in sorted(kb.relations.values(), key=lambda r: r.name):
        h.update(f"R\x1f{r.name}\x1f{r.label}\x1f{r.head_type}\x1f{r.tail_type}\x1e".encode())
    for t in sorted(kb.triplets, key=lambda t: (t.relation, t.head, t.tail)):
        h.update(f"T\x1f{t.relation}\x1f{t.head}\x1f{t.tail}\x1f{t.group or ''}\x1e".encode())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class InstallResult:
    """What writing a KB to the database did."""

    name: str
    kb_id: int
    added: int
    removed: int
    unchanged: bool


def _point_rows(kb: KnowledgeBaseData) -> list[NewPoint]:
    rows = []
    for t in kb.triplets:
        rel = kb.relations[t.relation]
        meta: dict[str, Any] = dict(t.meta)
        if t.group is not None:
            meta["group"] = t.group
        rows.append(
            NewPoint(
                relation=t.relation,
                head=t.head,
                tail=t.tail,
                head_type=rel.head_type,
                tail_type=rel.tail_type,
                head_ref=t.head_ref,
                tail_ref=t.tail_ref,
                meta=meta,
            )
        )
    return rows


def install(db: Database, kb: KnowledgeBaseData, *, prune: bool = False) -> InstallResult:
    """Write ``kb`` to the database in one transaction; a no-op if the same content is there."""
    digest = _known_digest(kb)
    try:
        existing = get_knowledge_base(db, kb.name)
    except NotFoundError:
        existing = None
    if existing is not None and existing.meta.get("digest") == digest:
        assert existing.id is not None
        return InstallResult(kb.name, existing.id, 0, 0, unchanged=True)
    meta = {
        **{k: v for k, v in kb.meta.items() if _jsonable(v)},
        "digest": digest,
        "relations": {
            r.name: {"label": r.label, "head_type": r.head_type, "tail_type": r.tail_type}
            for r in kb.relations.values()
        },
    }
    row, added, removed = upsert_knowledge_base(
        db,
        name=kb.name,
        version=kb.version,
        source=kb.source,
        points=_point_rows(kb),
        title=kb.title,
        description=kb.description,
        license=kb.license,
        meta=meta,
        prune=prune,
    )
    assert row.id is not None
    return InstallResult(kb.name, row.id, added, removed, unchanged=False)


def check_import_name(name: str) -> None:
    """Refuse an invalid name (:func:`quizbot.names.check_name`) or a built-in's name for an
    import (checked before reading any file)."""
    check_name(name, field="name")
    if name in BUILTINS:
        raise DuplicateError(
            f"{name!r} is a built-in knowledge base",
            hint="import it under another name: another --name on the command line",
        )


def import_kb(db: Database, kb: KnowledgeBaseData) -> InstallResult:
    """Install an imported (user-supplied) knowledge base under its name, safely.

    Refuses a built-in's name, and a *different* KB under a name already taken
    (:class:`~quizbot.errors.DuplicateError`); importing the same content again is a no-op.
    """
    check_import_name(kb.name)
    try:
        existing = get_knowledge_base(db, kb.name)
    except NotFoundError:
        existing = None
    if existing is not None and existing.meta.get("digest") != content_digest(kb):
        raise DuplicateError(
            f"a different knowledge base is already named {kb.name!r}",
            hint="import it under another name: another --name on the command line",
        )
    return install(db, kb)


def _jsonable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool | list | dict) or value is None


def get_kb(db: Database, name: str) -> tuple[KnowledgeBaseData, int]:
    """A KB by name, with its database id, corrected by its stored overrides.

    Built-ins are installed on first use. The overrides reviewers stored for the KB
    (``quizbot kb review``, the admin tab's review queue) are applied on every call
    (:func:`quizbot.kb.overrides.apply_overrides`): facts marked wrong are left out and triplets
    marked true join ``extra_truths``. The stored knowledge points themselves are not changed.
    """
    kb, kb_id = _stored_kb(db, name)
    return apply_overrides(kb, list_overrides(db, kb.name)), kb_id


def _stored_kb(db: Database, name: str) -> tuple[KnowledgeBaseData, int]:
    if name in BUILTINS:
        kb = load_builtin(name)
        try:
            return kb, install(db, kb, prune=True).kb_id
        except DuplicateError:  # another process (an app replica) installed it at this moment
            return kb, install(db, kb, prune=True).kb_id
    try:
        row = get_knowledge_base(db, name)
    except NotFoundError:
        raise NotFoundError(
            f"no knowledge base named {name!r}",
            hint=f"built-in: {', '.join(BUILTINS)}; see `quizbot kb list`, or import one with "
            "`quizbot kb import`",
        ) from None
    assert row.id is not None
    relations = {
        n: Relation(n, r["label"], r["head_type"], r["tail_type"])
        for n, r in row.meta.get("relations", {}).items()
    }
    triplets = []
    for p in load_knowledge_points(db, row.id):
        meta = dict(p.meta)
        group = meta.pop("group", None)
        triplets.append(Triplet(p.head, p.relation, p.tail, p.head_ref, p.tail_ref, group, meta))
        relations.setdefault(p.relation, Relation(p.relation, p.relation, p.head_type, p.tail_type))
    kb = KnowledgeBaseData(
        name=row.name,
        version=row.version,
        source=row.source,
        relations=relations,
        triplets=tuple(triplets),
        title=row.title,
        description=row.description,
        license=row.license,
        meta=row.meta,
    )
    return kb, row.id


def kb_license(db: Database, name: str) -> str:
    """The licence :func:`kb_listing` gives knowledge base ``name`` ("" if none, or if the
    listing leaves it out), read alone: one indexed row, not the listing's count of every KB's
    knowledge points. What a session start shows under the chat."""
    try:
        kb = get_knowledge_base(db, name)
    except NotFoundError:
        return ""  # a built-in not installed yet: listed without a licence
    return "" if kb.source == ITEM_SET_SOURCE else kb.license or ""


def kb_listing(db: Database) -> list[KbListing]:
    """Every KB in the database, plus built-ins not installed yet.

    The knowledge bases that only hold an imported item set's items (source ``itemset``, no
    knowledge points) are not listed: ``quizbot items list`` shows those sets.
    """
    return merge_listing(
        KbListing(s.kb.name, s.kb.version, s.kb.source, True, s.n_points, s.relations, s.kb.license)
        for s in list_knowledge_bases(db)
        if s.kb.source != ITEM_SET_SOURCE
    )
