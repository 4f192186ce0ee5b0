"""A pipeline with a planted slow transform whose vectorised form is many times faster on any machine.

Each sample reads a row of an ignored input file and runs a sliding-window sum of squares
in plain Python (about 70 ms a batch); the vectoriser turns it into one numpy expression.
Each step also waits a fixed 10 ms (standing in for a GPU step the host waits on), so
the vectorised pipeline's steps stay steady instead of shrinking to noise: the gain
(about 7x) is far outside any run-to-run spread, even on a busy 2-core machine with two
timing runs per side. The fault-point tests use it where a run must reach an accepted
commit.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
import yaml
from torch.utils.data import DataLoader, Dataset


def frame_energy(values, width):
    """Sum of squares over a sliding window, in plain Python (deliberately slow)."""
    out = []
    for i in range(len(values)):
        total = 0.0
        for j in range(width):
            total += values[(i + j) % len(values)] ** 2
        out.append(total)
    return out


class Rows(Dataset):
    def __init__(self, table, width):
        self.table = torch.from_numpy(table)
        self.width = width

    def __len__(self):
        return len(self.table)

    def __getitem__(self, index):
        row = self.table[index]
        features = torch.tensor(frame_energy(row[:-1].tolist(), self.width))
        return features, row[-1].long() % 4


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
    data = Rows(np.load(path), cfg["data"]["width"])
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
            time.sleep(cfg["step_wait_ms"] / 1000.0)
        print(f"epoch {epoch} loss {loss.item():.4f}", file=sys.stderr)


if __name__ == "__main__":
    main()
