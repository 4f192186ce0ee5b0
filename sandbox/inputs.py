"""Make the user's git-ignored inputs (datasets, .npy, tokenizers) visible in a worktree.

Files are symlinked, never copied: a dataset may weigh gigabytes. Parent folders
are created as real folders in the worktree, so what a pipeline writes next to its
inputs lands in the worktree, not in the user's tree. A write *through* a link does
reach the user's file: ``perfloop.sandbox.runner`` mounts the link targets read-only in the
run's own mount namespace where the OS allows (``RunLimits.read_only_paths``), and
snapshot_inputs/changed_inputs catch a write where it does not: stat data of every
protected path, a hash of the files within a byte budget, and new files in linked folders.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from perfloop.sandbox.errors import BadInput
from perfloop.sandbox.git import git, split_z

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


HASH_BUDGET_BYTES = 128 << 20
"""Bytes of protected files hashed before and after each run when no read-only mount is possible;
past it (smallest files first), the rest are compared by stat data only."""
MAX_HASHED_FILES = 5000
"""Most protected files hashed per run, whatever their size (each costs an open and a read)."""


class InputSnapshot(NamedTuple):
    """The protected inputs before a run: stat data of every path, the hash of the files the budget covers."""

    stats: dict[str, tuple[int, ...]]
    """(size, mtime_ns, ctime_ns, inode) of each path and of everything under folders."""
    digests: dict[str, str]
    """blake2b of the files hashed (smallest first, within the budget)."""
    folders: list[str]
    """The protected folders walked: a path under them that was not there before is new."""

    def coverage(self, roots: Iterable[str] | None = None) -> tuple[int, int]:
        """Return (files hashed, files compared by stat only) among those under `roots` (all when None)."""
        roots = None if roots is None else [r.rstrip("/") for r in roots]

        def under(path: str) -> bool:
            return roots is None or any(path == r or path.startswith(r + "/") for r in roots)

        files = [p for p, st in self.stats.items() if st != MISSING and under(p) and not os.path.isdir(p)]
        hashed = sum(1 for p in files if p in self.digests)
        return hashed, len(files) - hashed


def snapshot_inputs(paths: Iterable[Path | str], hash_budget_bytes: int = 0) -> InputSnapshot:
    """Record (size, mtime_ns, ctime_ns, inode) of each path, and of everything under folders; with
    `hash_budget_bytes`, also hash files, smallest first, until the budget (or MAX_HASHED_FILES) is spent.

    ctime cannot be set from user space, so a write (even one that restores size and mtime)
    and a replacement (new inode) show in the stat data alone, except where the filesystem's
    timestamps are too coarse to tell two writes apart: the hash covers that for the files
    it reaches, without hashing gigabytes of dataset.
    """
    stats: dict[str, tuple[int, ...]] = {}
    folders = []
    for path in paths:
        path = str(path).rstrip("/") or "/"
        stats[path] = _stat(path)
        if os.path.isdir(path):
            folders.append(path)
            for dirpath, dirnames, filenames in os.walk(path):
                for name in dirnames + filenames:
                    full = os.path.join(dirpath, name)
                    stats[full] = _stat(full)
    digests = {}
    if hash_budget_bytes > 0:
        files = sorted((st[0], p) for p, st in stats.items() if st != MISSING and os.path.isfile(p))
        spent = 0
        for size, path in files:
            if spent + size > hash_budget_bytes or len(digests) >= MAX_HASHED_FILES:
                break
            digest = _digest(path)
            if digest is not None:
                digests[path] = digest
                spent += size
    return InputSnapshot(stats, digests, folders)


def changed_inputs(before: InputSnapshot) -> list[str]:
    """Return the paths of `before` that were written, replaced, or that vanished, and new paths under
    its folders (a file a pipeline created inside a linked folder)."""
    changed = {path for path, stat in before.stats.items() if _stat(path) != stat}
    changed.update(path for path, digest in before.digests.items()
                   if path not in changed and _digest(path) != digest)
    for folder in before.folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            changed.update(full for name in dirnames + filenames
                           if (full := os.path.join(dirpath, name)) not in before.stats)
    return sorted(changed)


def _digest(path: str) -> str | None:
    """Return the blake2b of the file at `path`, None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "blake2b").hexdigest()
    except OSError:
        return None


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
