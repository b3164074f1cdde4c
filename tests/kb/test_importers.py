"""Importers: the real MedLAMA folder, malformed copies of it, triplet files, prototype files."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from quizbot.errors import InputError
from quizbot.generate.prototypes import read_prototypes
from quizbot.kb.importers import read_medlama, read_triplets
from quizbot.kb.model import KnowledgeBaseData
from quizbot.transforms import Transform

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
MEDLAMA = DATA / "medlama"
PRETEX = DATA / "pretexeval" / "prompts_pretex.csv"

MEDLAMA_HEADER = (
    "head_cui,head_name,rel,tail_cuis_list,tail_names_list,tail_names,tail_cuis,"
    "tail_cuis_len,tail_names_len,avg_match,avg_rouge_l"
)
# The example row documented in /work/shared/data/README.md.
EXAMPLE_ROW = (
    "C0066411,methylnaltrexone,may_treat,['C0009806'],['Constipation'],Constipation,C0009806,"
    "1,1,0.0,0.0"
)

needs_medlama = pytest.mark.skipif(
    not (MEDLAMA / "2021AA").is_dir(),
    reason=f"MedLAMA data not found at {MEDLAMA} (see /work/shared/data/README.md)",
)
needs_pretex = pytest.mark.skipif(
    not PRETEX.is_file(), reason=f"PretexEval prototype file not found at {PRETEX}"
)


def _keys(kb: KnowledgeBaseData) -> set[tuple[str, str, str]]:
    return {(t.relation, t.head, t.tail) for t in kb.triplets}


# ----------------------------------------------------------------------------- real MedLAMA


@pytest.fixture(scope="module")
def medlama() -> KnowledgeBaseData:
    if not (MEDLAMA / "2021AA").is_dir():
        pytest.skip(f"MedLAMA data not found at {MEDLAMA} (see /work/shared/data/README.md)")
    return read_medlama(MEDLAMA, "medlama")


@needs_medlama
def test_real_medlama_has_19_relations_and_19000_primary_points(
    medlama: KnowledgeBaseData,
) -> None:
    listed = {
        line.strip()
        for line in (MEDLAMA / "relations.txt").read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    assert len(listed) == 19
    assert set(medlama.relations) == listed
    assert {t.relation for t in medlama.triplets} == listed
    primary = [t for t in medlama.triplets if t.meta["primary"] is True]
    assert len(primary) == 19_000
    # 1,000 rows per relation, one primary point per row (each row is one head).
    assert Counter(t.relation for t in primary) == dict.fromkeys(listed, 1000)
    assert len({(t.relation, t.head) for t in primary}) == 19_000
    # Multi-gold rows add secondary triplets on top of the primaries.
    assert len(medlama.triplets) > 19_000
    assert all(isinstance(t.meta["primary"], bool) for t in medlama.triplets)


@needs_medlama
def test_real_multi_gold_row_gives_every_gold_tail_and_only_the_first_is_primary(
    medlama: KnowledgeBaseData,
) -> None:
    # may_treat_1000.csv, line 4 (checked with grep):
    # C4726693,rimegepant sulfate,may_treat,...,
    # Migraine Disorders || Migraine with Aura || Migraine without Aura,
    # C0149931 || C0154723 || C0338480,...
    row = (MEDLAMA / "2021AA" / "may_treat_1000.csv").read_text(encoding="utf-8").splitlines()[3]
    assert row.startswith("C4726693,rimegepant sulfate,may_treat,")
    gold = ["Migraine Disorders", "Migraine with Aura", "Migraine without Aura"]
    cuis = ["C0149931", "C0154723", "C0338480"]
    found = [
        t for t in medlama.triplets if t.relation == "may_treat" and t.head == "rimegepant sulfate"
    ]
    assert sorted(t.tail for t in found) == sorted(gold)
    by_tail = {t.tail: t for t in found}
    assert [by_tail[g].meta["primary"] for g in gold] == [True, False, False]
    assert [by_tail[g].tail_ref for g in gold] == cuis
    assert {t.head_ref for t in found} == {"C4726693"}


@needs_medlama
def test_medlama_folder_and_its_2021aa_subfolder_give_the_same_kb(
    medlama: KnowledgeBaseData,
) -> None:
    sub = read_medlama(MEDLAMA / "2021AA", "medlama")
    assert _keys(sub) == _keys(medlama)
    assert set(sub.relations) == set(medlama.relations)
    assert sum(1 for t in sub.triplets if t.meta["primary"]) == 19_000


# ------------------------------------------------------------------------ malformed MedLAMA


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_tiny_medlama_folder_imports(tmp_path: Path) -> None:
    _write(tmp_path / "2021AA" / "may_treat_1000.csv", [MEDLAMA_HEADER, EXAMPLE_ROW])
    kb = read_medlama(tmp_path, "tiny")
    assert [(t.head, t.relation, t.tail) for t in kb.triplets] == [
        ("methylnaltrexone", "may_treat", "Constipation")
    ]
    assert kb.triplets[0].head_ref == "C0066411"
    assert kb.triplets[0].tail_ref == "C0009806"
    assert kb.triplets[0].meta["primary"] is True


def test_medlama_missing_column_names_file_line_1_and_field(tmp_path: Path) -> None:
    header = MEDLAMA_HEADER.replace("tail_names,", "")
    row = EXAMPLE_ROW.replace(",Constipation,C0009806", ",C0009806")
    file = _write(tmp_path / "2021AA" / "may_treat_1000.csv", [header, row])
    with pytest.raises(InputError) as err:
        read_medlama(tmp_path, "bad")
    message = str(err.value)
    assert str(file) in message
    assert "line 1" in message
    assert "'tail_names'" in message
    assert err.value.line == 1
    assert err.value.field == "tail_names"


@needs_medlama
def test_medlama_row_with_another_relation_names_its_line_and_rel(tmp_path: Path) -> None:
    original = (MEDLAMA / "2021AA" / "may_treat_1000.csv").read_text(encoding="utf-8")
    lines = original.splitlines()
    assert len(lines) == 1001  # header + 1,000 rows, one physical line each
    bad_line = 538
    fields = next(csv.reader([lines[bad_line - 1]]))
    assert fields[2] == "may_treat"
    fields[2] = "may_prevent"
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(fields)
    lines[bad_line - 1] = buffer.getvalue()
    file = _write(tmp_path / "2021AA" / "may_treat_1000.csv", lines)
    with pytest.raises(InputError) as err:
        read_medlama(tmp_path, "bad")
    message = str(err.value)
    assert str(file) in message
    assert f"line {bad_line}," in message
    assert "field 'rel'" in message
    assert "may_prevent" in message


@needs_medlama
def test_a_real_copy_imports_cleanly(tmp_path: Path) -> None:
    target = tmp_path / "2021AA"
    target.mkdir()
    shutil.copy(MEDLAMA / "2021AA" / "may_treat_1000.csv", target)
    kb = read_medlama(tmp_path, "copy")
    assert set(kb.relations) == {"may_treat"}
    assert sum(1 for t in kb.triplets if t.meta["primary"]) == 1000


def test_medlama_empty_head_names_line_and_field(tmp_path: Path) -> None:
    empty_head = EXAMPLE_ROW.replace("C0066411,methylnaltrexone,", "C0066411,  ,")
    file = _write(
        tmp_path / "2021AA" / "may_treat_1000.csv",
        [MEDLAMA_HEADER, EXAMPLE_ROW, EXAMPLE_ROW.replace("methyl", "ethyl"), empty_head],
    )
    with pytest.raises(InputError) as err:
        read_medlama(tmp_path, "bad")
    assert str(err.value).startswith(f"{file}, line 4, field 'head_name':")


def test_medlama_without_1000_files_is_an_input_error(tmp_path: Path) -> None:
    _write(tmp_path / "2021AA" / "may_treat_977_hard.csv", [MEDLAMA_HEADER, EXAMPLE_ROW])
    with pytest.raises(InputError) as err:
        read_medlama(tmp_path, "none")
    assert "_1000.csv" in str(err.value)
    assert str(tmp_path / "2021AA") in str(err.value)


def test_medlama_path_that_is_not_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        read_medlama(tmp_path / "absent", "none")


# ----------------------------------------------------------------------- generic triplets


def test_triplets_csv_imports_with_types_and_groups(tmp_path: Path) -> None:
    file = tmp_path / "facts.csv"
    file.write_text(
        "head,relation,tail,head_type,tail_type,group\n"
        "gout,has_symptom,joint pain,disease,symptom,musculoskeletal\n"
        "gout,treated_with_drug,colchicine,,,musculoskeletal\n"
        "aspirin,inhibits,cyclooxygenase,drug,enzyme,\n"
        "ibuprofen,inhibits,cyclooxygenase,drug,enzyme,\n",
        encoding="utf-8",
    )
    kb = read_triplets(file, "mine")
    assert kb.name == "mine"
    assert {(t.head, t.relation, t.tail, t.group) for t in kb.triplets} == {
        ("gout", "has_symptom", "joint pain", "musculoskeletal"),
        ("gout", "treated_with_drug", "colchicine", "musculoskeletal"),
        ("aspirin", "inhibits", "cyclooxygenase", None),
        ("ibuprofen", "inhibits", "cyclooxygenase", None),
    }
    assert set(kb.relations) == {"has_symptom", "treated_with_drug", "inhibits"}
    rel = kb.relations["inhibits"]
    assert (rel.head_type, rel.tail_type) == ("drug", "enzyme")
    assert (kb.relations["has_symptom"].head_type, kb.relations["has_symptom"].tail_type) == (
        "disease",
        "symptom",
    )
    # No types given: a relation the project knows keeps its known types (disease -> drug).
    drug = kb.relations["treated_with_drug"]
    assert (drug.head_type, drug.tail_type) == ("disease", "drug")


def test_triplets_jsonl_imports(tmp_path: Path) -> None:
    file = tmp_path / "facts.jsonl"
    records = [
        {
            "head": "BRCA1",
            "relation": "linked_to",
            "tail": "breast cancer",
            "head_type": "gene",
            "tail_type": "disease",
        },
        {"head": "BRCA2", "relation": "linked_to", "tail": "ovarian cancer"},
        {"head": "asthma", "relation": "has_symptom", "tail": "wheeze", "group": "respiratory"},
    ]
    file.write_text("\n".join(json.dumps(r) for r in records) + "\n\n", encoding="utf-8")
    kb = read_triplets(file, "jl")
    assert {(t.head, t.relation, t.tail, t.group) for t in kb.triplets} == {
        ("BRCA1", "linked_to", "breast cancer", None),
        ("BRCA2", "linked_to", "ovarian cancer", None),
        ("asthma", "has_symptom", "wheeze", "respiratory"),
    }
    linked = kb.relations["linked_to"]
    assert (linked.head_type, linked.tail_type) == ("gene", "disease")


def test_duplicate_triplets_are_collapsed(tmp_path: Path) -> None:
    file = tmp_path / "dups.csv"
    file.write_text(
        "head,relation,tail\n"
        "gout,has_symptom,joint pain\n"
        "gout,has_symptom,fever\n"
        "gout,has_symptom,joint pain\n"
        "  gout , has_symptom ,  joint   pain \n",
        encoding="utf-8",
    )
    kb = read_triplets(file, "dups")
    assert [(t.head, t.tail) for t in kb.triplets] == [("gout", "joint pain"), ("gout", "fever")]


def test_csv_missing_tail_names_line_3_and_field(tmp_path: Path) -> None:
    file = tmp_path / "bad.csv"
    file.write_text(
        "head,relation,tail\ngout,has_symptom,joint pain\nasthma,has_symptom,\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as err:
        read_triplets(file, "bad")
    assert str(err.value).startswith(f"{file}, line 3, field 'tail':")


def test_csv_missing_column_is_line_1(tmp_path: Path) -> None:
    file = tmp_path / "bad.csv"
    file.write_text("head,rel,tail\ngout,has_symptom,joint pain\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_triplets(file, "bad")
    assert str(err.value).startswith(f"{file}, line 1, field 'relation':")


@pytest.mark.parametrize("relation", ["Has_symptom", "has symptom", "has-symptom", "1st"])
def test_relation_names_must_be_lowercase_identifiers(tmp_path: Path, relation: str) -> None:
    file = tmp_path / "bad.csv"
    file.write_text(
        f"head,relation,tail\ngout,has_symptom,fever\ngout,{relation},joint pain\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        read_triplets(file, "bad")
    assert str(err.value).startswith(f"{file}, line 3, field 'relation':")
    assert relation in str(err.value)


def test_jsonl_line_that_is_not_json_names_its_line(tmp_path: Path) -> None:
    file = tmp_path / "bad.jsonl"
    file.write_text(
        '{"head": "gout", "relation": "has_symptom", "tail": "fever"}\n\n{head: gout}\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        read_triplets(file, "bad")
    assert str(err.value).startswith(f"{file}, line 3:")
    assert "JSON" in str(err.value)


def test_jsonl_number_instead_of_text_names_line_and_field(tmp_path: Path) -> None:
    file = tmp_path / "bad.jsonl"
    file.write_text(
        '{"head": "gout", "relation": "has_symptom", "tail": "fever"}\n'
        '{"head": "gout", "relation": "has_symptom", "tail": 42}\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        read_triplets(file, "bad")
    assert str(err.value).startswith(f"{file}, line 2, field 'tail':")
    assert "text" in str(err.value)


def test_inconsistent_types_name_both_lines(tmp_path: Path) -> None:
    file = tmp_path / "bad.csv"
    file.write_text(
        "head,relation,tail,head_type,tail_type\n"
        "gout,has_symptom,fever,disease,symptom\n"
        "asthma,has_symptom,wheeze,disease,symptom\n"
        "aspirin,has_symptom,tinnitus,drug,symptom\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        read_triplets(file, "bad")
    message = str(err.value)
    assert message.startswith(f"{file}, line 4, field 'head_type':")
    assert "line 2" in message  # the line that set the types first
    assert "drug" in message
    assert "disease" in message


@pytest.mark.parametrize(
    ("filename", "content"),
    [("empty.jsonl", ""), ("blank.jsonl", "\n  \n"), ("header_only.csv", "head,relation,tail\n")],
)
def test_file_without_triplets_says_so(tmp_path: Path, filename: str, content: str) -> None:
    file = tmp_path / filename
    file.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_triplets(file, "empty")
    assert "no triplets" in str(err.value)
    assert str(file) in str(err.value)


def test_csv_line_numbers_count_blank_lines(tmp_path: Path) -> None:
    file = tmp_path / "bad.csv"
    file.write_text(
        "head,relation,tail\ngout,has_symptom,fever\n\nasthma,has_symptom,\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as err:
        read_triplets(file, "bad")
    assert err.value.line == 4


def test_csv_with_a_byte_order_mark_imports(tmp_path: Path) -> None:
    file = tmp_path / "excel.csv"
    file.write_bytes(b"\xef\xbb\xbfhead,relation,tail\ngout,has_symptom,fever\n")
    kb = read_triplets(file, "excel")
    assert _keys(kb) == {("has_symptom", "gout", "fever")}


# ------------------------------------------------------------------------------ prototypes

TRANSFORM_ORDER = ["none", "inv", "ins", "inv+ins", "dn", "inv+dn", "ins+dn", "inv+ins+dn"]


def test_read_prototypes_detects_the_pool_format(tmp_path: Path) -> None:
    file = tmp_path / "pool.csv"
    rows = ["relation,transform,head_type,tail_type,label,template"]
    for transform in TRANSFORM_ORDER:
        neg = " not" if "dn" in transform else ""
        rows.append(f"cures,{transform},drug,disease,cures,[X] does{neg} cure [Y] ({transform}).")
    file.write_text("\n".join(rows) + "\n", encoding="utf-8")
    protos, kind, text = read_prototypes(file, "mine")
    assert kind == "pool"
    assert text == file.read_text(encoding="utf-8")
    assert protos.name == "mine"
    assert not protos.verbatim
    assert protos.covers("cures")
    assert protos.render("cures", Transform.DN, "penicillin", "syphilis") == (
        "Penicillin does not cure syphilis (dn)."
    )


def test_read_prototypes_detects_the_pretex_format(tmp_path: Path) -> None:
    file = tmp_path / "paper.csv"
    columns = ["human_prompt", *(f"prompt{i}" for i in range(2, 9))]
    header = "pid,default_prompt," + ",".join(columns)
    cells = [f"[X] cures{i}  [Y] ." for i in range(1, 9)]
    file.write_text(f"{header}\ncures,[X] cures [Y] .,{','.join(cells)}\n", encoding="utf-8")
    protos, kind, _text = read_prototypes(file, "paper")
    assert kind == "pretex"
    assert protos.verbatim
    # The documented column order: human_prompt=none, prompt2=dn, prompt3=inv, ...
    assert protos.render("cures", Transform.NONE, "a", "b") == "a cures1  b ."
    assert protos.render("cures", Transform.DN, "a", "b") == "a cures2  b ."
    assert protos.render("cures", Transform.INV_INS_DN, "a", "b") == "a cures8  b ."


def test_read_prototypes_unknown_header_is_line_1(tmp_path: Path) -> None:
    file = tmp_path / "odd.csv"
    file.write_text("id,text\n1,[X] is [Y]\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_prototypes(file, "odd")
    assert str(err.value).startswith(f"{file}, line 1:")
    assert err.value.line == 1


@needs_pretex
def test_real_pretex_file_loads_17_relations_verbatim() -> None:
    protos, kind, text = read_prototypes(PRETEX, "pretex")
    assert kind == "pretex"
    assert text == PRETEX.read_text(encoding="utf-8")
    relations = {r for r, _ in protos.prototypes}
    assert len(relations) == 17
    assert all(protos.covers(r) for r in relations)
    # The two inverse relations the paper leaves out (README).
    assert not relations & {"gene_associated_with_disease", "gene_product_encoded_by_gene"}
    # The README's worked example, word for word (double space and lowercase start kept).
    head, tail = "floxacillin", "Bacterial Infections"
    assert protos.render("may_treat", Transform.NONE, head, tail) == (
        "floxacillin might treat Bacterial Infections ."
    )
    assert protos.render("may_treat", Transform.DN, head, tail) == (
        "floxacillin is not able to treat Bacterial Infections ."
    )
    assert protos.render("may_treat", Transform.INV_INS_DN, head, tail) == (
        "A patient that suffers from Bacterial Infections  has no need to take floxacillin."
    )
