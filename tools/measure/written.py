"""What a pipeline run wrote: the files it created or changed under its folder, recorded for the side-output check.

``snapshot`` before the run, ``record_written`` after it: every regular file created or
modified under the pipeline folder (links, ``.git`` and ``__pycache__`` left out), as its
SHA-256 and, for text up to ``MAX_TEXT_BYTES``, its lines, in ``MANIFEST`` of the probe
folder. ``perfloop.tools.check.sideoutputs`` compares them.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

MANIFEST = "side-outputs.json"
MAX_TEXT_BYTES = 1_000_000
MAX_FILES = 10_000
_SKIP_DIRS = {".git", "__pycache__"}


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Return (mtime_ns, size) of every regular file under ``root``, links and .git left out."""
    found: dict[str, tuple[int, int]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not os.path.islink(os.path.join(folder, d))]
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            info = os.stat(path)
            found[os.path.relpath(path, root)] = (info.st_mtime_ns, info.st_size)
            if len(found) >= MAX_FILES:
                return found
    return found


def record_written(root: Path, before: dict[str, tuple[int, int]], out_dir: Path) -> None:
    """Write MANIFEST in ``out_dir``: the files under ``root`` the run created or changed, with their lines."""
    files = {}
    for relative, stamp in sorted(snapshot(root).items()):
        if before.get(relative) == stamp:
            continue
        digest, head = hashlib.sha256(), b""
        with open(root / relative, "rb") as handle:  # a checkpoint may be gigabytes: hash it in chunks
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
                if len(head) <= MAX_TEXT_BYTES:
                    head += chunk
        entry: dict = {"sha256": digest.hexdigest(), "size": stamp[1], "lines": None}
        if len(head) <= MAX_TEXT_BYTES and b"\0" not in head:
            try:
                entry["lines"] = head.decode("utf-8").splitlines()
            except UnicodeDecodeError:
                pass
        files[relative] = entry
    (out_dir / MANIFEST).write_text(json.dumps({"files": files}))
