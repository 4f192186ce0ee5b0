"""The one way perfloop reaches git: repository discovery through GitPython, plumbing through the CLI.

Discovery (which repo holds a folder, its top folder and common git dir through worktree
links, whether HEAD resolves to a commit) reads the repository files through GitPython,
without running a git command per question (GitPython itself checks `git version` once).

Everything that changes or compares trees (worktrees, apply, commits built in a private
index, status, diff-tree) runs the `git` command line through ``git()`` below, on purpose:
for these GitPython only shells out to the same commands (``repo.git.apply(...)`` is
``git apply``), and its runner hands git perfloop's own environment, while the sandbox
needs each call made its way: ``GIT_DIR``-style variables that would point git at another
repository removed (set when perfloop runs from a hook), hooks off, optional locks off so a
status never rewrites the user's index, no prompt, a private ``GIT_INDEX_FILE`` per commit,
and the exact porcelain flags (``-z``, ``--porcelain=v1``) that the parsing here relies on.
One wrapper with that environment is easier to audit than the same settings threaded
through GitPython's command objects.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# Variables that would point git at another repository, index or work tree than the
# one we name by cwd (set, for example, when perfloop runs from a git hook).
_REDIRECTING = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX",
    "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
)
_CONFIG = (
    # The user's hooks (pre-commit, post-checkout, LFS) must not run on our commits
    # and checkouts: they could fail, prompt, or edit files behind our back.
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.quotePath=false",
    "-c", "color.ui=false",
)


class GitError(RuntimeError):
    """A git command failed; the message holds the command and git's stderr."""

    def __init__(self, args: Sequence[str], cwd: Path, stderr: str):
        self.stderr = stderr.strip()
        super().__init__(f"`git {' '.join(args)}` failed in {cwd}: {self.stderr}")


def git(
    *args: str,
    cwd: Path,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """Run `git ARGS` in `cwd` and return its stdout; raise GitError when it fails."""
    full_env = {k: v for k, v in os.environ.items() if k not in _REDIRECTING}
    # Read-only commands (status, diff) must not rewrite the user's index to refresh
    # stat data; GIT_OPTIONAL_LOCKS=0 stops that. No prompt may ever wait for input.
    full_env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", **(env or {}))
    proc = subprocess.run(
        ["git", *_CONFIG, *args], cwd=cwd, env=full_env, input=stdin,
        capture_output=True, text=True, encoding="utf-8", errors="surrogateescape",
    )
    if proc.returncode != 0:
        raise GitError(args, cwd, proc.stderr)
    return proc.stdout


def git_bytes(*args: str, cwd: Path, stdin: bytes | None = None) -> bytes:
    """Run `git ARGS` in `cwd` with binary input and output (a pack of objects); GitError when it fails."""
    full_env = {k: v for k, v in os.environ.items() if k not in _REDIRECTING}
    full_env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0")
    proc = subprocess.run(["git", *_CONFIG, *args], cwd=cwd, env=full_env, input=stdin, capture_output=True)
    if proc.returncode != 0:
        raise GitError(args, cwd, proc.stderr.decode("utf-8", "replace"))
    return proc.stdout


@dataclass(frozen=True)
class RepoInfo:
    """Where a folder sits in its git repository."""

    top: Path
    """The working tree's top folder."""
    common_dir: Path
    """The git directory shared by all worktrees (``.git`` of the main checkout)."""
    prefix: str
    """The folder relative to ``top`` ('' at the top)."""
    has_head: bool
    """Whether HEAD points at a commit."""


def find_repo(path: Path) -> RepoInfo | None:
    """Return the repository holding ``path``, or None when it is in none."""
    import git as gitpython
    from git.refs.symbolic import SymbolicReference

    folder = Path(path).resolve()
    try:
        repo = gitpython.Repo(folder, search_parent_directories=True)
    except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError):
        return None
    with repo:
        if repo.working_tree_dir is None:  # a bare repository holds no pipeline
            return None
        top = Path(repo.working_tree_dir).resolve()
        try:  # HEAD -> refs/heads/<branch> -> sha, read from the files (repo.head.is_valid() asks `git cat-file`)
            has_head = bool(SymbolicReference.dereference_recursive(repo, "HEAD"))
        except ValueError:  # a branch with no commit yet
            has_head = False
        return RepoInfo(top=top, common_dir=Path(repo.common_dir).resolve(),
                        prefix="" if folder == top else folder.relative_to(top).as_posix(), has_head=has_head)


def head_of(repo_root: Path) -> str:
    """Return the sha HEAD points at in ``repo_root``."""
    return git("rev-parse", "--verify", "HEAD^{commit}", cwd=Path(repo_root)).strip()


def git_ok(*args: str, cwd: Path) -> bool:
    """Tell whether `git ARGS` succeeds in `cwd`."""
    try:
        git(*args, cwd=cwd)
    except GitError:
        return False
    return True


def split_z(output: str) -> list[str]:
    """Split NUL-terminated `-z` output into its fields."""
    return [field for field in output.split("\0") if field]


def list_worktrees(repo_root: Path) -> dict[str, str | None]:
    """Return real path -> checked-out ref (None when detached) of each worktree."""
    found: dict[str, str | None] = {}
    current = None
    for line in git("worktree", "list", "--porcelain", cwd=repo_root).splitlines():
        if line.startswith("worktree "):
            current = os.path.realpath(line[len("worktree "):])
            found[current] = None
        elif line.startswith("branch ") and current is not None:
            found[current] = line[len("branch "):]
    return found


def user_tree_dirty(repo_root: Path) -> list[str]:
    """List repo-relative paths under `repo_root` that are uncommitted or untracked."""
    out = git("status", "--porcelain=v1", "-z", "--untracked-files=normal", "--", ".",
              cwd=Path(repo_root))
    fields, paths = out.split("\0"), []
    i = 0
    while i < len(fields) and fields[i]:
        status, path = fields[i][:2], fields[i][3:]
        paths.append(path)
        i += 2 if status[0] in "RC" else 1  # a rename is followed by its old path
    return sorted(paths)
