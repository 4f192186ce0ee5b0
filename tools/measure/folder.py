"""A probe folder as a value: the one pipeline run's output files, by name.

Each pipeline run perfloop starts gets its own folder (``<run folder>/probe/007-ab-candidate``):
the probe's record and logs (names from ``contracts.layout``), the run's stdout and stderr,
and the manifest of files it wrote. ``ProbeFolder`` names them, so no module spells a file
name of another's. It is path-like: ``Path(folder)`` and ``folder / name`` work.
"""
from __future__ import annotations

import os
from pathlib import Path

from perfloop.contracts.layout import PROGRESS_NAME, RECORD_NAME, kept_batches_name, replay_name
from perfloop.tools.measure.written import MANIFEST


class ProbeFolder(type(Path())):
    """The output folder of one probed pipeline run: a Path that also names the files in it."""

    STDOUT = "stdout.txt"
    STDERR = "stderr.txt"
    STREAMS = (STDOUT, STDERR)

    @property
    def path(self) -> Path:
        """The folder as a plain Path."""
        return Path(self)

    @property
    def stdout(self) -> Path:
        return self.path / self.STDOUT

    @property
    def stderr(self) -> Path:
        return self.path / self.STDERR

    @property
    def record(self) -> Path:
        """The main process's record (rank 0)."""
        return self.path / RECORD_NAME

    @property
    def progress(self) -> Path:
        return self.path / PROGRESS_NAME

    @property
    def kept_batches(self) -> Path:
        """The batches a full run kept for tolerance checks (rank 0)."""
        return self.path / kept_batches_name(0)

    @property
    def replay_batches(self) -> Path:
        return self.path / replay_name(0)

    @property
    def written(self) -> Path:
        """The manifest of files the run created or changed (``measure.written``)."""
        return self.path / MANIFEST


def as_probe_folder(path: str | os.PathLike) -> ProbeFolder:
    """A ProbeFolder for ``path`` (a string from a record, a Path, or already one)."""
    return path if isinstance(path, ProbeFolder) else ProbeFolder(Path(path))
