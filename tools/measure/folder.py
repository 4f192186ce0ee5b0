"""A probe folder as a value: the one pipeline run's output files, by name.

Each pipeline run perfloop starts gets its own folder (``<run folder>/probe/007-ab-candidate``):
the probe's record and logs (names from ``contracts.layout``), the run's stdout and stderr,
and the manifest of files it wrote. ``ProbeFolder`` names them, so no module spells a file
name of another's. It is path-like: ``Path(folder)`` and ``folder / name`` work.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from perfloop.contracts.layout import PROGRESS_NAME, RECORD_NAME, kept_batches_name, replay_name
from perfloop.tools.measure.written import MANIFEST


@dataclass(frozen=True)
class ProbeFolder:
    """The output folder of one probed pipeline run."""

    path: Path

    STDOUT = "stdout.txt"
    STDERR = "stderr.txt"
    STREAMS = (STDOUT, STDERR)

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))

    def __fspath__(self) -> str:
        return str(self.path)

    def __truediv__(self, name: str) -> Path:
        return self.path / name

    def __str__(self) -> str:
        return str(self.path)

    @property
    def name(self) -> str:
        return self.path.name

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

    def exists(self) -> bool:
        return self.path.is_dir()


def as_probe_folder(path: str | os.PathLike) -> ProbeFolder:
    """A ProbeFolder for ``path`` (a string from a record, a Path, or already one)."""
    return path if isinstance(path, ProbeFolder) else ProbeFolder(Path(path))
