"""Prototypes: one sentence template per relation and transform, with ``[X]`` head, ``[Y]`` tail.

Two sources:

* the project's own pool (``quizbot/generate/data/prototypes.csv``): every built-in and MedLAMA
  relation x 8 transforms, written to be grammatical for any entity name. Sentences are
  capitalised and spaced cleanly when instantiated.
* a file in the PretexEval paper's format (``pid, default_prompt, human_prompt, prompt2 ...
  prompt8``), whose eight prototype columns are, in order, none, dn, inv, inv+dn, ins, ins+dn,
  inv+ins, inv+ins+dn. Such a set is instantiated *verbatim* (no capitalisation, spacing kept),
  so the paper's file reproduces the paper's statements word for word.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from quizbot.errors import InputError
from quizbot.kb.model import Relation
from quizbot.transforms import TRANSFORMS, Transform

__all__ = [
    "PAPER_COLUMNS",
    "Prototype",
    "PrototypeSet",
    "default_prototypes",
    "load_pool_csv",
    "load_pretex_csv",
    "read_prototypes",
]

# The paper file's prototype columns, in transform order as documented with the file.
PAPER_COLUMNS: dict[str, Transform] = {
    "human_prompt": Transform.NONE,
    "prompt2": Transform.DN,
    "prompt3": Transform.INV,
    "prompt4": Transform.INV_DN,
    "prompt5": Transform.INS,
    "prompt6": Transform.INS_DN,
    "prompt7": Transform.INV_INS,
    "prompt8": Transform.INV_INS_DN,
}

_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Prototype:
    """One template, pre-split around its placeholders so instantiation is a join."""

    template: str
    parts: tuple[str, ...]
    order: tuple[str, ...]  # which entity goes in each gap: "X" or "Y"

    @classmethod
    def parse(cls, template: str) -> Prototype:
        """Split ``template``; each of ``[X]`` and ``[Y]`` must occur exactly once."""
        if template.count("[X]") != 1 or template.count("[Y]") != 1:
            raise ValueError("must contain [X] and [Y] exactly once each")
        pieces = re.split(r"\[(X|Y)\]", template)
        return cls(template, tuple(pieces[0::2]), tuple(pieces[1::2]))

    def fill(self, head: str, tail: str) -> str:
        """The raw sentence for this head and tail (no clean-up)."""
        a, b = (head, tail) if self.order[0] == "X" else (tail, head)
        p = self.parts
        return f"{p[0]}{a}{p[1]}{b}{p[2]}"


@dataclass(frozen=True)
class PrototypeSet:
    """Prototypes for a set of relations, and how to instantiate them."""

    name: str
    prototypes: Mapping[tuple[str, Transform], Prototype]
    relations: Mapping[str, Relation] = field(default_factory=dict)
    verbatim: bool = False  # paper mode: keep text exactly as the template makes it
    digest: str = ""

    def covers(self, relation: str) -> bool:
        """True when all eight transforms exist for ``relation``."""
        return all((relation, t) in self.prototypes for t in TRANSFORMS)

    def missing(self, relations: Iterable[str]) -> list[str]:
        """The relations among ``relations`` this set cannot state in all eight ways."""
        return sorted(r for r in set(relations) if not self.covers(r))

    def render(self, relation: str, transform: Transform, head: str, tail: str) -> str:
        """The sentence for one triplet under one transform."""
        if self.verbatim:
            return self.prototypes[(relation, transform)].fill(head, tail)
        head, tail = " ".join(head.split()), " ".join(tail.split())
        text = self.prototypes[(relation, transform)].fill(head, tail)
        text = _SPACES.sub(" ", text).strip()
        return text[:1].upper() + text[1:]

    def renderer(self, relation: str) -> Callable[[str, str], tuple[str, ...]]:
        """A fast function (head, tail) -> the 8 sentences in ``TRANSFORMS`` order.

        Same output as :meth:`render` for each transform, but templates are split, cleaned and
        capitalised once, so a sentence costs one string concatenation. Used for bulk generation.
        """
        slots: list[tuple[str, int, str, int, str]] = []
        for transform in TRANSFORMS:
            proto = self.prototypes[(relation, transform)]
            p0, p1, p2 = proto.parts
            if not self.verbatim:
                p0, p1, p2 = (_SPACES.sub(" ", p) for p in (p0, p1, p2))
                p0 = p0.lstrip()
                p2 = p2.rstrip()
                p0 = p0[:1].upper() + p0[1:]
            first = 0 if proto.order[0] == "X" else 1
            # Entity slots: 0 head, 1 tail, 2 capitalised head, 3 capitalised tail.
            lead = first + (2 if not self.verbatim and not p0 else 0)
            slots.append((p0, lead, p1, 1 - first, p2))
        verbatim = self.verbatim

        def render8(head: str, tail: str) -> tuple[str, ...]:
            if verbatim:
                ents = (head, tail, head, tail)
            else:
                head = " ".join(head.split())
                tail = " ".join(tail.split())
                ents = (head, tail, head[:1].upper() + head[1:], tail[:1].upper() + tail[1:])
            return tuple([f"{a}{ents[i]}{b}{ents[j]}{c}" for a, i, b, j, c in slots])

        return render8


def _digest(rows: Iterable[tuple[str, str, str]]) -> str:
    h = hashlib.sha256()
    for relation, transform, template in sorted(rows):
        h.update(f"{relation}\x1f{transform}\x1f{template}\x1e".encode())
    return h.hexdigest()[:16]


def _read_csv(path: Path | None, text: str | None, label: str) -> list[tuple[int, dict[str, str]]]:
    """Rows with their physical line numbers (right even after blank lines)."""
    try:
        content = text if text is not None else Path(path or "").read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the prototype file ({exc})", path=label) from None
    reader = csv.DictReader(io.StringIO(content.removeprefix("\ufeff"), newline=""))
    try:
        return [(reader.line_num, row) for row in reader]
    except csv.Error as exc:
        raise InputError(f"not valid CSV ({exc})", path=label, line=reader.line_num) from None


def load_pool_csv(
    path: Path | None = None, *, text: str | None = None, name: str = "", source: str | None = None
) -> PrototypeSet:
    """Load a pool in quizbot's own format (``relation, transform, head_type, tail_type, label,
    template``). Raises :class:`InputError` naming the file, line and field of any problem."""
    label = source or (str(path) if path else name or "prototypes.csv")
    rows = _read_csv(path, text, label)
    required = ["relation", "transform", "head_type", "tail_type", "label", "template"]
    prototypes: dict[tuple[str, Transform], Prototype] = {}
    relations: dict[str, Relation] = {}
    raw: list[tuple[str, str, str]] = []
    for number, row in rows:
        for key in required:
            if not (row.get(key) or "").strip():
                raise InputError("missing value", path=label, line=number, field=key)
        relation = row["relation"].strip()
        try:
            transform = Transform(row["transform"].strip())
        except ValueError:
            raise InputError(
                f"unknown transform {row['transform']!r} (one of {', '.join(TRANSFORMS)})",
                path=label,
                line=number,
                field="transform",
            ) from None
        try:
            proto = Prototype.parse(row["template"].strip())
        except ValueError as exc:
            raise InputError(str(exc), path=label, line=number, field="template") from None
        if (relation, transform) in prototypes:
            raise InputError(
                f"second prototype for {relation} / {transform}",
                path=label,
                line=number,
                field="transform",
            )
        prototypes[(relation, transform)] = proto
        relations.setdefault(
            relation,
            Relation(
                relation, row["label"].strip(), row["head_type"].strip(), row["tail_type"].strip()
            ),
        )
        raw.append((relation, transform.value, proto.template))
    incomplete = sorted(r for r in relations if not all((r, t) in prototypes for t in TRANSFORMS))
    if incomplete:
        raise InputError(
            f"relations without all eight transforms: {', '.join(incomplete)}", path=label
        )
    return PrototypeSet(name or label, prototypes, relations, verbatim=False, digest=_digest(raw))


def load_pretex_csv(
    path: Path | None = None, *, text: str | None = None, name: str = "", source: str | None = None
) -> PrototypeSet:
    """Load a prototype file in the PretexEval paper's format, for verbatim instantiation."""
    label = source or (str(path) if path else name or "prompts_pretex.csv")
    rows = _read_csv(path, text, label)
    if not rows:
        raise InputError("no rows", path=label)
    header = set(rows[0][1])
    for column in ("pid", *PAPER_COLUMNS):
        if column not in header:
            raise InputError(f"missing column {column!r}", path=label, line=1, field=column)
    prototypes: dict[tuple[str, Transform], Prototype] = {}
    raw: list[tuple[str, str, str]] = []
    for number, row in rows:
        relation = (row.get("pid") or "").strip()
        if not relation:
            raise InputError("missing value", path=label, line=number, field="pid")
        for column, transform in PAPER_COLUMNS.items():
            template = row.get(column) or ""
            try:
                prototypes[(relation, transform)] = Prototype.parse(template)
            except ValueError as exc:
                raise InputError(str(exc), path=label, line=number, field=column) from None
            raw.append((relation, transform.value, template))
    return PrototypeSet(name or label, prototypes, {}, verbatim=True, digest=_digest(raw))


@lru_cache(maxsize=1)
def default_prototypes() -> PrototypeSet:
    """The project's own prototype pool, shipped with the package."""
    text = resources.files("quizbot.generate").joinpath("data/prototypes.csv").read_text("utf-8")
    return load_pool_csv(
        text=text, name="quizbot-pool", source="quizbot/generate/data/prototypes.csv"
    )


def read_prototypes(path: Path, name: str) -> tuple[PrototypeSet, str, str]:
    """Read a prototype file in quizbot's pool format or the PretexEval format (by its header).

    Returns (the parsed set, its format name, the file's text).
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc})", path=str(path)) from None
    header = text.splitlines()[0] if text.strip() else ""
    if header.startswith("relation,"):
        return load_pool_csv(text=text, name=name, source=str(path)), "pool", text
    if header.startswith("pid,"):
        return load_pretex_csv(text=text, name=name, source=str(path)), "pretex", text
    raise InputError(
        "unknown prototype format: the header must start with 'relation,' (quizbot) or "
        "'pid,' (PretexEval)",
        path=str(path),
        line=1,
    )
