"""A loader thread that keeps up with the loop but takes the GIL from it.

Every sample is scaled and clipped by a Python loop over floats (`scale_clip`). A background
thread reads the DataLoader and hands batches to the loop over a small queue, a common
prefetcher. The thread keeps up, so the loop hardly waits for data; but while the thread runs
Python it holds the GIL, and each torch call of the loop's forward and backward must wait
for the GIL to come back when it returns: the step slows down instead of the wait growing, on
any number of cores. Replayed from memory (the thread hands over stored batches and builds
nothing), the step is much faster: that is the headspace. Vectorising `scale_clip` frees the
GIL again.

A sample is built without any torch call, so the thread lets the GIL go only when CPython
forces it to (every 5 ms, `sys.getswitchinterval()`), not at points that depend on how
the OS wakes threads up: the loop is held back on every machine alike, by about one batch
build a step, with one core or many (on one core the loop also waits for the core).
configs/inline.yaml is the near miss: the loop reads the DataLoader itself and simply waits
for each batch.
"""
import argparse
import queue
import sys
import threading
from pathlib import Path

import numpy as np
import torch
import yaml
from torch.utils.data import DataLoader, Dataset


def scale_clip(values, scale, limit):
    """Scale each value and clip it to [-limit, limit] (a list of floats in, a list out)."""
    out = []
    for v in values:
        out.append(min(max(v * scale, -limit), limit))
    return out


class Rows(Dataset):
    def __init__(self, table, labels):
        self.table, self.labels = table, labels

    def __len__(self):
        return len(self.table)

    def __getitem__(self, index):
        feats = scale_clip(self.table[index].tolist(), 1.5, 2.0)
        return np.array(feats, dtype=np.float32), int(self.labels[index])


class Prefetcher:
    """Read `loader` for `epochs` epochs in a background thread, `depth` batches ahead of the loop."""

    def __init__(self, loader, epochs, depth):
        self.loader, self.epochs = loader, epochs
        self.batches = queue.Queue(maxsize=depth)
        threading.Thread(target=self._fill, name="prefetch", daemon=True).start()

    def _fill(self):
        for _ in range(self.epochs):
            for batch in self.loader:
                self.batches.put(batch)
        self.batches.put(None)

    def __iter__(self):
        while (batch := self.batches.get()) is not None:
            yield batch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    cfg = yaml.safe_load(Path(args.config).read_text())
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(cfg["threads"])
    rng = np.random.default_rng(cfg["seed"])
    width = cfg["data"]["width"]
    table = rng.standard_normal((cfg["data"]["rows"], width))
    labels = rng.integers(0, 4, size=len(table))
    hidden = cfg["hidden"]
    model = torch.nn.Sequential(torch.nn.Linear(width, hidden), torch.nn.ReLU(),
                                torch.nn.Linear(hidden, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    # The shuffle has a generator of its own: the thread must not draw from the global one while
    # the loop does (the order of their draws would differ from run to run).
    shuffle = torch.Generator().manual_seed(cfg["seed"])
    loader = DataLoader(Rows(table, labels), batch_size=cfg["data"]["batch_size"], shuffle=True, generator=shuffle)
    if cfg["data"]["prefetch_depth"]:
        batches = Prefetcher(loader, cfg["epochs"], cfg["data"]["prefetch_depth"])
    else:
        batches = (batch for _ in range(cfg["epochs"]) for batch in loader)
    for step, (features, labels_) in enumerate(batches):
        loss = torch.nn.functional.cross_entropy(model(features), labels_)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 64 == 63:
            print(f"step {step + 1} loss {loss.item():.4f}", file=sys.stderr)


if __name__ == "__main__":
    main()
