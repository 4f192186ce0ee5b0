"""Which files a patch may touch."""
from tools.patching import adds_symlink, forbidden_paths, matches_any, touched_paths

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


def test_symlink_patches_are_spotted():
    link = "diff --git a/data b/data\nnew file mode 120000\n--- /dev/null\n+++ b/data\n@@ -0,0 +1 @@\n+/etc\n"
    assert adds_symlink(link)
    assert not adds_symlink(PATCH)
