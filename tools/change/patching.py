"""Check what a patch touches: inside the target folder, only editable files, plain edits, no probe."""
from __future__ import annotations

import re
import tempfile
from functools import lru_cache
from pathlib import Path

from perfloop.contracts.layout import ENV_PREFIX, PROBE_MODULES
from perfloop.sandbox.git import GitError, git

_DIFF_PATH = re.compile(r"^(?:\+\+\+|---) (?:[ab]/)?(?P<path>\S+)", re.MULTILINE)
_HEADER_PATHS = re.compile(r"^(?:diff --git a/(?P<old>\S+) b/(?P<new>\S+)|(?:rename|copy) (?:from|to) (?P<moved>\S+))$",
                           re.MULTILINE)
# What a patch may not mention: the probe's modules and bootstrap, and perfloop's environment
# variables. A pipeline that imports the probe or sets PERFLOOP_* can change what is measured.
PROBE_REFERENCES = (*PROBE_MODULES, "sitecustomize", ENV_PREFIX)
_PLAIN_MODE = "100644"


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
    for match in _HEADER_PATHS.finditer(patch):
        paths.update(filter(None, match.group("old", "new", "moved")))
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


def scope_problems(patch: str, subdir: str, editable: list[str]) -> list[str]:
    """Return why the patch is out of scope, one sentence each; empty when it is a plain edit in scope.

    What the patch does is read from ``git apply --numstat --summary`` (git's own parser),
    not from the diff headers alone: mode changes, renames, copies, binary files and
    symbolic links are refused; every path it creates, edits or deletes must be editable;
    and no added line or path may mention the probe or perfloop's environment variables.
    """
    numstat, summary = _git_apply_report(patch)
    problems = []
    for line in summary:
        words = line.split()
        if words[:2] == ["mode", "change"]:
            problems.append(f"it changes a file mode ({line}); only content edits are accepted")
        elif words[0] in ("rename", "copy"):
            problems.append(f"it {words[0]}s a file ({line}); only edits in place are accepted")
        elif words[0] in ("create", "delete") and words[2] != _PLAIN_MODE:
            problems.append(f"it {words[0]}s a file with mode {words[2]} ({line}); only plain files are accepted")
    binaries = [path for added, deleted, path in numstat if added == "-" and deleted == "-"]
    if binaries:
        problems.append(f"it changes binary files {binaries}; only text edits are accepted")
    paths = sorted(set(touched_paths(patch)) | {path for _, _, path in numstat})
    bad = forbidden_paths(paths, subdir, editable)
    if bad:
        where = f", inside {subdir}" if subdir else ""
        problems.append(f"it touches files it may not: {bad} (editable: {editable}{where})")
    mentions = probe_mentions(patch)
    if mentions:
        problems.append(f"it references perfloop's probe or variables ({', '.join(mentions)}); a patch may "
                        "not change how it is measured")
    return problems


def probe_mentions(patch: str) -> list[str]:
    """Return which of PROBE_REFERENCES the patch's added lines or paths mention."""
    added = [line[1:] for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++")]
    text = "\n".join(added + touched_paths(patch))
    return [name for name in PROBE_REFERENCES if name.lower() in text.lower()]


def _git_apply_report(patch: str) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Return git's reading of the patch: numstat rows (added, deleted, path) and summary lines."""
    with tempfile.TemporaryDirectory(prefix="perfloop-scope-") as folder:
        path = Path(folder) / "candidate.patch"
        path.write_text(patch if patch.endswith("\n") else patch + "\n", encoding="utf-8")
        try:
            out = git("apply", "--numstat", "--summary", str(path), cwd=Path(folder))
        except GitError as error:
            raise ValueError(f"git cannot read the patch: {error.stderr}") from None
    numstat, summary = [], []
    for line in out.splitlines():
        if line.startswith(" "):
            summary.append(line.strip())
        elif line.count("\t") >= 2:
            added, deleted, name = line.split("\t", 2)
            numstat.append((added, deleted, _renamed_to(name)))
    return numstat, summary


def _renamed_to(name: str) -> str:
    """Reduce numstat's 'a => b' and 'dir/{a => b}' rename notation to the new path."""
    brace = re.fullmatch(r"(?P<pre>.*)\{(?P<old>.*) => (?P<new>.*)\}(?P<post>.*)", name)
    if brace:
        return (brace["pre"] + brace["new"] + brace["post"]).replace("//", "/")
    return name.split(" => ")[-1]
