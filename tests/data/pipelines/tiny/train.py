"""A tiny data-bound training pipeline for perfloop's tests: slow Python transform, YAML config."""
import argparse
import sys

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


class Frames(Dataset):
    def __init__(self, num_samples, width, seed):
        generator = torch.Generator().manual_seed(seed)
        self.frames = torch.randn(num_samples, 32, generator=generator)
        self.labels = torch.randint(0, 4, (num_samples,), generator=generator)
        self.width = width

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, index):
        features = torch.tensor(frame_energy(self.frames[index].tolist(), self.width))
        return features, self.labels[index]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as handle:
        cfg = yaml.safe_load(handle)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)  # keep the tiny model's compute steady on a busy 2-core machine
    data = Frames(cfg["data"]["num_samples"], cfg["data"]["width"], cfg["seed"])
    loader = DataLoader(data, batch_size=cfg["data"]["batch_size"], shuffle=True,
                        num_workers=cfg["data"]["num_workers"])
    model = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
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
