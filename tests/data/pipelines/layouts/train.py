"""One pipeline written several ways that feed the model the same thing, or almost.

`--variant` picks how the dataset, the collate function and the loop split the work:

  list         __getitem__ returns a list of Python floats; default_collate makes one tensor per
               position; the loop stacks them (the slow original)
  tensor       __getitem__ returns the row as a tensor; the loop uses it directly (the fix)
  norm_item    normalisation in __getitem__
  norm_loop    normalisation moved into the loop, batched
  packed       one packed tensor [label, window] that the loop unpacks (collate changed)
  rescaled     the fix, but the values doubled (a wrong fix)
  relabelled   the fix, but the labels shifted (a wrong fix the model input cannot show)
  half         the fix, but cast to float16 and back in the loop (precision lost)
"""
import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

WIDTH = 12
MEAN, STD = 0.25, 1.5


class Rows(Dataset):
    def __init__(self, variant):
        rng = np.random.default_rng(11)
        self.rows = rng.standard_normal((96, WIDTH)).astype(np.float32)
        self.labels = rng.integers(0, 4, 96)
        self.variant = variant

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        row, label = self.rows[index], int(self.labels[index])
        if self.variant == "list":
            return {"window": [float(v) for v in row], "label": label}
        if self.variant == "norm_item":
            return {"window": (torch.from_numpy(row) - MEAN) / STD, "label": label}
        if self.variant == "relabelled":
            label = (label + 1) % 4
        window = torch.from_numpy(row)
        if self.variant == "rescaled":
            window = window * 2
        return {"window": window, "label": label}


def packed_collate(items):
    labels = torch.tensor([item["label"] for item in items], dtype=torch.float32)
    windows = torch.stack([item["window"] for item in items])
    return torch.cat([labels[:, None], windows], dim=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="list")
    variant = parser.parse_args().variant
    torch.manual_seed(0)
    torch.set_num_threads(1)
    collate = packed_collate if variant == "packed" else None
    loader = DataLoader(Rows(variant), batch_size=8, shuffle=True, collate_fn=collate)
    model = torch.nn.Sequential(torch.nn.Linear(WIDTH, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(1000):
        for batch in loader:
            if variant == "packed":
                x, y = batch[:, 1:], batch[:, 0].long()
            elif variant == "list":
                x, y = torch.stack(batch["window"], dim=1).float(), batch["label"]
            else:
                x, y = batch["window"], batch["label"]
            if variant == "norm_loop":
                x = (x - MEAN) / STD
            if variant == "half":
                x = x.half().float()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
