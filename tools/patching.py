"""Check what a patch touches: inside the target folder, only editable files."""
from __future__ import annotations

import re
from functools import lru_cache

_DIFF_PATH = re.compile(r"^(?:\+\+\+|---) (?:[ab]/)?(?P<path>\S+)", re.MULTILINE)


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern:
    """Translate a glob with ``**`` (any folders), ``*`` and ``?`` (within one name) to a regex."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def matches_any(path: str, globs: list[str]) -> bool:
    """Tell whether the relative ``path`` matches one of ``globs``."""
    return any(_glob_regex(glob).match(path) for glob in globs)


def touched_paths(patch: str) -> list[str]:
    """Return the repo-relative paths a unified diff touches (old and new names)."""
    paths = {m.group("path") for m in _DIFF_PATH.finditer(patch)}
    paths.discard("/dev/null")
    return sorted(paths)


def forbidden_paths(paths: list[str], subdir: str, editable: list[str]) -> list[str]:
    """Return the paths (repo-relative) outside the target folder or not matching ``editable``."""
    prefix = f"{subdir.rstrip('/')}/" if subdir else ""
    bad = []
    for path in paths:
        if prefix and not path.startswith(prefix):
            bad.append(path)
        elif not matches_any(path[len(prefix):], editable) or "/.." in f"/{path}" or path.startswith(".git/"):
            bad.append(path)
    return bad


def adds_symlink(patch: str) -> bool:
    """Tell whether the patch creates a symbolic link (which could point outside the tree)."""
    return bool(re.search(r"^(?:new file mode|new mode) 120000", patch, re.MULTILINE))
