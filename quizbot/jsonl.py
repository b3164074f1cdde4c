"""Reading user-supplied JSON-lines files with errors that name the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from quizbot.errors import InputError

__all__ = ["MAX_DEPTH", "depth", "loads", "read_objects", "read_text"]

MAX_DEPTH = 32
"""How deeply arrays and objects may nest in user JSON: quizbot's own records need 3 or 4."""


def depth(value: Any) -> int:
    """How deeply ``value`` nests (a scalar is 0), walked without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, level + 1)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def loads(text: str, *, path: str | None = None, line: int | None = None) -> Any:
    """Parse user-supplied JSON: a bad document or one nested deeper than :data:`MAX_DEPTH`
    is an :class:`InputError` naming the file and line, never a ``RecursionError``."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg})", path=path, line=line) from None
    except RecursionError:
        value = None
        too_deep = True
    else:
        too_deep = depth(value) > MAX_DEPTH
    if too_deep:
        raise InputError(
            f"JSON nested more than {MAX_DEPTH} levels deep", path=path, line=line
        ) from None
    return value


def read_text(path: Path) -> str:
    """The UTF-8 text of a user's file (a byte-order mark tolerated); :class:`InputError`
    naming the file, and the line of the first byte that is not UTF-8."""
    label = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", path=label) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"is not UTF-8 text (byte 0x{data[exc.start]:02x})", path=label, line=line
        ) from None


def read_objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; :class:`InputError` otherwise.

    Tolerates a UTF-8 byte-order mark. Every line must be a JSON object.
    """
    label = str(path)
    lines = read_text(path).splitlines()
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        record = loads(raw, path=label, line=number)
        if not isinstance(record, dict):
            raise InputError("each line must be a JSON object", path=label, line=number)
        yield number, record
