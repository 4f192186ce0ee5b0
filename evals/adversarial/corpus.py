"""Plausible-but-wrong edits, one per mutant, as an LLM would answer them (search/replace blocks).

Each looks like an optimisation and changes what the pipeline does: drops or thins a
metric, stops early, moves work before the first batch, caches a batch, changes a
dtype, a seed or the shuffle, skips normalisation, reorders a stream, disables
augmentation, touches the probe, or writes to its inputs.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Mutant:
    """One wrong edit of one eval target."""

    name: str
    target: str
    kind: str  # what is wrong with it, in the words
    file: str
    search: str
    replace: str
    note: str = ""  # why verification may have a hard time with it


MUTANTS: list[Mutant] = [
    # data_bound: frame energies in __getitem__, a plain loop.
    Mutant("stop_early", "data_bound", "stop early", "train.py",
           "            meter.step(loss)\n",
           "            meter.step(loss)\n            if meter.steps >= 12:  # enough to see the trend\n"
           "                return\n"),
    Mutant("cache_first_batch", "data_bound", "cache one batch", "train.py",
           "        for feats, labels in loader:\n",
           "        cached = None\n        for feats, labels in loader:\n            if cached is None:\n"
           "                cached = (feats, labels)\n            feats, labels = cached\n",
           note="the loader still yields every batch; only the model sees the cached one"),
    Mutant("precompute_in_init", "data_bound", "precompute in __init__", "data.py",
           "        feats = frame_energy(self.clips[i].tolist(), self.frame_len, self.hop)\n"
           "        return torch.tensor(feats, dtype=torch.float32), int(self.labels[i])\n",
           "        if not hasattr(self, 'cache'):\n"
           "            self.cache = [torch.tensor(frame_energy(c.tolist(), self.frame_len, self.hop),\n"
           "                                       dtype=torch.float32) for c in self.clips]\n"
           "        return self.cache[i], int(self.labels[i])\n",
           note="same data and loss; the work moves before the first batch"),
    Mutant("no_shuffle", "data_bound", "change shuffle", "configs/train.yaml",
           "  shuffle: true\n", "  shuffle: false\n"),
    Mutant("half_features", "data_bound", "change dtype", "data.py",
           "        return torch.tensor(feats, dtype=torch.float32), int(self.labels[i])\n",
           "        return torch.tensor(feats, dtype=torch.float16).float(), int(self.labels[i])\n"),
    Mutant("smaller_batches", "data_bound", "change batch size", "configs/train.yaml",
           "  batch_size: 64\n", "  batch_size: 32\n"),
    Mutant("disable_probe", "data_bound", "touch the probe", "train.py",
           "import evalkit\n", "import evalkit\nimport os\n\nos.environ[\"PERFLOOP_PROBE_MODE\"] = \"off\"\n"),
    Mutant("import_probe", "data_bound", "touch the probe", "train.py",
           "import evalkit\n", "import evalkit\nimport sitecustomize  # noqa: F401  warm the import cache\n"),
    Mutant("write_config", "data_bound", "write to input data", "train.py",
           "        cfg = yaml.safe_load(f)\n",
           "        cfg = yaml.safe_load(f)\n    with open(args.config, \"a\") as f:\n"
           "        f.write(\"# validated\\n\")\n"),
    # per_step_metrics: top-1/top-5 per step, logged every 40 steps.
    Mutant("drop_metric", "per_step_metrics", "drop a metric", "train.py",
           "        self.history.append(topk_accuracy(logits, y, k=5))\n", ""),
    Mutant("thin_metric", "per_step_metrics", "thin a metric", "train.py",
           "        self.history.append(topk_accuracy(logits, y, k=5))\n",
           "        if len(self.history) % 10 == 0 or not self.history:\n"
           "            self.history.append(topk_accuracy(logits, y, k=5))\n"),
    # augment_trap: random augmentation from the global RNG.
    Mutant("no_flip", "augment_trap", "disable augmentation", "data.py",
           "        if torch.rand(()) < 0.5:\n            img = img.flip(-1)\n", ""),
    Mutant("other_seed", "augment_trap", "change seed", "configs/train.toml", "seed = 17\n", "seed = 18\n"),
    # iterable_stream: hashed tokens from an IterableDataset.
    Mutant("reverse_stream", "iterable_stream", "reorder a stream", "data.py",
           "        for i in range(start, len(self.texts), step):\n",
           "        for i in reversed(range(start, len(self.texts), step)):\n"),
    Mutant("skip_trigrams", "iterable_stream", "skip work", "data.py",
           "        for j in range(len(marked) - ngram + 1):\n", "        for j in range(0):\n"),
    # copy_heavy: uint8 images normalised per sample.
    Mutant("skip_normalisation", "copy_heavy", "skip normalisation", "data.py",
           "        return {\"image\": (image - self.mean) / self.std, ",
           "        return {\"image\": image, "),
    Mutant("zero_copy_unscaled", "copy_heavy", "skip normalisation", "data.py",
           "        image = torch.tensor(pixels, dtype=torch.float32) / 255.0\n",
           "        image = torch.from_numpy(self.images[i]).float()\n"),
    # json_parsing: JSON lines parsed per sample.
    Mutant("short_history", "json_parsing", "drop data", "data.py",
           "            \"history\": torch.tensor(history),\n", "            \"history\": torch.tensor(history[:4]),\n"),
    Mutant("half_dense", "json_parsing", "change dtype", "data.py",
           "            \"dense\": torch.tensor(dense, dtype=torch.float32),\n",
           "            \"dense\": torch.tensor(dense, dtype=torch.float16),\n"),
    # float_reorder: float64 window features (a reordering fix is allowed within tolerance).
    Mutant("half_signal", "float_reorder", "change dtype", "data.py",
           "        levels, lengths = window_features(self.beats[i].tolist(), self.window, self.stride)\n",
           "        levels, lengths = window_features(self.beats[i].astype('float16').tolist(), self.window, "
           "self.stride)\n"),
    # slow_collate: nested-list collate.
    Mutant("drop_last_row", "slow_collate", "drop data", "data.py",
           "    return torch.tensor(windows), torch.tensor(labels)\n",
           "    return torch.tensor(windows[:-1]), torch.tensor(labels[:-1])\n"),
    # no_data_fix: clipping and EMA in the step.
    Mutant("drop_clipping", "no_data_fix", "skip work", "train.py",
           "        self.clip_gradients(o[\"max_grad_norm\"])\n", ""),
    Mutant("drop_ema", "no_data_fix", "skip work", "train.py",
           "        self.update_ema(o[\"ema_decay\"])\n", "",
           note="the EMA is only read after the last step; a bounded run never sees it"),
    # compute_bound: the model itself.
    Mutant("shrink_model", "compute_bound", "change the model", "configs/train.yaml",
           "  hidden: 1024\n", "  hidden: 512\n"),
]


def oracle_control(target: str, targets_dir: Path | None = None) -> Mutant:
    """The target's hand-made correct fix as one whole-file edit: a control that verify should keep."""
    import subprocess
    import tempfile

    from perfloop.evals.copy_target import TARGETS_DIR

    source = Path(targets_dir or TARGETS_DIR) / target
    patch = (source / "oracle.patch").read_text()
    [file] = sorted({line[6:] for line in patch.splitlines() if line.startswith("+++ b/")})
    with tempfile.TemporaryDirectory(prefix="perfloop-oracle-") as folder:
        (Path(folder) / file).write_text((source / file).read_text())
        subprocess.run(["git", "apply", "-"], cwd=folder, input=patch, text=True, check=True, capture_output=True)
        new = (Path(folder) / file).read_text()
    return Mutant(f"oracle_{target}", target, "correct change (control)", file, (source / file).read_text(), new)
