"""A compact on-disk cache of a parsed built-in KB, so a command does not parse HPO every time.

Parsing the HPO files takes about 1.5-3 s per process; loading this cache takes a fraction of it.
One file per KB (``<home>/cache/kb/<name>.kbcache``) holds everything :func:`load_hpo` builds:
the triplets with their meta, relations, lexicon, metadata, the content digest the registry
stores with the KB, and the oracle's state (HPO: the ontology's names, ``is_a`` parents,
redirects and obsolete terms, and each disease's annotations), from which an equivalent
:class:`~quizbot.kb.hpo.HpoOracle` is rebuilt.

**Key.** A cache is used only if its key matches: a digest of the cache format, the Python
version, each source file's path, size and modification time (a ``stat``, not a read: hashing
60 MB every command would cost a tenth of a second), and the *contents* of the quizbot modules that
build the KB (so a change to the parser invalidates it without anyone bumping a version).

**Format.** One header line (``quizbot-kb-cache <format> <key> <length> <crc32>``) then a pickle
(protocol 5) of plain data only: tuples, lists, dicts, sets, frozensets, strings, numbers, None.
Pickle rather than orjson because the KB is full of tuples and frozensets (triplet categories,
lexicon entries, the oracle's annotation sets) that JSON would turn into lists, costing a
type-by-type restoration pass and an exactness risk; and because pickle keeps shared objects
shared (diseases known under several names share one annotation set). It is read with an
unpickler that refuses every global, so a tampered file can build nothing but plain data: no
code runs. A truncated or corrupt file fails the length or CRC check (or the unpickling) and is
ignored; the caller parses the sources and rewrites it.

**Writes** go to a temporary file in the same directory, renamed over the cache in one step
(``os.replace``): a reader sees the old file or the new one, never half of one, however many
processes write at once. No fsync: a file cut short by a power loss fails its length check.
"""

from __future__ import annotations

import gc
import hashlib
import io
import logging
import os
import pickle
import sys
import tempfile
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizbot.kb.model import KnowledgeBaseData, Lexicon, Relation, Triplet

__all__ = ["CACHE_FORMAT", "CachedKb", "cache_key", "cache_path", "read_cache", "write_cache"]

log = logging.getLogger(__name__)

CACHE_FORMAT = 1
_MAGIC = b"quizbot-kb-cache"
_SUFFIX = ".kbcache"


@dataclass(frozen=True)
class CachedKb:
    """A KB read back from its cache, with the content digest stored alongside."""

    kb: KnowledgeBaseData
    digest: str


def cache_path(directory: Path, name: str) -> Path:
    """Where the cache of KB ``name`` lives under ``directory``."""
    return directory / f"{name}{_SUFFIX}"


def cache_key(sources: Iterable[Path], code: Iterable[Path]) -> str:
    """The key a cache must carry to be used: format, Python, sources (stat) and code (bytes).

    Raises :class:`OSError` if a file is missing (the caller then does not use the cache).
    """
    h = hashlib.sha256(f"{CACHE_FORMAT}\x1f{sys.version_info[:2]}\x1e".encode())
    for path in sources:
        st = path.stat()
        h.update(f"S\x1f{path}\x1f{st.st_size}\x1f{st.st_mtime_ns}\x1e".encode())
    for path in code:
        h.update(f"C\x1f{path.name}\x1f".encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:32]


class _PlainUnpickler(pickle.Unpickler):
    """Unpickles plain data only: any global (a class, a function) is refused."""

    def find_class(self, module: str, name: str) -> Any:
        """Refuse every global: the cache holds builtin containers and scalars only."""
        raise pickle.UnpicklingError(f"the KB cache may not name {module}.{name}")


def read_cache(path: Path, key: str) -> CachedKb | None:
    """The KB cached at ``path`` under ``key``, or None if absent, stale or corrupt."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        end = raw.index(b"\n")
        magic, fmt, found_key, length, crc = raw[:end].split(b" ")
        if magic != _MAGIC or int(fmt) != CACHE_FORMAT or found_key.decode() != key:
            return None
        body = memoryview(raw)[end + 1 :]
        if len(body) != int(length) or zlib.crc32(body) != int(crc, 16):
            log.warning("ignoring a corrupt KB cache: %s", path)
            return None
        enabled = gc.isenabled()
        gc.disable()  # a few hundred thousand objects, all kept: no cycles to look for
        try:
            payload = _PlainUnpickler(io.BytesIO(body)).load()
            return _decode(payload)
        finally:
            if enabled:
                gc.enable()
    except Exception as exc:  # any damage means "parse again", never a failure
        log.warning("ignoring an unreadable KB cache %s: %s", path, exc)
        return None


def write_cache(path: Path, key: str, kb: KnowledgeBaseData, digest: str) -> bool:
    """Write ``kb`` to ``path`` atomically under ``key``; False (logged) if it cannot be cached.

    A KB whose oracle is of a kind the cache does not know is not cached.
    """
    payload = _encode(kb, digest)
    if payload is None:
        return False
    body = pickle.dumps(payload, protocol=5)
    header = b" ".join((_MAGIC, str(CACHE_FORMAT).encode(), key.encode(), str(len(body)).encode()))
    header += f" {zlib.crc32(body):08x}\n".encode()
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(header)
            handle.write(body)
        Path(tmp).replace(path)
        tmp = None
        return True
    except OSError as exc:
        log.warning("cannot write the KB cache %s: %s", path, exc)
        return False
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


# --------------------------------------------------------------------------------------------
# KnowledgeBaseData <-> plain data


def _encode(kb: KnowledgeBaseData, digest: str) -> dict[str, Any] | None:
    oracle: tuple[str, Any] | None = None
    if kb.oracle is not None:
        from quizbot.kb.hpo import HpoOracle  # noqa: PLC0415 - only KBs with an oracle need it

        if not isinstance(kb.oracle, HpoOracle):
            return None
        oracle = ("hpo", kb.oracle.cache_state())
    lex = kb.lexicon
    return {
        "digest": digest,
        "name": kb.name,
        "version": kb.version,
        "source": kb.source,
        "relations": [(r.name, r.label, r.head_type, r.tail_type) for r in kb.relations.values()],
        "triplets": [
            (t.head, t.relation, t.tail, t.head_ref, t.tail_ref, t.group, _plain(t.meta))
            for t in kb.triplets
        ],
        "title": kb.title,
        "description": kb.description,
        "license": kb.license,
        "meta": dict(kb.meta),
        "oracle": oracle,
        "lexicon": (
            dict(lex.synonyms),
            dict(lex.parents),
            dict(lex.classes),
            dict(lex.components),
            lex.generic,
            dict(lex.head_groups),
        ),
        "extra_truths": kb.extra_truths,
        "reviewed_false": kb.reviewed_false,
    }


def _plain(meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta`` as a dict, copied only when it is some other mapping."""
    return meta if type(meta) is dict else dict(meta)


def _decode(p: Mapping[str, Any]) -> CachedKb:
    oracle = None
    if p["oracle"] is not None:
        kind, state = p["oracle"]
        if kind != "hpo":
            raise ValueError(f"unknown oracle kind {kind!r}")
        from quizbot.kb.hpo import HpoOracle  # noqa: PLC0415

        oracle = HpoOracle.from_cache_state(state)
    synonyms, parents, classes, components, generic, head_groups = p["lexicon"]
    kb = KnowledgeBaseData(
        name=p["name"],
        version=p["version"],
        source=p["source"],
        relations={r[0]: Relation(*r) for r in p["relations"]},
        triplets=tuple([Triplet(*row) for row in p["triplets"]]),
        title=p["title"],
        description=p["description"],
        license=p["license"],
        meta=p["meta"],
        oracle=oracle,
        lexicon=Lexicon(synonyms, parents, classes, components, generic, head_groups),
        extra_truths=p["extra_truths"],
        reviewed_false=p["reviewed_false"],
    )
    return CachedKb(kb, str(p["digest"]))
