"""Layers point down only: agent → tools, sandbox, knowledge_base; tools → sandbox; nothing imports agent."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = {
    "tools": {"tools", "sandbox"},
    "sandbox": {"sandbox"},
    "knowledge_base": {"knowledge_base"},
}
PROJECT = {"agent", "tools", "sandbox", "knowledge_base", "evals"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names & PROJECT


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_lower_layers_do_not_import_upward(layer):
    offenders = {}
    for path in (ROOT / layer).rglob("*.py"):
        bad = _imports(path) - ALLOWED[layer]
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_only_agent_imports_langgraph():
    users = [str(p.relative_to(ROOT)) for layer in ("tools", "sandbox", "knowledge_base")
             for p in (ROOT / layer).rglob("*.py") if "langgraph" in p.read_text()]
    assert users == []


def test_probe_needs_only_stdlib_and_torch():
    probe = ROOT / "tools" / "probe"
    for path in probe.glob("*.py"):
        assert _imports(path) == set(), f"{path.name} imports project code; it runs inside the user's interpreter"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Module -> project modules it imports anywhere (top level or inside functions)."""
    modules = {_module_name(p): p for layer in PROJECT - {"evals"} for p in (ROOT / layer).rglob("*.py")
               if "probe" not in p.parts}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # `from package import submodule` depends on the submodule, not on the package's __init__.
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    targets.add(sub if sub in modules else node.module)
        graph[name] = {t for t in targets if t in modules} - {name}
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the import cycles of ``graph`` found by a depth-first walk (empty when acyclic)."""
    state: dict[str, str] = {}
    cycles: list[list[str]] = []

    def visit(module: str, trail: list[str]) -> None:
        state[module] = "open"
        for nxt in sorted(graph.get(module, ())):
            if state.get(nxt) == "open":
                cycles.append(trail[trail.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return cycles


def test_find_cycles_reports_a_cycle():
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    assert find_cycles(_import_graph()) == []


def test_modules_stay_short():
    # The probe runs inside the user's interpreter as a few self-contained files; its size is
    # justified in tools/README.md. Everything else splits before 400 lines.
    long = {str(p.relative_to(ROOT)): n for layer in PROJECT for p in (ROOT / layer).rglob("*.py")
            if "probe" not in p.parts and (n := len(p.read_text().splitlines())) > 400}
    assert long == {}
