"""Tests for perfloop.sandbox.workspace and perfloop.sandbox.inputs on real git repos in tmp dirs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import perfloop.sandbox.inputs as inputs_module
from perfloop.sandbox.inputs import changed_inputs, snapshot_inputs
from perfloop.sandbox.workspace import PatchError, Workspace, user_tree_dirty

GITIGNORE = "data/*.npy\nbigdata/\nout/\nlogs/\n__pycache__/\n*.pyc\n"
SPEEDUP_PATCH = """\
diff --git a/train.py b/train.py
--- a/train.py
+++ b/train.py
@@ -1,2 +1,2 @@
 import config
-WORKERS = 0
+WORKERS = 4
diff --git a/fast.py b/fast.py
new file mode 100644
--- /dev/null
+++ b/fast.py
@@ -0,0 +1 @@
+FAST = True
"""
TRAILERS = {
    "Perfloop-Run": "r1", "Perfloop-Diagnosis": "dataloader_starved",
    "Perfloop-Speedup": "1.83x", "Perfloop-Proposal": "p-1",
}


def run_git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture(autouse=True)
def git_identity(monkeypatch):
    for key in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{key}_NAME", "User")
        monkeypatch.setenv(f"GIT_{key}_EMAIL", "user@example.com")


@pytest.fixture
def repo(tmp_path) -> Path:
    """A user's repo: a committed pipeline, ignored data and outputs, uncommitted work."""
    root = tmp_path / "user repo"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(GITIGNORE)
    (root / "train.py").write_text("import config\nWORKERS = 0\n")
    (root / "config.py").write_text("BATCH = 32\n")
    (root / "data").mkdir()
    (root / "data" / "README").write_text("inputs\n")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", "pipeline")
    (root / "data" / "x.npy").write_bytes(b"\x93NUMPY-data")
    (root / "out").mkdir()
    (root / "out" / "ckpt.pt").write_bytes(b"old checkpoint")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "train.cpython-311.pyc").write_bytes(b"pyc")
    (root / "config.py").write_text("BATCH = 64  # staged\n")
    run_git(root, "add", "config.py")
    (root / "train.py").write_text("import config\nWORKERS = 0\n# uncommitted\n")
    (root / "notes.txt").write_text("untracked\n")
    return root


def user_state(root: Path) -> dict[str, str]:
    """Everything of the user's checkout that perfloop must never change."""
    return {
        "status": run_git(root, "status", "--porcelain", "--untracked-files=all"),
        "head": run_git(root, "rev-parse", "HEAD"),
        "branch": run_git(root, "symbolic-ref", "HEAD"),
        "index": run_git(root, "ls-files", "--stage"),
        "staged": run_git(root, "diff", "--cached"),
        "unstaged": run_git(root, "diff"),
        "files": repr(sorted(
            (str(p.relative_to(root)), p.read_bytes()) for p in root.rglob("*")
            if p.is_file() and ".git" not in p.relative_to(root).parts
        )),
    }


def test_create_apply_commit_cleanup_never_touch_the_users_checkout(repo):
    before = user_state(repo)
    ws = Workspace(repo, "r1")
    ws.create()
    assert user_state(repo) == before
    ws.apply_to_candidate(SPEEDUP_PATCH)
    assert user_state(repo) == before
    ws.commit(SPEEDUP_PATCH, "Use 4 DataLoader workers", TRAILERS)
    assert user_state(repo) == before
    ws.cleanup()
    assert user_state(repo) == before
    assert run_git(repo, "rev-parse", "main") == before["head"]


def test_worktrees_and_state_live_in_the_git_dir_and_start_from_head(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    git_dir = repo / ".git"
    assert ws.branch == "perfloop/r1"
    assert ws.state_dir == git_dir / "perfloop" / "runs" / "r1" and ws.state_dir.is_dir()
    assert ws.base_tree == git_dir / "perfloop" / "worktrees" / "r1" / "base"
    assert ws.candidate_tree == git_dir / "perfloop" / "worktrees" / "r1" / "candidate"
    assert ws.head() == run_git(repo, "rev-parse", "HEAD").strip()
    assert run_git(ws.base_tree, "symbolic-ref", "HEAD").strip() == "refs/heads/perfloop/r1"
    assert run_git(ws.candidate_tree, "rev-parse", "HEAD").strip() == ws.head()
    # Committed content only: the user's uncommitted edits are not in the worktrees.
    assert (ws.candidate_tree / "train.py").read_text() == "import config\nWORKERS = 0\n"
    assert (ws.base_tree / "config.py").read_text() == "BATCH = 32\n"


def test_user_tree_dirty_lists_uncommitted_work(repo):
    assert user_tree_dirty(repo) == ["config.py", "notes.txt", "train.py"]
    run_git(repo, "stash", "-u", "-q")
    assert user_tree_dirty(repo) == []


def test_apply_returns_touched_paths_and_resets_the_candidate_first(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    (ws.candidate_tree / "config.py").write_text("BATCH = 1\n")
    (ws.candidate_tree / "out").mkdir()
    (ws.candidate_tree / "out" / "ckpt.pt").write_bytes(b"stale")
    (ws.candidate_tree / "scratch.py").write_text("")
    assert ws.apply_to_candidate(SPEEDUP_PATCH) == ["fast.py", "train.py"]
    assert (ws.candidate_tree / "train.py").read_text() == "import config\nWORKERS = 4\n"
    assert (ws.candidate_tree / "config.py").read_text() == "BATCH = 32\n"
    assert not (ws.candidate_tree / "out").exists()
    assert not (ws.candidate_tree / "scratch.py").exists()
    ws.reset_candidate()
    assert not (ws.candidate_tree / "fast.py").exists()
    assert run_git(ws.candidate_tree, "status", "--porcelain") == ""


def test_a_patch_that_does_not_apply_raises_patch_error_with_gits_reason(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    wrong_context = SPEEDUP_PATCH.replace("-WORKERS = 0", "-WORKERS = 9")
    with pytest.raises(PatchError, match="train.py"):
        ws.apply_to_candidate(wrong_context)
    with pytest.raises(PatchError, match="No valid patches"):
        ws.apply_to_candidate("this is not a diff\n")
    with pytest.raises(PatchError):
        ws.commit(wrong_context, "msg", {})
    assert ws.head() == run_git(repo, "rev-parse", "HEAD").strip()


def test_diff_files_is_the_edit_alone_whatever_the_candidate_holds(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    ws.link_ignored_inputs(repo, ws.candidate_tree)
    (ws.candidate_tree / "out").mkdir()
    (ws.candidate_tree / "out" / "ckpt.pt").write_bytes(b"new")  # a pipeline run's output
    diff = ws.diff_files({"train.py": "import config\nWORKERS = 4\n", "fast.py": "FAST = True\n"})
    assert "+WORKERS = 4" in diff and "b/fast.py" in diff
    assert "ckpt.pt" not in diff and "x.npy" not in diff
    ws.reset_candidate()
    assert ws.apply_to_candidate(diff) == ["fast.py", "train.py"]


def test_commit_carries_message_and_trailers_and_moves_both_trees(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    start = ws.head()
    sha = ws.commit(SPEEDUP_PATCH, "Use 4 DataLoader workers", TRAILERS)
    assert sha == ws.head() != start
    body = run_git(repo, "log", "-1", "--format=%B", ws.branch)
    assert body.startswith("Use 4 DataLoader workers\n\n")
    for key, value in TRAILERS.items():
        assert f"{key}: {value}\n" in body
    speedup = run_git(repo, "log", "-1", "--format=%(trailers:key=Perfloop-Speedup,valueonly)", sha)
    assert speedup.strip() == "1.83x"
    assert run_git(repo, "rev-parse", f"{sha}^").strip() == start
    assert (ws.base_tree / "fast.py").is_file()
    assert run_git(ws.candidate_tree, "rev-parse", "HEAD").strip() == sha
    assert run_git(ws.candidate_tree, "status", "--porcelain") == ""


def test_commit_holds_only_the_patch_whatever_the_pipeline_wrote(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    (ws.base_tree / "out").mkdir()
    (ws.base_tree / "out" / "ckpt.pt").write_bytes(b"checkpoint")
    (ws.base_tree / "results.json").write_text("{}")
    (ws.base_tree / "config.py").write_text("BATCH = 999\n")
    sha = ws.commit(SPEEDUP_PATCH, "Use 4 DataLoader workers", TRAILERS)
    changed = run_git(repo, "show", "--name-only", "--format=", sha).split()
    assert sorted(changed) == ["fast.py", "train.py"]
    assert run_git(repo, "show", f"{sha}:config.py") == "BATCH = 32\n"


def test_commit_is_idempotent_for_the_same_proposal(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    first = ws.commit(SPEEDUP_PATCH, "Use 4 DataLoader workers", TRAILERS)
    again = Workspace(repo, "r1").commit(SPEEDUP_PATCH, "Use 4 DataLoader workers", TRAILERS)
    assert again == first
    assert run_git(repo, "rev-list", "--count", f"main..{ws.branch}").strip() == "1"
    with pytest.raises(PatchError):  # without the trailer it is a new, now stale, patch
        ws.commit(SPEEDUP_PATCH, "again", {"Perfloop-Proposal": "p-2"})


def test_create_resumes_and_repairs_after_a_crash(repo, tmp_path):
    # The user's own worktree on a disk that is not mounted now must stay registered.
    run_git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "usb" / "wt"))
    shutil.rmtree(tmp_path / "usb")
    ws = Workspace(repo, "r1")
    ws.create()
    sha = ws.commit(SPEEDUP_PATCH, "Use 4 DataLoader workers", TRAILERS)
    (ws.candidate_tree / "half-applied.py").write_text("")
    shutil.rmtree(ws.candidate_tree)  # a crash, or a user, removed it
    resumed = Workspace(repo, "r1")
    resumed.create()
    resumed.create()
    assert resumed.head() == sha
    assert (resumed.candidate_tree / "fast.py").is_file()
    assert not (resumed.candidate_tree / "half-applied.py").exists()
    assert run_git(resumed.base_tree, "symbolic-ref", "HEAD").strip() == "refs/heads/perfloop/r1"
    resumed.cleanup()
    assert str(tmp_path / "usb" / "wt") in run_git(repo, "worktree", "list")


@pytest.mark.parametrize("path", ["../outside.py", ".git/hooks/pre-commit", "sub/.GIT/config"])
def test_a_patch_reaching_outside_the_tree_or_into_git_is_refused(repo, path):
    ws = Workspace(repo, "r1")
    ws.create()
    patch = (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n"
        f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n"
    )
    with pytest.raises(PatchError, match="invalid path"):
        ws.apply_to_candidate(patch)
    with pytest.raises(PatchError, match="invalid path"):
        ws.commit(patch, "evil", {})
    assert not (ws.candidate_tree.parent / "outside.py").exists()


def test_a_patch_writing_through_a_symlink_it_creates_is_refused(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    patch = (
        f"diff --git a/evil b/evil\nnew file mode 120000\n--- /dev/null\n+++ b/evil\n"
        f"@@ -0,0 +1 @@\n+{outside}\n\\ No newline at end of file\n"
        "diff --git a/evil/x b/evil/x\nnew file mode 100644\n--- /dev/null\n+++ b/evil/x\n"
        "@@ -0,0 +1 @@\n+x\n"
    )
    ws = Workspace(repo, "r1")
    ws.create()
    with pytest.raises(PatchError, match="beyond a symbolic link"):
        ws.apply_to_candidate(patch)
    assert list(outside.iterdir()) == []


def test_cleanup_removes_worktrees_keeps_branch_state_and_user_data(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    ws.link_ignored_inputs(repo, ws.base_tree)
    sha = ws.commit(SPEEDUP_PATCH, "Use 4 DataLoader workers", TRAILERS)
    ws.cleanup()
    assert not ws.base_tree.exists() and not ws.candidate_tree.exists()
    assert ws.state_dir.is_dir()
    assert run_git(repo, "rev-parse", ws.branch).strip() == sha
    assert run_git(repo, "worktree", "list").count("\n") == 1
    assert (repo / "data" / "x.npy").read_bytes() == b"\x93NUMPY-data"


def test_link_ignored_inputs_links_data_but_not_outputs_or_caches(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    linked = ws.link_ignored_inputs(repo, ws.candidate_tree)
    assert linked == ["data/x.npy"]
    link = ws.candidate_tree / "data" / "x.npy"
    assert link.is_symlink() and link.read_bytes() == b"\x93NUMPY-data"
    assert not (ws.candidate_tree / "out").exists()
    assert not (ws.candidate_tree / "__pycache__").exists()
    # What the pipeline writes next to its inputs lands in the worktree only.
    (ws.candidate_tree / "data" / "cache.pt").write_bytes(b"cache")
    assert not (repo / "data" / "cache.pt").exists()
    ws.apply_to_candidate(SPEEDUP_PATCH)  # resets and cleans, links stay
    assert link.is_symlink() and link.read_bytes() == b"\x93NUMPY-data"
    assert not (ws.candidate_tree / "data" / "cache.pt").exists()
    assert ws.linked_sources(ws.candidate_tree) == [repo / "data" / "x.npy"]


def test_link_explicit_input_globs(repo):
    (repo / "tokenizer").mkdir()
    (repo / "tokenizer" / "vocab.json").write_text("{}")
    ws = Workspace(repo, "r1")
    ws.create()
    linked = ws.link_ignored_inputs(repo, ws.base_tree, inputs=["tokenizer/*.json", "out/*.pt"])
    assert linked == ["out/ckpt.pt", "tokenizer/vocab.json"]
    assert not (ws.base_tree / "data" / "x.npy").exists()
    with pytest.raises(ValueError, match="inside"):
        ws.link_ignored_inputs(repo, ws.base_tree, inputs=["../secrets/*"])


def test_a_folder_past_the_file_cap_is_linked_whole(repo, monkeypatch):
    monkeypatch.setattr(inputs_module, "MAX_LINKED_FILES", 5)
    (repo / "bigdata").mkdir()
    for i in range(10):
        (repo / "bigdata" / f"shard{i}.bin").write_bytes(b"x")
    ws = Workspace(repo, "r1")
    ws.create()
    assert ws.link_ignored_inputs(repo, ws.base_tree) == ["bigdata/", "data/x.npy"]
    assert (ws.base_tree / "bigdata").is_symlink()
    assert (ws.base_tree / "bigdata" / "shard3.bin").read_bytes() == b"x"


def test_changed_inputs_catches_a_write_through_a_link(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    ws.link_ignored_inputs(repo, ws.candidate_tree)
    before = snapshot_inputs(ws.linked_sources(ws.candidate_tree))
    assert changed_inputs(before) == []
    (ws.candidate_tree / "data" / "x.npy").write_bytes(b"overwritten by the pipeline")
    assert changed_inputs(before) == [str(repo / "data" / "x.npy")]


def test_changed_inputs_sees_files_added_to_a_linked_folder(tmp_path):
    (tmp_path / "shards").mkdir()
    (tmp_path / "shards" / "a.bin").write_bytes(b"a")
    before = snapshot_inputs([tmp_path / "shards"])
    os.utime(tmp_path / "shards", ns=(0, 0))
    (tmp_path / "shards" / "b.bin").write_bytes(b"b")
    assert changed_inputs(before) == [str(tmp_path / "shards"), str(tmp_path / "shards" / "b.bin")]


def test_a_target_folder_inside_the_repo(repo):
    pipeline = repo / "pipelines" / "vision"
    pipeline.mkdir(parents=True)
    (pipeline / "train.py").write_text("print('vision')\n")
    (pipeline / ".gitignore").write_text("data/\n")
    run_git(repo, "add", "pipelines")
    run_git(repo, "commit", "-q", "-m", "vision pipeline")
    (pipeline / "data").mkdir()
    (pipeline / "data" / "y.npy").write_bytes(b"vision data")
    by_folder = Workspace(pipeline, "r1")
    by_subdir = Workspace(repo, "r1", target_subdir="pipelines/vision")
    assert by_folder.repo_root == by_subdir.repo_root == repo
    assert by_folder.target_subdir == by_subdir.target_subdir == "pipelines/vision"
    by_folder.create()
    target = by_folder.target_dir(by_folder.candidate_tree)
    assert target == by_folder.candidate_tree / "pipelines" / "vision"
    assert (target / "train.py").read_text() == "print('vision')\n"
    assert by_folder.link_ignored_inputs(pipeline, by_folder.candidate_tree) == ["data/y.npy"]
    assert (target / "data" / "y.npy").read_bytes() == b"vision data"


def test_a_folder_outside_any_repo_is_refused_with_advice(tmp_path):
    with pytest.raises(ValueError, match="not inside a git repository.*git init"):
        Workspace(tmp_path, "r1")


def test_a_repo_without_commits_is_refused_with_advice(tmp_path):
    run_git(tmp_path, "init", "-q")
    with pytest.raises(ValueError, match="no commits yet.*commit"):
        Workspace(tmp_path, "r1")


def test_a_run_id_that_is_no_branch_name_is_refused(repo):
    with pytest.raises(ValueError, match="run id"):
        Workspace(repo, "../evil")


def test_a_rename_patch_reports_both_paths_and_commits(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    (ws.candidate_tree / "config.py").rename(ws.candidate_tree / "settings.py")
    run_git(ws.candidate_tree, "add", "-A", ".")
    rename = run_git(ws.candidate_tree, "diff", "--cached", "-M", "HEAD")
    assert "rename from config.py" in rename
    assert ws.apply_to_candidate(rename) == ["config.py", "settings.py"]
    sha = ws.commit(rename, "Rename the config", {})
    assert run_git(repo, "show", f"{sha}:settings.py") == "BATCH = 32\n"


def test_user_tree_dirty_reports_repo_relative_paths_for_a_subfolder(repo):
    (repo / "pipelines").mkdir()
    (repo / "pipelines" / "new.py").write_text("")
    run_git(repo, "mv", "train.py", "main.py")
    assert user_tree_dirty(repo / "pipelines") == ["pipelines/"]
    assert "main.py" in user_tree_dirty(repo) and "train.py" not in user_tree_dirty(repo)


def test_clean_outputs_keeps_the_applied_patch_and_links_but_drops_outputs(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    for tree in (ws.base_tree, ws.candidate_tree):
        ws.link_ignored_inputs(repo, tree)
    ws.apply_to_candidate(SPEEDUP_PATCH)
    for tree in (ws.base_tree, ws.candidate_tree):
        (tree / "out").mkdir()
        (tree / "out" / "ckpt.pt").write_bytes(b"resume from me")
        (tree / "results.json").write_text("{}")
        (tree / "config.py").write_text("BATCH = 999\n")
        ws.clean_outputs(tree)
        assert not (tree / "out").exists() and not (tree / "results.json").exists()
        assert (tree / "config.py").read_text() == "BATCH = 32\n"
        assert (tree / "data" / "x.npy").read_bytes() == b"\x93NUMPY-data"
    assert (ws.candidate_tree / "fast.py").read_text() == "FAST = True\n"  # new file of the patch
    assert "WORKERS = 4" in (ws.candidate_tree / "train.py").read_text()
    assert "WORKERS = 0" in (ws.base_tree / "train.py").read_text()


def test_checkout_candidate_holds_an_older_commit_until_reset(repo):
    ws = Workspace(repo, "r1")
    ws.create()
    original = ws.head()
    ws.commit(SPEEDUP_PATCH, "Use 4 DataLoader workers", TRAILERS)
    ws.checkout_candidate(original)
    (ws.candidate_tree / "out").mkdir()
    ws.clean_outputs(ws.candidate_tree)
    assert run_git(ws.candidate_tree, "rev-parse", "HEAD").strip() == original
    assert not (ws.candidate_tree / "fast.py").exists() and not (ws.candidate_tree / "out").exists()
    ws.reset_candidate()
    assert run_git(ws.candidate_tree, "rev-parse", "HEAD").strip() == ws.head()
    with pytest.raises(ValueError, match="not a commit"):
        ws.checkout_candidate("no-such-rev")


def test_delete_branch_after_cleanup_leaves_the_user_as_before(repo):
    before = user_state(repo)
    ws = Workspace(repo, "profile-1")
    ws.create()
    ws.commit(SPEEDUP_PATCH, "Use 4 DataLoader workers", TRAILERS)
    ws.cleanup()
    ws.delete_branch()
    ws.delete_branch()
    assert "perfloop/" not in run_git(repo, "branch", "--list", "perfloop/*")
    assert user_state(repo) == before


def test_find_repo_reads_the_repository_files_without_running_git(tmp_path, monkeypatch):
    import git  # noqa: F401  (GitPython checks `git version` once, on import)

    from perfloop.sandbox.git import find_repo

    repo = tmp_path / "repo"
    (repo / "pipe").mkdir(parents=True)
    run_git(tmp_path, "init", "-q", str(repo))
    empty = find_repo(repo / "pipe")
    assert (empty.top, empty.prefix, empty.has_head) == (repo.resolve(), "pipe", False)
    (repo / "pipe" / "a.py").write_text("A = 1\n")
    run_git(repo, "add", "pipe/a.py")
    run_git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    run_git(repo, "pack-refs", "--all")  # the branch now lives in packed-refs
    run_git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "linked"))
    started = []
    real_popen = subprocess.Popen.__init__

    def spy(self, *args, **kwargs):
        started.append(args[0] if args else kwargs.get("args"))
        real_popen(self, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", spy)
    found, linked = find_repo(repo / "pipe"), find_repo(tmp_path / "linked" / "pipe")
    assert found.has_head and found.common_dir == (repo / ".git").resolve()
    assert linked.has_head and linked.common_dir == found.common_dir and linked.prefix == "pipe"
    assert find_repo(tmp_path) is None
    assert started == []
