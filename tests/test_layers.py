"""The architecture as a test: layers import only downwards, and the data flow has no back edges.

``docs/architecture.md`` draws the same map. Each module of quizbot, storage and schedules belongs
to one component; a component may import itself and components of a *lower* rank, never one of
the same or a higher rank. Separately, the stages of the data flow (knowledge base -> points ->
variants -> items -> prompts -> scores -> metrics -> drift) must not reach forward, not even
through other modules. An import counts wherever it is written (:func:`imports_of`): inside a
function, under ``if TYPE_CHECKING:``, or as a module name in a lazy ``import_module`` map.
"""

from __future__ import annotations

import ast
from collections.abc import Container
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("quizbot", "storage", "schedules")

# (component, rank, module prefixes). Longest prefix wins; ranks grow upwards.
COMPONENTS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    (
        "foundation",
        0,
        (
            "quizbot",  # the package's __init__ only: offline environment and version
            "quizbot.errors",
            "quizbot.clock",
            "quizbot.domain",
            "quizbot.jsonl",
            "quizbot.logs",
            "quizbot.names",
            "quizbot.ratelimit",
            "quizbot.progress",
        ),
    ),
    ("storage", 1, ("storage",)),
    ("settings", 2, ("quizbot.config", "schedules")),
    ("status", 3, ("quizbot.status",)),
    ("accounts", 3, ("quizbot.accounts",)),
    ("kb", 3, ("quizbot.kb",)),
    ("providers", 3, ("quizbot.providers",)),
    ("spend", 4, ("quizbot.spend",)),
    ("items", 4, ("quizbot.items", "quizbot.transforms")),
    ("generate", 5, ("quizbot.generate",)),
    ("evaluation", 6, ("quizbot.evaluation",)),
    ("analysis", 7, ("quizbot.analysis",)),
    ("practice", 8, ("quizbot.practice",)),
    ("monitoring", 8, ("quizbot.monitoring",)),
    ("interop", 8, ("quizbot.interop",)),
    ("ui", 9, ("quizbot.ui",)),
    ("server", 10, ("quizbot.server",)),
    ("cli", 11, ("quizbot.cli", "quizbot.__main__")),
)

# The data flow, left to right: no module of a stage may depend, even indirectly, on a later one.
FLOW: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("knowledge base", ("quizbot.kb.model",)),
    ("points", ("quizbot.generate.points",)),
    ("negatives", ("quizbot.generate.negatives",)),
    ("variants", ("quizbot.transforms",)),
    ("items", ("quizbot.items",)),
    ("prompts", ("quizbot.evaluation.prompts",)),
    ("scores", ("quizbot.evaluation.parse",)),
    ("metrics", ("quizbot.analysis.metrics",)),
    ("drift", ("quizbot.monitoring.drift",)),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(tree: ast.Module, modules: Container[str], *, runtime: bool = False) -> set[str]:
    """The project modules ``tree`` imports, wherever the import statement is: at module level,
    inside a function or method (a lazy import), under ``if TYPE_CHECKING:`` (left out when
    ``runtime``: those never run), or named as a string in a module that calls
    ``importlib.import_module`` (the PEP 562 lazy maps of ``quizbot.evaluation`` and
    ``storage``). ``from package import submodule`` is an import of the submodule only."""
    skipped: set[int] = set()
    if runtime:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                skipped.update(id(n) for part in node.body for n in ast.walk(part))
    lazy = any(
        isinstance(node, ast.Attribute | ast.Name)
        and (node.attr if isinstance(node, ast.Attribute) else node.id) == "import_module"
        for node in ast.walk(tree)
    )
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            named = [f"{node.module}.{a.name}" for a in node.names]
            targets = [t for t in named if t in modules]
            if len(targets) < len(named):  # a name defined in the module itself
                targets.append(node.module)
        elif lazy and isinstance(node, ast.Constant) and isinstance(node.value, str):
            targets = [node.value]
        found.update(t for t in targets if t in modules)
    return found


def _modules() -> dict[str, Path]:
    return {
        _module_name(p): p
        for package in PACKAGES
        for p in (ROOT / package).rglob("*.py")
        if "migrations" not in p.parts
    }


@lru_cache(maxsize=2)
def import_graph(runtime: bool = False) -> dict[str, set[str]]:
    """Module -> the project modules it imports, at any depth of its code (:func:`imports_of`)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[name] = imports_of(tree, modules, runtime=runtime) - {name}
    return graph


def _graph() -> dict[str, set[str]]:
    return import_graph()


def component_of(module: str) -> tuple[str, int]:
    """The component and rank of ``module`` (longest matching prefix)."""
    best: tuple[int, str, int] | None = None
    for component, rank, prefixes in COMPONENTS:
        for prefix in prefixes:
            exact_package_root = prefix == "quizbot"
            matches = module == prefix or (
                not exact_package_root and module.startswith(prefix + ".")
            )
            if matches and (best is None or len(prefix) > best[0]):
                best = (len(prefix), component, rank)
    if best is None:
        raise AssertionError(f"{module} belongs to no component: add it to COMPONENTS")
    return best[1], best[2]


def violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import that goes sideways or upwards between components."""
    found = []
    for module, imports in sorted(graph.items()):
        component, rank = component_of(module)
        for target in sorted(imports):
            other, other_rank = component_of(target)
            if other != component and other_rank >= rank:
                found.append(f"{module} ({component}) imports {target} ({other})")
    return found


def _closure(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), set()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def flow_back_edges(graph: dict[str, set[str]]) -> list[str]:
    """Stages of the data flow that depend, directly or not, on a later stage."""
    found = []
    for i, (stage, modules) in enumerate(FLOW):
        later = {m: name for name, mods in FLOW[i + 1 :] for m in mods}
        for module in modules:
            for dep in sorted(_closure(graph, module) & set(later)):
                found.append(f"{stage} ({module}) depends on {later[dep]} ({dep})")
    return found


def test_every_module_has_a_component() -> None:
    for module in _graph():
        component_of(module)


def test_components_import_only_downwards() -> None:
    assert violations(_graph()) == []


def test_the_data_flow_has_no_back_edges() -> None:
    graph = _graph()
    for _stage, modules in FLOW:
        for module in modules:
            assert module in graph, f"{module} is named in FLOW but does not exist"
    assert flow_back_edges(graph) == []


@pytest.mark.parametrize(
    ("module", "target"),
    [
        ("storage.repo", "quizbot.evaluation.runner"),  # storage reaching up into evaluation
        ("quizbot.evaluation.parse", "quizbot.analysis.metrics"),  # scores reaching metrics
        ("quizbot.practice.service", "quizbot.monitoring.nights"),  # one sibling into another
        ("quizbot.kb.importers", "quizbot.generate.prototypes"),  # knowledge into generation
    ],
)
def test_an_added_back_edge_is_caught(module: str, target: str) -> None:
    graph = {m: set(deps) for m, deps in _graph().items()}
    assert module in graph and target in graph
    graph[module].add(target)
    assert violations(graph) != []


def test_an_indirect_flow_back_edge_is_caught() -> None:
    """items -> (anything) -> metrics is a back edge even though no single import is."""
    graph = {m: set(deps) for m, deps in _graph().items()}
    graph["quizbot.items"].add("quizbot.jsonl")
    graph["quizbot.jsonl"] = graph["quizbot.jsonl"] | {"quizbot.analysis.metrics"}
    assert any("items" in line for line in flow_back_edges(graph))


def test_the_graph_sees_real_imports() -> None:
    """Guard against the checks passing vacuously."""
    graph = _graph()
    assert "quizbot.evaluation.runner" in graph["quizbot.evaluation.service"]
    assert "storage.engine" in graph["storage.repo"]
    assert "quizbot.domain" in graph["quizbot.evaluation.parse"]


_SNIPPET_MODULES = {"quizbot.ui", "quizbot.ui.admin", "quizbot.evaluation.service", "storage"}


def test_imports_inside_functions_and_methods_are_seen() -> None:
    """A lazy import deep in a function or method counts like one at the top of the module."""
    tree = ast.parse(
        "def f():\n"
        "    class C:\n"
        "        def g(self):\n"
        "            if True:\n"
        "                from quizbot.ui import admin\n"
    )
    assert imports_of(tree, _SNIPPET_MODULES) == {"quizbot.ui.admin"}


def test_type_checking_imports_count_for_layers_but_not_at_run_time() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from quizbot.ui.admin import build\n"
        "from storage import Database\n"
    )
    assert imports_of(tree, _SNIPPET_MODULES) == {"quizbot.ui.admin", "storage"}
    assert imports_of(tree, _SNIPPET_MODULES, runtime=True) == {"storage"}


def test_lazy_module_maps_are_seen() -> None:
    """``importlib.import_module`` on a name from a table (PEP 562 ``__getattr__``)."""
    tree = ast.parse(
        "import importlib\n"
        "_HOMES = {'evaluate': 'quizbot.evaluation.service'}\n"
        "def __getattr__(name):\n"
        "    return getattr(importlib.import_module(_HOMES[name]), name)\n"
    )
    assert imports_of(tree, _SNIPPET_MODULES) == {"quizbot.evaluation.service"}
    without = ast.parse("_HOMES = {'evaluate': 'quizbot.evaluation.service'}\n")
    assert imports_of(without, _SNIPPET_MODULES) == set()  # a string alone is no import


def test_a_lazy_upward_import_is_caught() -> None:
    """An upward import hidden inside a function fails the layer test like any other."""
    graph = {m: set(deps) for m, deps in _graph().items()}
    tree = ast.parse("def f():\n    from quizbot.ui.admin import build\n")
    graph["quizbot.kb.importers"] |= imports_of(tree, set(graph))
    assert "quizbot.kb.importers (kb) imports quizbot.ui.admin (ui)" in violations(graph)


def test_the_graph_sees_lazy_imports_of_the_real_code() -> None:
    graph = _graph()
    assert "quizbot.kb.hpo" in graph["quizbot.kb.registry"]  # inside functions only
    assert "quizbot.evaluation.service" in graph["quizbot.evaluation"]  # the PEP 562 map
    assert "storage.engine" in graph["storage"]
