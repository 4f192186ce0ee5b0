"""The oracle proposer's edits: every target's oracle.patch said as search/replace edits gives git apply's result."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from perfloop.evals.__main__ import parse_options
from perfloop.evals.copy_target import TARGETS_DIR
from perfloop.evals.oracle_proposer import patch_to_edits

ORACLES = sorted(p.parent.name for p in TARGETS_DIR.glob("*/oracle.patch"))


@pytest.mark.parametrize("name", ORACLES)
def test_oracle_edits_reproduce_git_apply(name, tmp_path):
    source = TARGETS_DIR / name
    applied = tmp_path / name
    shutil.copytree(source, applied)
    subprocess.run(["git", "apply", "oracle.patch"], cwd=applied, check=True)
    oracle = patch_to_edits((source / "oracle.patch").read_text(), source)
    assert oracle.edits and oracle.unsayable == []
    texts: dict[str, str] = {}
    for edit in oracle.edits:
        text = texts.setdefault(edit["file"], (source / edit["file"]).read_text())
        assert text.count(edit["search"]) == 1
        texts[edit["file"]] = text.replace(edit["search"], edit["replace"], 1)
    for file, text in texts.items():
        assert text == (applied / file).read_text()


def test_search_grows_until_unique_and_new_files_are_named(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\ny = 2\nx = 1\nz = 3\n")
    patch = ("--- a/a.py\n+++ b/a.py\n@@ -3,1 +3,1 @@\n-x = 1\n+x = 5\n"
             "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+print(1)\n")
    oracle = patch_to_edits(patch, tmp_path)
    assert oracle.edits == [{"file": "a.py", "search": "y = 2\nx = 1\nz = 3\n", "replace": "y = 2\nx = 5\nz = 3\n"}]
    assert oracle.unsayable and "new.py" in oracle.unsayable[0]


def test_oracle_proposer_brings_its_own_endpoint(tmp_path):
    with pytest.raises(ValueError, match="--proposer oracle serves its own endpoint"):
        parse_options(["--proposer", "oracle", "--llm-base-url", "http://x/v1", "--llm-model", "m",
                       "--work-dir", str(tmp_path)])
    options, _ = parse_options(["--proposer", "oracle", "--only", "data_bound", "--work-dir", str(tmp_path)])
    assert options.proposer == "oracle"


def test_oracle_is_rebased_onto_code_an_earlier_change_moved(tmp_path):
    from perfloop.evals.oracle_proposer import rebased_edits

    (tmp_path / "d.py").write_text("import math\n\n\ndef f(x):\n    return [math.sqrt(v) for v in x]\n\n\n"
                                   "def g(x):\n    return list(f(x))\n")
    patch = ("--- a/d.py\n+++ b/d.py\n@@ -4,2 +4,2 @@\n def f(x):\n-    return [math.sqrt(v) for v in x]\n"
             "+    return np.sqrt(x)\n")
    oracle = patch_to_edits(patch, tmp_path)
    original = (tmp_path / "d.py").read_text()
    assert rebased_edits(oracle, tmp_path, {"d.py": original}) is oracle.edits  # still applies: as it is
    moved = original.replace("[math.sqrt(v) for v in x]", "list(map(math.sqrt, x))")
    [edit] = rebased_edits(oracle, tmp_path, {"d.py": moved})
    assert edit == {"file": "d.py", "search": "def f(x):\n    return list(map(math.sqrt, x))\n",
                    "replace": "def f(x):\n    return np.sqrt(x)\n"}
