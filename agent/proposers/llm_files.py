"""Which of the pipeline's files the model is shown, in what order, and what is left out.

The hot path comes first: the files of every function the samples ran through in batch
building (the loop owner, the dataset's `__getitem__`, their helpers, the collate) and in the
training loop's own host time, hottest first. Then the file that builds the DataLoader, the
config, and the modules the training-loop file imports from the pipeline (the model, where
the batch is consumed). Files go in whole, in that order, until the budget is spent; a file
on the hot path is never left out for one that is not, and the prompt lists what was left out.
"""
from __future__ import annotations

import ast
from pathlib import Path

from pydantic import BaseModel

from perfloop.agent.proposers.llm_context import cap
from perfloop.agent.state import LoopState
from perfloop.tools.change.codemods.hot_function import functions, python_files

MAX_FILE_CHARS = 20_000
"""One file's cap: a longer one is cut, and the cut is said."""
MAX_FILES_CHARS = 60_000
"""All files together (about 15k tokens): past it, files further down the order are left out."""


class PromptFile(BaseModel):
    """One file shown to the model, and why it is shown."""

    path: str
    why: str
    text: str
    hot_path: bool = False


def _hot_path(state: LoopState, root: Path, host_first: bool) -> list[tuple[str, str]]:
    """(file, why) of every function on the sampled hot paths, hottest first."""
    profile = state.profile
    found: list[tuple[float, str, str]] = []
    batch = [(h, "batch building") for h in profile.hot_functions]
    main = [(h, "the training loop's own host time") for h in profile.main_hot_functions if h.name != "<module>"]
    for rank, (hot, phase) in enumerate(main + batch if host_first else batch + main):
        found.append((-hot.share - (2.0 if rank == 0 else 0.0), hot.file,
                      f"hot path: {hot.name} holds {hot.share:.0%} of {phase}"))
        for helper in hot.helpers:
            found.append((-helper.self_share, helper.file,
                          f"hot path: {helper.name}, {helper.self_share:.0%} of {phase} in its own code"))
    loader = profile.loader
    if loader is not None and loader.collate_fn:
        name = loader.collate_fn.split(".")[-1]
        found += [(-0.5, file, f"hot path: defines the collate_fn {name}")
                  for file in _defining(root, name)]
    return [(file, why) for _, file, why in sorted(found, key=lambda item: item[0])]


def _defining(root: Path, name: str) -> list[str]:
    hits = []
    for relative in python_files(root):
        try:
            tree = ast.parse((root / relative).read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        if any(qual.split(".")[-1] == name for _, qual in functions(tree)):
            hits.append(relative)
    return hits


def _imported_modules(root: Path, relative: str) -> list[str]:
    """The pipeline's own files that `relative` imports (`from model import Net`, `import utils.metrics`)."""
    try:
        tree = ast.parse((root / relative).read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, OSError):
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    own = set(python_files(root))
    found = []
    for name in names:
        for candidate in (name.replace(".", "/") + ".py", name.replace(".", "/") + "/__init__.py"):
            if candidate in own:
                found.append(candidate)
    return found


def prompt_files(state: LoopState, root: Path, host_first: bool = False,
                 budget: int = MAX_FILES_CHARS) -> tuple[list[PromptFile], list[str]]:
    """The files to show, in order, within `budget` characters; and one line per file left out."""
    profile = state.profile
    wanted: list[tuple[str, str, bool]] = [(f, why, True) for f, why in _hot_path(state, root, host_first)]
    loop_file = profile.loader.file if profile.loader else (
        profile.main_hot_functions[0].file if profile.main_hot_functions else None)
    if profile.loader is not None:
        wanted.append((profile.loader.file, f"builds the DataLoader (line {profile.loader.line}) and runs the "
                                            "training loop", False))
    if state.target.config:
        wanted.append((state.target.config, "the training config", False))
    if loop_file:
        wanted += [(f, f"imported by {loop_file}: the model or helpers the batch goes through", False)
                   for f in _imported_modules(root, loop_file)]
    shown: dict[str, PromptFile] = {}
    left_out: list[str] = []
    used = 0
    for relative, why, hot in wanted:
        if relative in shown:
            shown[relative].hot_path |= hot
            continue
        path = root / relative
        if not path.is_file() or any(relative in line for line in left_out):
            continue
        text = cap(path.read_text(encoding="utf-8", errors="replace"), MAX_FILE_CHARS, relative)
        if used + len(text) > budget and shown:
            left_out.append(f"{relative} ({len(text):,} characters; {why}): over the prompt's budget of "
                            f"{budget:,} characters")
            continue
        used += len(text)
        shown[relative] = PromptFile(path=relative, why=why, text=text, hot_path=hot)
    return list(shown.values()), left_out
