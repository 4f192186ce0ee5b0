"""Make the user's git-ignored inputs (datasets, .npy, tokenizers) visible in a worktree.

Files are symlinked, never copied: a dataset may weigh gigabytes. Parent folders
are created as real folders in the worktree, so what a pipeline writes next to its
inputs lands in the worktree, not in the user's tree. A write *through* a link does
reach the user's file: ``sandbox.runner`` mounts the link targets read-only in the
run's own mount namespace where the OS allows (``RunLimits.read_only_paths``), and
snapshot_inputs/changed_inputs catch a write where it does not.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from sandbox.errors import BadInput
from sandbox.git import git, split_z

MAX_LINKED_FILES = 20000
"""Past this many file links, a wholly ignored folder is linked as one folder link."""

# Outputs and caches a pipeline or a tool writes: not inputs, and linking them would
# let a run read (or resume from) the user's old checkpoints.
SKIPPED_DIRS = frozenset({
    "out", "outputs", "output", "checkpoints", "ckpt", "runs", "logs", "wandb",
    "lightning_logs", "mlruns", "__pycache__", ".pytest_cache", ".mypy_cache",
    ".ruff_cache", ".tox", ".venv", "venv", "env", "node_modules", ".ipynb_checkpoints",
})

MISSING = (-1, -1, -1, -1)
"""The (size, mtime_ns, ctime_ns, inode) snapshot_inputs records for a path that does not exist."""


def find_ignored_inputs(source_dir: Path, inputs: list[str] | None = None) -> list[str]:
    """List what to link from `source_dir`: its ignored inputs, or the files `inputs` globs name.

    Paths are relative to `source_dir`; a folder linked whole ends with "/".
    """
    if inputs is not None:
        return _expand_globs(source_dir, inputs)
    listing = git(
        "ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "-z",
        cwd=source_dir,
    )
    entries = [entry for entry in split_z(listing) if not _skipped(entry.rstrip("/"))]
    folders = sorted(entry.rstrip("/") for entry in entries if entry.endswith("/"))
    # git may list a wholly ignored folder and also the files in it.
    folder_set = set(folders)
    files = {
        entry for entry in entries
        if not entry.endswith("/")
        and not any(str(parent) in folder_set for parent in PurePosixPath(entry).parents)
    }
    budget = MAX_LINKED_FILES - len(files)
    for folder in folders:
        inside = _files_under(source_dir, folder, limit=budget)
        if inside is None:
            files.add(folder + "/")
        else:
            files.update(inside)
            budget -= len(inside)
    return sorted(files)


def link_inputs(source_dir: Path, dest_dir: Path, relpaths: Iterable[str]) -> list[str]:
    """Symlink each `source_dir/relpath` at `dest_dir/relpath`; return those now linked."""
    linked = []
    dest_root = os.path.realpath(dest_dir)
    for rel in relpaths:
        source = Path(os.path.abspath(source_dir / rel))
        dest = dest_dir / rel.rstrip("/")
        if not os.path.lexists(source):
            continue
        if os.path.islink(dest) and os.readlink(dest) == str(source):
            linked.append(rel)
            continue
        if os.path.lexists(dest):
            continue  # tracked in the worktree already, or something the run made: keep it
        # A parent that is itself a link (a folder linked whole) would put the new link
        # inside the user's tree.
        if os.path.commonpath([os.path.realpath(dest.parent), dest_root]) != dest_root:
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(source, dest)
        linked.append(rel)
    return linked


def snapshot_inputs(paths: Iterable[Path | str]) -> dict[str, tuple[int, ...]]:
    """Record (size, mtime_ns, ctime_ns, inode) of each path, and of everything under folders.

    ctime cannot be set from user space, so any write (even one that restores size and
    mtime) and any replacement (new inode) shows, without hashing gigabytes.
    """
    snapshot: dict[str, tuple[int, ...]] = {}
    for path in paths:
        path = str(path).rstrip("/") or "/"
        snapshot[path] = _stat(path)
        if os.path.isdir(path):
            for dirpath, dirnames, filenames in os.walk(path):
                for name in dirnames + filenames:
                    full = os.path.join(dirpath, name)
                    snapshot[full] = _stat(full)
    return snapshot


def changed_inputs(before: dict[str, tuple[int, ...]]) -> list[str]:
    """Return the paths of `before` that were written, replaced, or that appeared or vanished."""
    return sorted(path for path, stat in before.items() if _stat(path) != stat)


def _stat(path: str) -> tuple[int, int, int, int]:
    """Return (size, mtime_ns, ctime_ns, inode) of `path` through links, MISSING if it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return MISSING
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def _skipped(relpath: str) -> bool:
    """Tell whether `relpath` is an output, a cache or bytecode rather than an input."""
    parts = PurePosixPath(relpath).parts
    return relpath.endswith(".pyc") or any(
        part in SKIPPED_DIRS or part.endswith(".egg-info") for part in parts
    )


def _files_under(
    source_dir: Path, folder: str, limit: int, skip: bool = True
) -> list[str] | None:
    """List the files under `folder` (inputs only when `skip`), None past `limit` of them."""
    found = []
    for dirpath, dirnames, filenames in os.walk(source_dir / folder):
        rel_dir = os.path.relpath(dirpath, source_dir)
        # A symlinked sub-folder is linked as it is, not walked: it may lead anywhere.
        links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        dirnames[:] = [d for d in dirnames if d not in links and not (skip and _skipped(d))]
        for name in filenames + links:
            rel = PurePosixPath(rel_dir, name).as_posix()
            if not (skip and _skipped(rel)):
                found.append(rel)
        if len(found) > limit:
            return None
    return found


def _expand_globs(source_dir: Path, patterns: list[str]) -> list[str]:
    """Return the files the `patterns` (globs relative to `source_dir`) match."""
    found: set[str] = set()
    for pattern in patterns:
        if os.path.isabs(pattern) or ".." in PurePosixPath(pattern).parts:
            raise BadInput(
                f"input pattern {pattern!r} must be relative to {source_dir} and stay inside it"
            )
        for match in sorted(source_dir.glob(pattern)):
            rel = match.relative_to(source_dir).as_posix()
            if match.is_dir() and not match.is_symlink():
                inside = _files_under(source_dir, rel, limit=MAX_LINKED_FILES, skip=False)
                found.update([rel + "/"] if inside is None else inside)
            else:
                found.add(rel)
    return sorted(found)
