"""One import name: the wheel installs `perfloop` and nothing else, and a repo with its own `tools/` still works."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, make_repo, perfloop

LAYERS = ("contracts", "agent", "tools", "sandbox", "knowledge_base", "evals")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    # The build is against a copy, so the checkout gets no build/ or egg-info folder.
    source = out / "source"
    ignore = subprocess.run(["git", "ls-files", "--others", "--ignored", "--exclude-standard", "--directory"],
                            cwd=ROOT, capture_output=True, text=True).stdout.split()
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info",
                                                                 "build", *[p.rstrip("/") for p in ignore]))
    # With build isolation, as a user's `pip install` builds it (the backend comes from the registry).
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel_path,) = out.glob("perfloop-*.whl")
    return zipfile.ZipFile(wheel_path)


def test_wheel_installs_only_the_perfloop_name(wheel):
    top = {name.split("/")[0] for name in wheel.namelist()}
    assert {t for t in top if not t.endswith(".dist-info")} == {"perfloop"}
    entry_points = next(n for n in wheel.namelist() if n.endswith("entry_points.txt"))
    assert "perfloop = perfloop.agent.cli:main" in wheel.read(entry_points).decode()


def _suite_file(path: Path) -> bool:
    """A file of an eval suite's pipelines (package data, not one of perfloop's packages)."""
    return "targets" in path.parts or any(part.startswith("blind") for part in path.parts)


def test_wheel_carries_every_package_and_the_files_they_read(wheel):
    names = set(wheel.namelist())
    for layer in LAYERS:
        for init in (ROOT / layer).rglob("__init__.py"):
            if _suite_file(init):
                continue
            assert f"perfloop/{init.relative_to(ROOT)}" in names, f"{init.parent} is missing from the wheel"
    for needed in ("tools/measure/probe/sitecustomize.py", "tools/measure/probe/perfloop_probe.py",
                   "agent/proposers/prompts/propose_edit.j2", "knowledge_base/entries/dataloader_starved.yaml",
                   "tools/check/replay_child.py", "sandbox/guard.py", "evals/targets/data_bound/train.py",
                   "tools/measure/probe/perfloop_layout.py", "contracts/metrics.py"):
        assert f"perfloop/{needed}" in names


def test_the_wheel_carries_the_license(wheel):
    [license_file] = [n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
    assert wheel.read(license_file) == (ROOT / "LICENSE").read_bytes()
    assert b"Apache License\n                           Version 2.0, January 2004" in wheel.read(license_file)


def test_pyproject_names_every_package():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {"perfloop." + ".".join(init.parent.relative_to(ROOT).parts)
             for layer in LAYERS for init in (ROOT / layer).rglob("__init__.py") if not _suite_file(init)}
    assert listed == found


def test_a_repo_with_its_own_tools_agent_and_evals_packages(tmp_path):
    # Run from the repo's root, as a user would: its folders come first on sys.path there.
    repo = make_repo(tmp_path / "repo", pipeline="clashing")
    result = perfloop("profile", str(repo), "--json", cwd=repo)
    assert result.returncode == 0, result.stderr[-3000:]
    profile = json.loads(result.stdout.strip().splitlines()[-1])
    assert "dataloader_starved" in [d["entry_id"] for d in profile["diagnoses"]]
    hot = profile["hot_functions"][0]
    assert (hot["name"], hot["file"]) == ("frame_energy", "tools/energy.py"), profile["hot_functions"][:3]


def test_older_runs_state_types_are_revived_from_their_data_quietly():
    # Checkpoints written before the one import name name `tools.target.Target`, `agent.state.Settings`, ...;
    # the checkpointer hands back their data (LoopState validates it into today's types), and says nothing.
    import logging

    from perfloop.agent.driver import _LegacyTypesRevivedFromData

    def record(*args):
        return logging.LogRecord("langgraph", logging.WARNING, __file__, 1, "Blocked deserialization of %s.%s", args,
                                 None)

    quiet = _LegacyTypesRevivedFromData()
    assert not quiet.filter(record("tools.target", "Target", "tools.target", "Target"))
    assert not quiet.filter(record("agent.state", "Settings", "agent.state", "Settings"))
    assert quiet.filter(record("somebody.else", "Thing", "somebody.else", "Thing"))


def test_every_third_party_import_is_a_declared_dependency():
    """What perfloop's own modules import (evals aside: its extra) is in [project] dependencies, or in a
    user-facing extra (ray) when imported inside a function."""
    import ast
    import re
    from importlib.metadata import packages_distributions

    def canonical(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(specs: list[str]) -> set[str]:
        return {canonical(re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0]) for spec in specs}

    declared = names(project["dependencies"])
    # A user-facing extra (ray) may be imported, inside a function only: chosen, never needed to start.
    extras = set().union(*(names(specs) for extra, specs in project["optional-dependencies"].items()
                           if extra not in ("test", "evals")))
    probe_modules = {path.stem for path in (ROOT / "tools" / "measure" / "probe").glob("*.py")}
    distributions = packages_distributions()
    missing = {}
    for layer in ("contracts", "agent", "tools", "sandbox", "knowledge_base"):
        for path in (ROOT / layer).rglob("*.py"):
            tree = ast.parse(path.read_text())
            lazy = {id(node) for function in ast.walk(tree) if isinstance(function, ast.FunctionDef)
                    for node in ast.walk(function)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for top in {name.split(".")[0] for name in names}:
                    if top in sys.stdlib_module_names or top in probe_modules or top in ("perfloop", "__future__"):
                        continue
                    providers = {canonical(d) for d in distributions.get(top, [top])}
                    if not providers & declared and not (id(node) in lazy and providers & extras):
                        missing.setdefault(top, []).append(str(path.relative_to(ROOT)))
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"


def test_the_evals_extra_leaves_torch_alone_and_constraints_pin_what_is_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not [spec for spec in project["optional-dependencies"]["evals"] if spec.startswith("torch")]
    pinned = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pinned[name.lower()] = version
    from packaging.requirements import Requirement

    for spec in project["dependencies"] + project["optional-dependencies"]["test"]:
        requirement = Requirement(spec)
        if requirement.name == "torch":
            assert "torch" not in pinned  # scripts/setup.sh pins torch; a GPU machine keeps its own
            continue
        assert requirement.name.lower() in pinned, f"{requirement.name} has no tested version in constraints.txt"
        assert requirement.specifier.contains(pinned[requirement.name.lower()]), (spec, pinned[requirement.name.lower()])
    assert "-c constraints.txt" in (ROOT / "scripts" / "setup.sh").read_text()
