"""A pipeline whose repo has its own `tools`, `agent` and `evals` packages, next to perfloop's."""
import argparse
import sys

import agent
import evals
import tools
import torch
import yaml
from agent.policy import make_model
from evals.metrics import accuracy
from tools.energy import frame_energy
from torch.utils.data import DataLoader, Dataset

# Each must be this repo's own package, not one installed by a profiler.
assert (agent.OWNER, evals.OWNER, tools.OWNER) == ("pipeline",) * 3, "a package of this repo is shadowed"


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
    torch.set_num_threads(1)
    data = Frames(cfg["data"]["num_samples"], cfg["data"]["width"], cfg["seed"])
    loader = DataLoader(data, batch_size=cfg["data"]["batch_size"], shuffle=True,
                        num_workers=cfg["data"]["num_workers"])
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(cfg["epochs"]):
        for features, labels in loader:
            logits = model(features)
            loss = torch.nn.functional.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f} accuracy {accuracy(logits, labels):.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
