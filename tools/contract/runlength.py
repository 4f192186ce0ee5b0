"""Read how many optimizer steps a whole training run takes, from where the pipeline sets it.

Sources, first that sets a knob wins (the order the pipeline itself applies them):
1. flags in the contract's command (`--max_iters=5000`, `--max-steps 5000`);
2. the training config: YAML/JSON/TOML keys, INI sections (`.ini`/`.cfg`, configparser), or
   `key = value` lines of a Python config;
3. trainer calls in the target's Python files: `TrainingArguments(max_steps=...,
   num_train_epochs=..., per_device_train_batch_size=...)`, Lightning `Trainer(max_steps=...,
   max_epochs=...)`, literal arguments only;
4. `parser.add_argument("--max-iters", default=...)` defaults;
5. module-level `max_iters = 5000` literals in the Python files (a configurator's defaults).

Epochs become steps as epochs × ceil(dataset size ÷ batch size) when a size key and a batch
size are known too; a step count (max_iters, max_steps, ...) wins over an epoch count from
the same or a later source (so a script's `max_steps = 100000` literal does not override the
config's `epochs`).
Anything else gives None: no whole-run judgement is made on a guess. Where only the epochs are
known (the dataset's size is in the data, not the config), read_run_epochs returns them, and the
run's length is the epochs times the batches of an epoch the probe measures (LoopState.run_steps).
"""
from __future__ import annotations

import ast
import configparser
import json
import math
import shlex
import tomllib
from pathlib import Path

import yaml

STEP_KEYS = ("max_iters", "max_steps", "num_steps", "total_steps", "train_steps", "num_iters",
             "max_iterations", "num_iterations", "n_steps", "n_iters", "iters")
EPOCH_KEYS = ("epochs", "num_epochs", "max_epochs", "num_train_epochs", "n_epochs")
SIZE_KEYS = ("n_samples", "num_samples", "n_examples", "num_examples", "n_clips", "dataset_size", "train_size",
             "num_train_samples", "n_train")
BATCH_KEYS = ("batch_size", "per_device_train_batch_size", "train_batch_size")
_KNOBS = {"steps": STEP_KEYS, "epochs": EPOCH_KEYS, "size": SIZE_KEYS, "batch": BATCH_KEYS}
_TRAINER_CALLS = ("TrainingArguments", "Seq2SeqTrainingArguments", "Trainer")
_MAX_SOURCE_BYTES = 1 << 20
_SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", "node_modules", "site-packages"}
_EVAL_SECTIONS = ("val", "eval", "test", "predict", "infer")
# Kept free of perfloop.tools.change.codemods (which imports torch): load_target calls this on every command.


def read_python_config(text: str) -> dict[str, object]:
    """Return a Python config's top-level `key = literal` assignments; a later one wins, like exec.

    Raises SyntaxError when the text is not Python.
    """
    values = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = _literal(node.value)
            if value is None:
                continue  # an expression (os.environ[...], a * b): not a knob we can read
            for target in targets:
                if isinstance(target, ast.Name):
                    values[target.id] = value
    return values


def read_run_steps(target_dir: Path, config: str | None, command: str) -> int | None:
    """Return the optimizer steps of a whole run, or None when no source says."""
    return _run_length(target_dir, config, command)[0]


def read_run_epochs(target_dir: Path, config: str | None, command: str) -> int | None:
    """Return the epochs of a whole run where the sources give epochs but no step count (None otherwise)."""
    steps, epochs = _run_length(target_dir, config, command)
    return epochs if steps is None else None


def _run_length(target_dir: Path, config: str | None, command: str) -> tuple[int | None, int | None]:
    """(steps of a whole run or None, the epochs knob or None)."""
    target_dir = Path(target_dir)
    sources = [_from_command(command), _from_config(target_dir, config)]
    trees = _trees(target_dir)
    sources += [_from_trainer_calls(trees), _from_argparse(trees), _from_module_literals(trees, command)]
    knobs, rank = {}, {}
    for index, found in enumerate(sources):
        for knob, value in found.items():
            if knob not in knobs:
                knobs[knob], rank[knob] = value, index
    by_epochs = None
    if {"epochs", "size", "batch"} <= set(knobs):
        by_epochs = knobs["epochs"] * math.ceil(knobs["size"] / knobs["batch"])
    if "steps" in knobs and (by_epochs is None or rank["steps"] <= rank["epochs"]):
        return knobs["steps"], knobs.get("epochs")
    return by_epochs, knobs.get("epochs")


def _knobs(values: dict[str, object]) -> dict[str, int]:
    """Map key -> value pairs onto the knobs; only positive whole numbers count (-1 means unset)."""
    found = {}
    for knob, keys in _KNOBS.items():
        for key in keys:
            value = values.get(key)
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                found[knob] = value
                break
    return found


def _from_command(command: str) -> dict[str, int]:
    words, values = _words(command), {}
    for index, word in enumerate(words):
        if not word.startswith("--"):
            continue
        key, _, value = word[2:].partition("=")
        if not value and index + 1 < len(words):
            value = words[index + 1]
        try:
            values[key.replace("-", "_")] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            continue
    return _knobs(values)


def _from_config(target_dir: Path, config: str | None) -> dict[str, int]:
    if not config:
        return {}
    suffix = Path(config).suffix.lower()
    try:
        text = (target_dir / config).read_text(encoding="utf-8")
        if suffix == ".py":
            return _knobs(read_python_config(text))
        if suffix in (".ini", ".cfg"):
            return _knobs(_training_values(_read_ini(text)))
        loaders = {".yaml": yaml.safe_load, ".yml": yaml.safe_load, ".json": json.loads, ".toml": tomllib.loads}
        data = loaders[suffix](text) if suffix in loaders else None
    except (OSError, ValueError, SyntaxError, yaml.YAMLError, configparser.Error):  # unreadable: "unknown"
        return {}
    return _knobs(_training_values(data))


def _read_ini(text: str) -> dict[str, dict[str, object]]:
    """An INI file as {section: {key: value}}, values read as Python literals where they are ones."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    return {name: {key: _literal_text(value) for key, value in parser[name].items()} for name in parser.sections()}


def _literal_text(text: str) -> object:
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return text


def _training_values(data: object, sections: tuple = ()) -> dict[str, object]:
    """Flatten a nested config to key -> value, skipping eval sections; a train section wins a clash."""
    if not isinstance(data, dict):
        return {}
    values, clashes = {}, set()
    for key, value in data.items():
        if isinstance(value, dict):
            name = str(key).lower()
            if name.startswith(_EVAL_SECTIONS):
                continue
            inner = _training_values(value, sections + (name,))
            for k, v in inner.items():
                if name.startswith("train"):
                    values[k] = v
                    clashes.discard(k)
                elif k not in values:
                    values[k] = v
                elif values[k] != v:
                    clashes.add(k)
        else:
            values.setdefault(str(key), value)
    return {k: v for k, v in values.items() if k not in clashes}


def _trees(target_dir: Path) -> dict[str, ast.Module]:
    """Parse the target's own Python files: relative path -> tree."""
    trees = {}
    for path in sorted(target_dir.rglob("*.py")):
        if set(path.relative_to(target_dir).parts[:-1]) & _SKIP_DIRS:
            continue
        try:
            if path.stat().st_size > _MAX_SOURCE_BYTES:
                continue
            trees[str(path.relative_to(target_dir))] = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
    return trees


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _calls(trees: dict[str, ast.Module]):
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                yield name, node


def _from_trainer_calls(trees: dict[str, ast.Module]) -> dict[str, int]:
    values = {}
    for name, call in _calls(trees):
        if name in _TRAINER_CALLS:
            for keyword in call.keywords:
                if keyword.arg is not None:
                    values.setdefault(keyword.arg, _literal(keyword.value))
    return _knobs(values)


def _from_argparse(trees: dict[str, ast.Module]) -> dict[str, int]:
    values = {}
    for name, call in _calls(trees):
        if name != "add_argument":
            continue
        flags = [_literal(a) for a in call.args]
        flags = [f for f in flags if isinstance(f, str) and f.startswith("--")]
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        dest = _literal(keywords["dest"]) if "dest" in keywords else (flags[0][2:].replace("-", "_") if flags else None)
        if isinstance(dest, str) and "default" in keywords:
            values.setdefault(dest, _literal(keywords["default"]))
    return _knobs(values)


def _from_module_literals(trees: dict[str, ast.Module], command: str) -> dict[str, int]:
    """Module-level literals of the script the command runs; elsewhere only where all files agree."""
    script = next((w for w in _words(command) if w.endswith(".py")), None)
    chosen = {script: trees[script]} if script in trees else trees
    values, clashes = {}, set()
    for tree in chosen.values():
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        value = _literal(node.value)
                        if values.setdefault(target.id, value) != value:
                            clashes.add(target.id)
    return _knobs({k: v for k, v in values.items() if k not in clashes})


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return []
