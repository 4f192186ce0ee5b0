"""Which files a patch may touch."""
import pytest

from perfloop.tools.change.patching import (
    forbidden_paths,
    matches_any,
    scope_problems,
    touched_paths,
)

PATCH = """diff --git a/audio/configs/train.yaml b/audio/configs/train.yaml
--- a/audio/configs/train.yaml
+++ b/audio/configs/train.yaml
@@ -1 +1 @@
-num_workers: 0
+num_workers: 2
diff --git a/audio/new.py b/audio/new.py
new file mode 100644
--- /dev/null
+++ b/audio/new.py
@@ -0,0 +1 @@
+x = 1
"""


def test_globs():
    assert matches_any("train.py", ["**/*.py"])
    assert matches_any("pkg/deep/data.py", ["**/*.py"])
    assert matches_any("configs/train.yaml", ["configs/**"])
    assert not matches_any("configs/train.yaml", ["*.yaml"])
    assert not matches_any("evalkit.py", ["train.py", "data.py"])


def test_touched_paths_reads_old_and_new_names():
    assert touched_paths(PATCH) == ["audio/configs/train.yaml", "audio/new.py"]


def test_forbidden_outside_subdir_or_not_editable():
    editable = ["configs/*.yaml"]
    assert forbidden_paths(["audio/configs/train.yaml"], "audio", editable) == []
    assert forbidden_paths(["audio/new.py"], "audio", editable) == ["audio/new.py"]
    assert forbidden_paths(["video/configs/train.yaml"], "audio", editable) == ["video/configs/train.yaml"]
    assert forbidden_paths([".git/config"], "", ["**"]) == [".git/config"]


def test_symlink_patches_are_refused_by_gits_own_reading():
    link = "diff --git a/data b/data\nnew file mode 120000\n--- /dev/null\n+++ b/data\n@@ -0,0 +1 @@\n+/etc\n"
    [problem] = scope_problems(link, "", ["**"])
    assert "mode 120000" in problem and "only plain files" in problem


# Each of these passed the old header-regex check (which saw no or only editable paths).
RENAME = "diff --git a/a.py b/b.py\nsimilarity index 100%\nrename from a.py\nrename to b.py\n"
MODE = "diff --git a/train.py b/train.py\nold mode 100644\nnew mode 100755\n"
BINARY = ("diff --git a/model.py b/model.py\nindex 1111111..2222222 100644\n"
          "Binary files a/model.py and b/model.py differ\n")
DELETE_DATA = ("diff --git a/data/rows.csv b/data/rows.csv\ndeleted file mode 100644\n--- a/data/rows.csv\n"
               "+++ /dev/null\n@@ -1 +0,0 @@\n-1,2\n")
IMPORT_PROBE = ("diff --git a/train.py b/train.py\n--- a/train.py\n+++ b/train.py\n@@ -1 +1,2 @@\n import torch\n"
                "+import perfloop_probe\n")
SET_VARIABLE = ("diff --git a/train.py b/train.py\n--- a/train.py\n+++ b/train.py\n@@ -1 +1,2 @@\n import os\n"
                "+os.environ['PERFLOOP_MAX_STEPS'] = '3'\n")
EDIT = ("diff --git a/train.py b/train.py\n--- a/train.py\n+++ b/train.py\n@@ -1 +1,2 @@\n import os\n"
        "+import json\n")


def test_plain_edit_in_scope_passes():
    assert scope_problems(EDIT, "", ["**/*.py"]) == []


@pytest.mark.parametrize("patch, words", [
    (RENAME, "renames"), (MODE, "file mode"), (BINARY, "binary"), (DELETE_DATA, "may not"),
    (IMPORT_PROBE, "perfloop_probe"), (SET_VARIABLE, "PERFLOOP_"),
])
def test_scope_read_by_git_refuses_what_headers_hide(patch, words):
    problems = scope_problems(patch, "", ["**/*.py"])
    assert problems and words in " ".join(problems)


def test_touched_paths_sees_rename_only_patches():
    assert touched_paths(RENAME) == ["a.py", "b.py"]
