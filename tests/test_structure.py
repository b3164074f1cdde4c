"""The shape of the code as a test: no import circle, no file over 1,000 lines, no function over
120 lines, in ``quizbot/``.

* **Circles** are read from the import graph of :mod:`tests.test_layers` as it runs: imports at
  any depth of a module (a lazy import inside a function closes a circle as surely as one at the
  top) and the lazy ``import_module`` maps, but not ``if TYPE_CHECKING:`` blocks, which never run.
  Every module of quizbot, storage and schedules is in the graph; a circle anywhere fails.
* **Files**: a module of ``quizbot/`` has at most :data:`MAX_FILE_LINES` lines, except the data
  modules of :data:`DATA_MODULES` (curated tables, not code) and the files of
  :data:`LONG_FILES`.
* **Functions**: a function or method (nested ones too) has at most :data:`MAX_FUNCTION_LINES`
  lines, from its ``def`` to its last line, except those of :data:`LONG_FUNCTIONS`.

The two allowlists name the offenders that remain, each with its length when it was listed. They
may only shrink: an allowlisted file or function that grows fails, and one back under the limit
(or gone) fails until it is removed from the list. Split a long function into named parts rather
than raising its number.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.test_layers import import_graph

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "quizbot"

MAX_FILE_LINES = 1000
MAX_FUNCTION_LINES = 120

# Tables of clinical English, curated by hand for open recall's name folding: data, not code.
DATA_MODULES: frozenset[str] = frozenset(
    {
        "quizbot/evaluation/recall_abbreviations.py",
        "quizbot/evaluation/recall_words.py",
    }
)

# Files over MAX_FILE_LINES today, with their length then. Only shrinks.
LONG_FILES: dict[str, int] = {}

# Functions over MAX_FUNCTION_LINES today ("path::qualified.name"), with their length then.
# Only shrinks.
LONG_FUNCTIONS: dict[str, int] = {}


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def file_lengths() -> dict[str, int]:
    """Lines of every module of ``quizbot/``."""
    return {_relative(p): len(p.read_text(encoding="utf-8").splitlines()) for p in _sources()}


def _functions(node: ast.AST, prefix: str) -> Iterator[tuple[str, int]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            name = prefix + child.name
            assert child.end_lineno is not None
            yield name, child.end_lineno - child.lineno + 1
            yield from _functions(child, name + ".")
        elif isinstance(child, ast.ClassDef):
            yield from _functions(child, prefix + child.name + ".")
        else:
            yield from _functions(child, prefix)


def function_lengths(source: str, path: str) -> dict[str, int]:
    """``path::qualified.name`` -> lines, for every function and method of ``source``."""
    return {f"{path}::{name}": n for name, n in _functions(ast.parse(source), "")}


def all_function_lengths() -> dict[str, int]:
    found: dict[str, int] = {}
    for p in _sources():
        found.update(function_lengths(p.read_text(encoding="utf-8"), _relative(p)))
    return found


def over_the_limit(
    lengths: dict[str, int], limit: int, allowed: dict[str, int], what: str
) -> list[str]:
    """What is too long and not allowlisted, what grew past its allowlisted length, and the
    allowlist entries that are no longer needed."""
    problems = []
    for name, n in sorted(lengths.items()):
        if n <= limit:
            continue
        if name not in allowed:
            problems.append(f"{name}: {n} lines, over the limit of {limit} for a {what}")
        elif n > allowed[name]:
            problems.append(
                f"{name}: grew from {allowed[name]} to {n} lines; an allowlisted {what} may only "
                "shrink"
            )
    for name in sorted(allowed):
        if lengths.get(name, 0) <= limit:
            now = f"{lengths[name]} lines now" if name in lengths else "gone"
            problems.append(
                f"{name}: no longer over {limit} lines ({now}): remove it from the allowlist"
            )
    return problems


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: each strongly connected component of two or more
    modules, as one circle through some of them (``a -> b -> ... -> a``)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(start: str) -> None:  # Tarjan's algorithm, iterative
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return [_one_circle(graph, c) for c in components]


def _one_circle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest path from the component's first module back to itself, inside it."""
    start = min(component)
    paths = {start: [start]}
    todo = [start]
    while todo:
        node = todo.pop(0)
        for nxt in sorted(graph.get(node, set()) & component):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                todo.append(nxt)
    raise AssertionError(f"no circle through {start}")  # pragma: no cover - a component has one


def test_no_import_circle() -> None:
    found = [" -> ".join(c) for c in circles(import_graph(runtime=True))]
    assert found == [], "import circles (break each with a shared module):\n" + "\n".join(found)


def test_no_file_over_the_limit() -> None:
    lengths = {f: n for f, n in file_lengths().items() if f not in DATA_MODULES}
    assert over_the_limit(lengths, MAX_FILE_LINES, LONG_FILES, "file") == []


def test_no_function_over_the_limit() -> None:
    lengths = all_function_lengths()
    assert over_the_limit(lengths, MAX_FUNCTION_LINES, LONG_FUNCTIONS, "function") == []


def test_the_data_modules_exist() -> None:
    lengths = file_lengths()
    for module in DATA_MODULES:
        assert module in lengths, f"{module} is named in DATA_MODULES but does not exist"


# -- the checks themselves ----------------------------------------------------------------------


def _function_of(n_lines: int, name: str = "f") -> str:
    body = "".join(f"    x{i} = {i}\n" for i in range(n_lines - 2))
    return f"def {name}() -> None:\n{body}    return None\n"


def test_a_long_function_fails_and_a_short_one_passes() -> None:
    for n, fails in ((MAX_FUNCTION_LINES, False), (MAX_FUNCTION_LINES + 1, True)):
        lengths = function_lengths(_function_of(n), "quizbot/x.py")
        assert lengths == {"quizbot/x.py::f": n}
        assert bool(over_the_limit(lengths, MAX_FUNCTION_LINES, {}, "function")) is fails


def test_methods_and_nested_functions_are_measured() -> None:
    nested = "class C:\n    def m(self) -> None:\n" + "".join(
        "        " + line + "\n" for line in _function_of(130, "inner").splitlines()
    )
    lengths = function_lengths(nested, "quizbot/x.py")
    assert lengths["quizbot/x.py::C.m.inner"] == 130
    assert lengths["quizbot/x.py::C.m"] == 131


def test_an_allowlisted_function_may_shrink_but_not_grow() -> None:
    allowed = {"quizbot/x.py::f": 150}
    assert over_the_limit({"quizbot/x.py::f": 150}, 120, allowed, "function") == []
    assert over_the_limit({"quizbot/x.py::f": 140}, 120, allowed, "function") == []
    [grew] = over_the_limit({"quizbot/x.py::f": 151}, 120, allowed, "function")
    assert "grew from 150 to 151" in grew
    [done] = over_the_limit({"quizbot/x.py::f": 120}, 120, allowed, "function")
    assert "remove it from the allowlist" in done
    [gone] = over_the_limit({}, 120, allowed, "function")
    assert "remove it from the allowlist" in gone


def test_a_circle_is_found_even_through_a_lazy_import() -> None:
    graph = {m: set(deps) for m, deps in import_graph(runtime=True).items()}
    assert circles(graph) == []
    # quizbot.practice.planning imports quizbot.practice.facts; a lazy import back closes it.
    assert "quizbot.practice.facts" in graph["quizbot.practice.planning"]
    graph["quizbot.practice.facts"].add("quizbot.practice.planning")
    assert circles(graph) == [["quizbot.practice.facts", "quizbot.practice.planning",
                               "quizbot.practice.facts"]]  # fmt: skip


def test_a_longer_circle_is_named_module_by_module() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert circles(graph) == [["a", "b", "c", "a"]]
