"""The hot user function as py-spy sees it: an external sampler, its stacks ranked by perfloop's rule.

py-spy launches the target as its child (`py-spy record -- python train.py ...`), so it needs no
ptrace attach permission; `--subprocesses` follows the DataLoader workers. Its raw output is one
line per distinct stack, outermost frame first: `func (file:line);...;func (file:line) COUNT`.
The user frames of each stack (files inside the target folder) become the same (file, name,
first line, line) paths perfloop's sampler records, and `perfloop.tools.measure.hotspots` ranks them: the
sampler is independent, the rule that names the loop owner is the one under test.
"""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from perfloop.evals.torch_ledger import AccuracyRunError, python_command

# perfloop's own path folding, loop finding and loop-owner rule, applied to py-spy's samples.
from perfloop.tools.measure.hotspots import loop_spans, parse_frames, rank_paths
from perfloop.tools.measure.models import HotFunction

_FRAME = re.compile(r"^(?P<name>.*) \((?P<file>.*):(?P<line>\d+)\)$")
_STAGE_FILES = ("torch/nn/modules/module.py", "torch/autograd/", "torch/_tensor.py", "torch/optim/",
                "torch/utils/data/dataloader.py", "torch/utils/data/_utils/", "<frozen importlib")
_FETCH_FILE = "torch/utils/data/_utils/fetch.py"


def pyspy_executable() -> str | None:
    """Return py-spy next to this interpreter, else on PATH; None when it is not installed."""
    beside = Path(sys.executable).with_name("py-spy")
    return str(beside) if beside.exists() else shutil.which("py-spy")


def run_pyspy(command: str, target_dir: Path, out_dir: Path, num_steps: int, rate_hz: int = 200,
              timeout_s: float = 900.0) -> Path:
    """Record ``command`` (bounded by EVAL_MAX_STEPS) with py-spy as its parent; return the raw file."""
    exe = pyspy_executable()
    if exe is None:
        raise AccuracyRunError("py-spy is not installed: pip install py-spy (or the `evals` extra)")
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / "pyspy.txt"
    env = {**os.environ, "EVAL_MAX_STEPS": str(num_steps), "PYTHONUNBUFFERED": "1"}
    done = subprocess.run([exe, "record", "--format", "raw", "--subprocesses", "--full-filenames",
                           "--rate", str(rate_hz), "--output", str(out), "--", *python_command(command)],
                          cwd=target_dir, env=env, capture_output=True, text=True, timeout=timeout_s)
    (out_dir / "pyspy.stderr").write_text(done.stderr)
    if done.returncode != 0 or not out.exists():
        raise AccuracyRunError(f"py-spy record of `{command}` in {target_dir} exited {done.returncode}; "
                               f"stderr tail:\n{done.stderr[-1500:]}")
    return out


def parse_raw(path: Path) -> list[tuple[list[tuple[str, str, int]], int]]:
    """Read py-spy's raw output: [(frames outermost first as (name, file, line), count)]."""
    stacks = []
    for text in path.read_text().splitlines():
        body, _, count = text.rpartition(" ")
        if not body or not count.isdigit():
            continue
        frames = []
        for part in body.split(";"):
            match = _FRAME.match(part)
            if match:  # the `process PID:"cmd"` prefix of --subprocesses does not match
                frames.append((match["name"], match["file"], int(match["line"])))
        if frames:
            stacks.append((frames, int(count)))
    return stacks


@lru_cache(maxsize=256)
def _definitions(file: str) -> tuple[tuple[str, int, int, int], ...]:
    """(name, first line as co_firstlineno gives it, def line, last line) of every function in ``file``."""
    try:
        tree = ast.parse(Path(file).read_text())
    except (OSError, SyntaxError, ValueError):
        return ()
    return tuple((node.name, min([node.lineno] + [d.lineno for d in node.decorator_list]), node.lineno,
                  node.end_lineno or node.lineno)
                 for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))


def first_line(file: str, qualname: str, line: int) -> int:
    """Return the first line of the function ``qualname`` that contains ``line`` (1 for a module)."""
    leaf = qualname.rsplit(".", 1)[-1]
    if leaf == "<module>":
        return 1
    # The innermost def of that name around the line; a comprehension or lambda has no def, so
    # its own line stands in (perfloop folds comprehension frames into their function anyway).
    candidates = [first for name, first, _, last in _definitions(file) if name == leaf and first <= line <= last]
    return max(candidates) if candidates else line


def user_paths(stacks, target_dir: Path, phase: str) -> tuple[int, dict[tuple, int]]:
    """Keep the samples of ``phase`` ('batch_build' or 'main:other') as perfloop-style user call paths.

    'main:other' is main-process time in user code outside every stage. py-spy's raw stacks carry no
    time, so start-up (building the dataset, say) is told apart by place instead: walking out-in
    along the lines where training ran (lines seen under a stage), a sample counts when it leaves
    them inside, or below, a loop holding such a line, or into a function never seen under a stage.
    """
    root = str(target_dir.resolve()) + os.sep
    if phase == "batch_build":
        # perfloop samples batch building from the fetch inward: the loop driving the
        # DataLoader (the training loop, Trainer.fit) is not part of it.
        stacks = [(frames[_last_fetch(frames):], count) for frames, count in stacks
                  if _last_fetch(frames) is not None]
    as_user = [(tuple((file, name, first_line(file, name, line), line) for name, file, line in frames
                      if file.startswith(root)), [file for _, file, _ in frames], count)
               for frames, count in stacks]
    trained: dict[tuple, set[int]] = {}
    for user, files, _ in as_user:
        if any(marker in file for file in files for marker in _STAGE_FILES):
            for frame in user:
                trained.setdefault(frame[:3], set()).add(frame[3])
    total = 0
    paths: dict[tuple, int] = {}
    for user, files, count in as_user:
        if phase == "main:other" and (any(marker in file for file in files for marker in _STAGE_FILES)
                                      or not _in_training(user, trained)):
            continue
        total += count
        if user:
            paths[user] = paths.get(user, 0) + count
    return total, paths


def _last_fetch(frames) -> int | None:
    found = [index for index, (_, file, _) in enumerate(frames) if file.endswith(_FETCH_FILE)]
    return found[-1] if found else None


def _in_training(user: tuple, trained: dict[tuple, set[int]]) -> bool:
    in_loop = False  # an outer frame sits inside a loop that runs training steps
    for file, name, first, line in user:
        lines = trained.get((file, name, first))
        if lines is None:
            return True  # called from a line where training ran
        in_loop = in_loop or any(first <= start <= line <= end and any(start <= seen <= end for seen in lines)
                                 for start, end in loop_spans(file))
        if line not in lines:
            return in_loop
    return bool(user)


def pyspy_hot_functions(raw: Path, target_dir: Path, phase: str) -> list[HotFunction]:
    """Rank py-spy's samples of ``phase`` with perfloop's loop-owner rule."""
    total, paths = user_paths(parse_raw(raw), target_dir, phase)
    folded: dict[tuple, int] = {}
    for path, count in paths.items():
        frames = parse_frames([list(frame) for frame in path], keep_module=phase != "batch_build")
        if frames:
            folded[frames] = folded.get(frames, 0) + count
    return rank_paths(total, folded, phase, target_dir)
