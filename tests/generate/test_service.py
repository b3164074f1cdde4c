"""Generation through the service, on both databases: JSONL, storage, paper mode, rephrasing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text
from tenacity import wait_none

from quizbot.errors import InputError
from quizbot.generate.service import GenerateRequest, ProviderCompleter, prepare, write
from quizbot.providers import retry as retry_module
from storage import Database
from storage.repo import table_counts
from tests.helpers.stub import stub_server

PAPER_FILE = (
    Path(__file__).resolve().parents[3] / "shared" / "data" / "pretexeval" / "prompts_pretex.csv"
)
REQUIRED = {
    "id", "kind", "kb", "relation", "head", "tail", "polarity", "transform", "label", "text",
    "prototype", "knowledge_point_id",
}  # fmt: skip


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_generate_writes_jsonl_and_stores_items_once(db: Database, tmp_path: Path) -> None:
    out = tmp_path / "items.jsonl"
    request = GenerateRequest(kb="clinical-core", points=6, seed=3)
    summary = write(db, prepare(db, request), out)
    records = _lines(out)
    assert summary.n_items == len(records) == 96
    assert all(set(r) >= REQUIRED for r in records)
    assert summary.stored_new == 96
    assert table_counts(db)["item"] == 96
    again = tmp_path / "again.jsonl"
    assert write(db, prepare(db, request), again).stored_new == 0  # same items, same ids
    assert out.read_bytes() == again.read_bytes()  # deterministic, byte for byte
    assert table_counts(db)["item"] == 96


def test_stored_items_point_at_their_knowledge_point(db: Database, tmp_path: Path) -> None:
    write(db, prepare(db, GenerateRequest(kb="clinical-core", points=2, seed=1)), tmp_path / "o")
    rows = db.read(
        lambda s: s.execute(
            text(
                "SELECT i.polarity, i.tail, k.tail FROM item i "
                "JOIN knowledge_point k ON k.id = i.knowledge_point_id"
            )
        ).all()
    )
    assert len(rows) == 32  # every item, positive and negative, links to its KB fact
    for polarity, item_tail, fact_tail in rows:
        assert (item_tail == fact_tail) == (polarity == "positive")


@pytest.mark.skipif(not PAPER_FILE.exists(), reason=f"{PAPER_FILE} not present")
def test_the_paper_file_and_an_explicit_point_reproduce_the_paper(
    db: Database, tmp_path: Path
) -> None:
    points = tmp_path / "points.jsonl"
    points.write_text(
        json.dumps(
            {"head": "floxacillin", "relation": "may_treat", "tail": "Bacterial Infections",
             "negative_tail": "Trachoma"}
        )
        + "\n"
    )  # fmt: skip
    request = GenerateRequest(
        kb="clinical-core", points_file=points, prototypes=str(PAPER_FILE), store=False
    )
    out = tmp_path / "paper.jsonl"
    write(db, prepare(db, request), out)
    got = {(r["polarity"], r["transform"]): (r["text"], r["label"]) for r in _lines(out)}
    # From the paper's released statements (shared/data/README.md), whitespace as released.
    assert got[("positive", "none")] == ("floxacillin might treat Bacterial Infections .", True)
    assert got[("positive", "dn")] == (
        "floxacillin is not able to treat Bacterial Infections .",
        False,
    )
    assert got[("positive", "inv+ins+dn")] == (
        "A patient that suffers from Bacterial Infections  has no need to take floxacillin.",
        False,
    )
    assert got[("negative", "none")] == ("floxacillin might treat Trachoma .", False)
    assert got[("negative", "inv+ins+dn")][1] is True
    assert table_counts(db)["item"] == 0  # store=False


def test_unknown_relations_and_uncovered_prototypes_are_clear_errors(db: Database) -> None:
    with pytest.raises(InputError, match="no relation 'may_treat'") as info:
        prepare(db, GenerateRequest(kb="clinical-core", relations=["may_treat"]))
    assert info.value.hint and "has_symptom" in info.value.hint
    with pytest.raises(InputError, match="no prototype file or imported prototype set"):
        prepare(db, GenerateRequest(kb="clinical-core", prototypes="nope"))


def test_points_files_are_validated_with_line_and_field(db: Database, tmp_path: Path) -> None:
    bad = tmp_path / "points.jsonl"
    bad.write_text('{"head": "a", "relation": "has_symptom", "tail": "b"}\n{"head": "a"}\n')
    with pytest.raises(InputError) as info:
        prepare(db, GenerateRequest(kb="clinical-core", points_file=bad))
    assert (info.value.line, info.value.field) == (2, "relation")
    bad.write_text("not json\n")
    with pytest.raises(InputError, match="not valid JSON") as info:
        prepare(db, GenerateRequest(kb="clinical-core", points_file=bad))
    assert info.value.line == 1


def test_rephrasing_is_validated_recorded_and_cached(db: Database, tmp_path: Path) -> None:
    request = GenerateRequest(kb="clinical-core", points=1, seed=3, store=False)
    plain = tmp_path / "plain.jsonl"
    write(db, prepare(db, request), plain)
    records = _lines(plain)
    good, flipped = records[0], records[1]
    script = tmp_path / "script.jsonl"
    lines = [
        {
            "statement": good["text"],
            "rephrased": str(good["text"]).replace("Recognised", "Known", 1),
        },
        {
            "statement": flipped["text"],
            "rephrased": str(flipped["text"]).replace(" is a ", " is not a ", 1),
        },
    ]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    rephrased = tmp_path / "rephrased.jsonl"
    generation = prepare(db, GenerateRequest(kb="clinical-core", points=1, seed=3, store=False,
                                             rephrase=f"scripted:{script}"))  # fmt: skip
    write(db, generation, rephrased)
    after = _lines(rephrased)
    assert after[0]["text"] == str(good["text"]).replace("Recognised", "Known", 1)
    assert after[0]["rephrase_model"] == "scripted/script"
    assert after[0]["id"] != good["id"]
    assert after[1]["text"] == flipped["text"] and after[1]["rephrase_model"] is None  # rejected
    assert [a["text"] for a in after[2:]] == [r["text"] for r in records[2:]]
    assert generation.rephraser is not None
    assert "negation flipped" in generation.rephraser.stats.summary()
    assert table_counts(db)["rephrase_cache"] == 1  # only the validated one is cached
    # the KB's synonyms reach the validator
    assert generation.rephraser.synonyms is generation.kb.lexicon.synonyms


def test_a_judge_confirms_only_what_the_rules_cannot_decide(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--judge`` over real HTTP: a rephrasing rejected for claim strength is put to the judge
    and used when it says yes; one rejected for negation is never put to it."""
    monkeypatch.setattr(retry_module, "WAIT", wait_none())
    records = _lines(_plain(db, tmp_path))
    hedged = str(records[0]["text"]).rstrip(".") + ", usually."
    flipped = str(records[1]["text"]).replace(" is a ", " is not a ", 1)
    assert flipped != records[1]["text"]
    script = tmp_path / "script.jsonl"
    script.write_text(
        json.dumps({"statement": records[0]["text"], "rephrased": hedged})
        + "\n"
        + json.dumps({"statement": records[1]["text"], "rephrased": flipped})
        + "\n"
    )
    log = tmp_path / "judge.jsonl"
    with stub_server("--judge-correct", "usually,never", "--log", str(log)) as base:
        monkeypatch.setenv("OPENAI_API_BASE", base)
        request = GenerateRequest(kb="clinical-core", points=1, seed=3, store=False,
                                  rephrase=f"scripted:{script}", judge="openai/judge")  # fmt: skip
        generation = prepare(db, request)
        out = tmp_path / "judged.jsonl"
        write(db, generation, out)
    after = _lines(out)
    assert after[0]["text"] == hedged and after[0]["rephrase_model"] == "scripted/script"
    assert after[1]["text"] == records[1]["text"] and after[1]["rephrase_model"] is None
    prompts = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(prompts) == 1 and hedged in json.dumps(prompts[0])  # only the judgeable one
    assert generation.rephraser is not None
    assert "judge confirmed 1 of 1" in generation.rephraser.stats.summary()
    # Without a judge the same rephrasing is rejected; a judge needs --rephrase.
    plain = prepare(db, GenerateRequest(kb="clinical-core", points=1, seed=3, store=False,
                                        rephrase=f"scripted:{script}"))  # fmt: skip
    write(db, plain, tmp_path / "unjudged.jsonl")
    assert _lines(tmp_path / "unjudged.jsonl")[0]["rephrase_model"] is None
    with pytest.raises(InputError, match="needs --rephrase"):
        prepare(db, GenerateRequest(kb="clinical-core", points=1, judge="openai/judge"))


def _plain(db: Database, tmp_path: Path) -> Path:
    out = tmp_path / "plain.jsonl"
    write(db, prepare(db, GenerateRequest(kb="clinical-core", points=1, seed=3, store=False)), out)
    return out


def test_rephrasing_through_a_model_over_http(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real provider call per statement; this stub answers "True", which no validator accepts."""
    monkeypatch.setattr(retry_module, "WAIT", wait_none())
    log = tmp_path / "stub.jsonl"
    with stub_server("--answer", "true", "--log", str(log)) as base:
        monkeypatch.setenv("OPENAI_API_BASE", base)
        request = GenerateRequest(
            kb="clinical-core", points=1, seed=3, store=False, rephrase="openai/rephraser"
        )
        generation = prepare(db, request)
        out = tmp_path / "r.jsonl"
        write(db, generation, out)
    assert len(log.read_text().splitlines()) == 2 * 16  # asked twice per statement, then gave up
    records = _lines(out)
    assert all(r["rephrase_model"] is None for r in records)  # every prototype kept
    assert generation.rephraser is not None
    assert "rephrased 0 of 16" in generation.rephraser.stats.summary()
    assert table_counts(db)["rephrase_cache"] == 0


def test_an_unreachable_rephrasing_model_falls_back_quickly(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(retry_module, "WAIT", wait_none())
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    request = GenerateRequest(kb="clinical-core", points=1, store=False, rephrase="openai/gone")
    generation = prepare(db, request)
    write(db, generation, tmp_path / "o.jsonl")
    assert generation.rephraser is not None
    completer = generation.rephraser.completer
    assert isinstance(completer, ProviderCompleter)
    assert completer._failures >= completer.give_up_after  # the breaker opened
    assert all(r["rephrase_model"] is None for r in _lines(tmp_path / "o.jsonl"))
