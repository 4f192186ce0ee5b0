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
