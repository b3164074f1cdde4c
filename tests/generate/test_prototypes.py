"""Prototype sets: our pool, the paper's file, instantiation, and clean errors for bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizbot.errors import InputError
from quizbot.generate.prototypes import (
    Prototype,
    default_prototypes,
    load_pool_csv,
    load_pretex_csv,
)
from quizbot.transforms import TRANSFORMS, Transform

PAPER_FILE = (
    Path(__file__).resolve().parents[3] / "shared" / "data" / "pretexeval" / "prompts_pretex.csv"
)
needs_paper = pytest.mark.skipif(not PAPER_FILE.exists(), reason=f"{PAPER_FILE} not present")

HEADER = "relation,transform,head_type,tail_type,label,template\n"


def _pool(rows: list[str]) -> str:
    return HEADER + "\n".join(rows) + "\n"


def _full_relation(name: str = "may_treat") -> list[str]:
    return [
        f"{name},{t.value},drug,disease,may treat,[X] t{i} [Y]." for i, t in enumerate(TRANSFORMS)
    ]


@needs_paper
def test_the_paper_file_reproduces_the_papers_statements_word_for_word() -> None:
    # The released statements quoted with the paper's file (shared/data/README.md).
    paper = load_pretex_csv(PAPER_FILE)
    assert paper.verbatim
    assert (
        paper.render("may_treat", Transform.NONE, "floxacillin", "Bacterial Infections")
        == "floxacillin might treat Bacterial Infections ."
    )
    assert (
        paper.render("may_treat", Transform.DN, "floxacillin", "Bacterial Infections")
        == "floxacillin is not able to treat Bacterial Infections ."
    )
    assert (
        paper.render("may_treat", Transform.INV_INS_DN, "floxacillin", "Bacterial Infections")
        == "A patient that suffers from Bacterial Infections  has no need to take floxacillin."
    )
    assert len({r for r, _ in paper.prototypes}) == 17


def test_our_pool_cleans_and_capitalises() -> None:
    pool = default_prototypes()
    text = pool.render("may_treat", Transform.NONE, "floxacillin", "Bacterial  Infections")
    assert text == "Recognised uses of floxacillin include treating Bacterial Infections."
    # A template that opens with a placeholder capitalises the entity, head or tail.
    head_first = pool.render("gene_product_encoded_by_gene", Transform.NONE, "fibrillin-1", "FBN1")
    assert head_first == "Fibrillin-1 is produced from FBN1."
    assert pool.render(
        "has_inheritance", Transform.INV, "Marfan syndrome", "autosomal  dominant inheritance"
    ).startswith("Autosomal dominant inheritance is")


ODD_ENTITIES = [
    ("floxacillin", "Bacterial Infections"),
    ("  padded   name ", "x"),
    ("mRNA vaccine", "COVID-19"),
    ("FBN1", "Marfan syndrome"),
    ("Neoplasms, Germ Cell and Embryonal", "1p/19q co-deletion"),
]


@pytest.mark.parametrize("verbatim", [False, True])
def test_fast_renderer_matches_the_reference_for_every_relation(verbatim: bool) -> None:
    pool = default_prototypes()
    if verbatim:
        pool = load_pool_csv(text=_pool(_full_relation()), name="v")
        pool = type(pool)(pool.name, pool.prototypes, pool.relations, verbatim=True)
    for relation in sorted({r for r, _ in pool.prototypes}):
        render8 = pool.renderer(relation)
        for head, tail in ODD_ENTITIES:
            fast = render8(head, tail)
            slow = tuple(pool.render(relation, t, head, tail) for t in TRANSFORMS)
            assert fast == slow, relation


def test_prototype_parse_requires_each_placeholder_once() -> None:
    assert Prototype.parse("[Y] before [X].").fill("h", "t") == "t before h."
    for bad in ("[X] only.", "[X] [X] [Y].", "no placeholders"):
        with pytest.raises(ValueError, match="exactly once"):
            Prototype.parse(bad)


@pytest.mark.parametrize(
    ("rows", "line", "field", "words"),
    [
        (
            [*_full_relation()[:7], "may_treat,sideways,drug,disease,l,[X] [Y]."],
            9,
            "transform",
            "unknown transform",
        ),
        (
            [*_full_relation()[:7], "may_treat,inv+ins+dn,drug,disease,l,[X] only."],
            9,
            "template",
            "exactly once",
        ),
        (
            [*_full_relation()[:7], "may_treat,inv+ins+dn,drug,,l,[X] [Y]."],
            9,
            "tail_type",
            "missing value",
        ),
        (
            [*_full_relation(), "may_treat,none,drug,disease,l,[X] again [Y]."],
            10,
            "transform",
            "second prototype",
        ),
    ],
)
def test_bad_pool_files_name_the_line_and_field(
    rows: list[str], line: int, field: str, words: str
) -> None:
    with pytest.raises(InputError, match=words) as info:
        load_pool_csv(text=_pool(rows), source="bad.csv")
    assert (info.value.path, info.value.line, info.value.field) == ("bad.csv", line, field)
    assert f"bad.csv, line {line}, field '{field}'" in str(info.value)


def test_a_relation_missing_transforms_is_refused() -> None:
    with pytest.raises(InputError, match="without all eight transforms: may_treat"):
        load_pool_csv(text=_pool(_full_relation()[:6]), source="short.csv")


def test_a_paper_format_file_without_its_columns_is_refused() -> None:
    with pytest.raises(InputError, match="missing column 'prompt2'") as info:
        load_pretex_csv(text="pid,default_prompt,human_prompt\nmay_treat,a,b\n", source="p.csv")
    assert info.value.line == 1
