"""A two-rank DistributedDataParallel job over gloo on CPU, where rank 1's loader is slower.

Run by `torchrun --nproc_per_node=2 train.py --config configs/train.yaml`. Each rank
reads its own shard; rank 1 sleeps longer per sample, so rank 0 waits for it inside the
gradient all-reduce: the straggler perfloop must name.
"""
import argparse
import os
import time
from pathlib import Path

import torch
import torch.distributed as dist
import yaml
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Shard(Dataset):
    def __init__(self, num_samples, delay_s, seed):
        generator = torch.Generator().manual_seed(seed)
        self.x = torch.randn(num_samples, 16, generator=generator)
        self.y = torch.randint(0, 4, (num_samples,), generator=generator)
        self.delay_s = delay_s

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        time.sleep(self.delay_s)
        return self.x[index], self.y[index]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    cfg = yaml.safe_load(Path(parser.parse_args().config).read_text())
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    delay_ms = cfg["data"]["delay_ms"] * (cfg["data"]["slow_rank_factor"] if rank == 1 else 1)
    data = Shard(cfg["data"]["num_samples"], delay_ms / 1000.0, cfg["seed"])
    loader = DataLoader(data, batch_size=cfg["data"]["batch_size"], sampler=DistributedSampler(data, seed=cfg["seed"]),
                        num_workers=cfg["data"]["num_workers"])
    model = torch.nn.parallel.DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(cfg["epochs"]):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
