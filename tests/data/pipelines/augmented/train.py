"""The waiting pipeline plus a random augmentation per sample, drawn from the global RNG.

More DataLoader workers would make it faster, but each worker seeds its own RNG, so
the augmented batches change: a `num_workers` change is always rejected at the data
check. Tests use it where a run must reach a deterministic rejection. The draw goes
through a callable kept on the dataset, which perfloop does not read into, so only
verification sees that it changes with workers (a draw it can read, it refuses to
split over workers before any run: tests/test_codemods.py).
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
import yaml
from torch.utils.data import DataLoader, Dataset


class SlowReads(Dataset):
    def __init__(self, table, delay_s):
        self.table = torch.from_numpy(table)
        self.delay_s = delay_s
        self.noise = torch.randn  # the augmentation's source, called per sample

    def __len__(self):
        return len(self.table)

    def __getitem__(self, index):
        time.sleep(self.delay_s)
        row = self.table[index]
        jitter = 0.01 * self.noise(row.shape[0] - 1)  # the augmentation: global RNG, per worker once forked
        return row[:-1] + jitter, row[-1].long() % 4


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    cfg = yaml.safe_load(Path(args.config).read_text())
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    path = Path("data/table.npy")
    if not path.exists():  # the input is git-ignored: made once, then read on every run
        path.parent.mkdir(exist_ok=True)
        np.save(path, np.random.default_rng(cfg["seed"]).random((256, 17), dtype=np.float32) * 4)
    data = SlowReads(np.load(path), cfg["data"]["delay_ms"] / 1000.0)
    loader = DataLoader(data, batch_size=cfg["data"]["batch_size"], shuffle=True,
                        num_workers=cfg["data"]["num_workers"])
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(cfg["epochs"]):
        for features, labels in loader:
            loss = torch.nn.functional.cross_entropy(model(features), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}", file=sys.stderr)


if __name__ == "__main__":
    main()
