"""Calibration pipeline: a small seeded classifier whose batches each cost CALIBRATION_DELAY_MS.

The cost is a sleep; with CALIBRATION_SPIN=1 it is CPU work (a busy loop) instead, and
CALIBRATION_WORKERS DataLoader workers build the batches, so the pipeline competes for the
cores the way a CPU-bound input pipeline does (the noisy-neighbour arm).
"""
import argparse
import json
import os
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

DELAY_S = float(os.environ.get("CALIBRATION_DELAY_MS", "0")) / 1000.0
SPIN = os.environ.get("CALIBRATION_SPIN", "") == "1"
WORKERS = int(os.environ.get("CALIBRATION_WORKERS", "0") or 0)


class Points(Dataset):
    def __init__(self, n, dim, seed):
        generator = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n, dim, generator=generator)
        self.y = (self.x.sum(dim=1) > 0).long()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def collate(samples):
    if SPIN:  # the injected per-batch cost, as CPU work
        end = time.thread_time() + DELAY_S
        while time.thread_time() < end:
            pass
    else:
        time.sleep(DELAY_S)  # the injected per-batch cost
    return torch.stack([x for x, _ in samples]), torch.stack([y for _, y in samples])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    cfg = json.load(open(parser.parse_args().config))
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    data = Points(cfg["n"], cfg["dim"], cfg["seed"])
    loader = DataLoader(data, batch_size=cfg["batch_size"], shuffle=True, collate_fn=collate,
                        generator=torch.Generator().manual_seed(cfg["seed"]), num_workers=WORKERS)
    model = nn.Sequential(nn.Linear(cfg["dim"], 64), nn.ReLU(), nn.Linear(64, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(cfg["epochs"]):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
