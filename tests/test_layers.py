"""The architecture, as import rules: layers point down only, and nothing imports upward or in a cycle.

Bottom to top (each may import those below it, never those above):

    contracts            names and types declared once (stages, probe layout, tolerances, metrics);
                         every layer may import it, and it imports only the probe's layout file
    sandbox              running things in isolation
    knowledge_base       the bottleneck patterns: data plus schema
    tools.contract       the target's [tool.perfloop] contract and its run length
    tools.measure        the probe and what is built from its records (profile, hot spots, ledger)
    tools.change         codemods and what a patch may touch
    tools.check          data, loss, side outputs, statistics, function-level replay
    agent                the loop: graph, nodes, proposers, UI, audit log (the only langgraph user)

Inside agent/, ``ui`` (what a person reads) and ``proposers`` (codemods and the LLM behind one
interface) never import ``nodes``; the nodes use both, and proposers report through ``ui``.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ORDER = ("sandbox", "knowledge_base", "tools.contract", "tools.measure", "tools.change", "tools.check")
# tools.measure and tools.change are independent of each other; knowledge_base stands apart from tools.
ALLOWED = {
    "contracts": {"contracts", "probe_layout"},
    "sandbox": {"sandbox", "contracts"},
    "knowledge_base": {"knowledge_base", "contracts"},
    "tools.contract": {"tools.contract", "sandbox", "contracts"},
    "tools.measure": {"tools.measure", "tools.contract", "sandbox", "contracts"},
    "tools.change": {"tools.change", "tools.contract", "sandbox", "contracts"},
    "tools.check": {"tools.check", "tools.measure", "tools.change", "tools.contract", "sandbox", "contracts"},
    "agent.ui": {"agent.ui", "agent", "tools", "sandbox", "knowledge_base", "contracts"},
    "agent.proposers": {"agent.proposers", "agent", "agent.ui", "tools", "sandbox", "knowledge_base", "contracts"},
}
PROJECT = {"agent", "tools", "sandbox", "knowledge_base", "evals", "contracts"}


def _layer(module: str) -> str:
    """The layer of a dotted module name inside perfloop ("tools.measure", "agent.ui", "sandbox", ...)."""
    if module == "perfloop.tools.measure.probe.perfloop_layout":
        return "probe_layout"  # the probe's stdlib-only names, under the contracts
    parts = module.removeprefix("perfloop.").split(".")
    if parts[0] in ("tools", "agent") and len(parts) > 1 and parts[1] in {
            "contract", "measure", "change", "check", "ui", "proposers", "nodes"}:
        return f"{parts[0]}.{parts[1]}"
    return parts[0]


def _folder(layer: str) -> Path:
    return ROOT.joinpath(*layer.split("."))


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports (top level or inside functions), as written."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _imports(path: Path) -> set[str]:
    """The layers of perfloop that ``path`` imports."""
    return {_layer(name) for name in _imported_modules(path) if name.startswith("perfloop.")}


def _may_import(layer: str, target: str) -> bool:
    allowed = ALLOWED[layer]
    return target in allowed or target.split(".")[0] in allowed and target.split(".")[0] != layer.split(".")[0]


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_lower_layers_do_not_import_upward(layer):
    offenders = {}
    for path in _folder(layer).rglob("*.py"):
        if "probe" in path.parts:
            continue
        bad = {target for target in _imports(path) - {layer} if not _may_import(layer, target)}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_every_module_imports_through_the_one_name():
    # Nothing imports agent/tools/sandbox/knowledge_base/evals as top-level names: a user's repo
    # with folders of those names would shadow them (or be shadowed).
    offenders = {}
    for layer in PROJECT | {"tests"}:
        for path in (ROOT / layer).rglob("*.py"):
            if "probe" in path.parts or "data" in path.relative_to(ROOT).parts[:2] or "targets" in path.parts:
                continue
            bare = {name for name in _imported_modules(path) if name.split(".")[0] in PROJECT}
            if bare:
                offenders[str(path.relative_to(ROOT))] = sorted(bare)
    assert offenders == {}


def test_the_layer_table_names_every_folder():
    layers = {_layer(".".join(p.relative_to(ROOT).with_suffix("").parts))
              for top in ("tools", "agent", "sandbox", "knowledge_base", "contracts") for p in (ROOT / top).rglob("*.py")
              if "probe" not in p.parts}
    assert layers - set(ALLOWED) <= {"agent", "agent.nodes", "tools"}


def test_only_agent_imports_langgraph():
    users = [str(p.relative_to(ROOT)) for layer in ("tools", "sandbox", "knowledge_base")
             for p in (ROOT / layer).rglob("*.py") if "langgraph" in p.read_text()]
    assert users == []


def test_probe_needs_only_stdlib_and_torch():
    probe = ROOT / "tools" / "measure" / "probe"
    for path in probe.glob("*.py"):
        assert {n for n in _imported_modules(path) if n.split(".")[0] in PROJECT | {"perfloop"}} == set(), \
            f"{path.name} imports project code; it runs inside the user's interpreter"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return "perfloop." + ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


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


FUNCTION_CAP = 80
MODULE_CAP = 600


def _sources():
    """perfloop's own Python files: not the pipelines under evals/ (the targets, the blind waves' `blind*/`,
    written as third parties write, and left out of the lint for the same reason)."""
    for layer in PROJECT:
        for path in (ROOT / layer).rglob("*.py"):
            if not {"targets", "calibration_pipeline", "accuracy_probe"} & set(path.parts) \
                    and not any(part.startswith("blind") for part in path.relative_to(ROOT).parts[:2]):
                yield path


def test_functions_stay_short():
    # A function past ~80 lines is asking to be split. A module is as long as its one idea needs.
    long = {}
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if (size := node.end_lineno - node.lineno + 1) > FUNCTION_CAP:
                    long[f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"] = size
    assert long == {}


def test_modules_stay_cohesive():
    # The probe runs inside the user's interpreter as a few self-contained files; its one long
    # module is justified in tools/README.md. Everything else stays under MODULE_CAP.
    long = {str(p.relative_to(ROOT)): n for p in _sources()
            if "probe" not in p.parts and (n := len(p.read_text().splitlines())) > MODULE_CAP}
    assert long == {}


def test_private_names_stay_in_their_module():
    # A name with a leading underscore is its module's own; a helper two modules share is public.
    # (Tests may reach into a module to test one of its parts.)
    crossing = [f"{path.relative_to(ROOT)}: {alias.name} from {node.module}" for path in _sources()
                for node in ast.walk(ast.parse(path.read_text()))
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("perfloop.")
                for alias in node.names if alias.name.startswith("_")]
    assert crossing == []
