"""Batches in containers other than dict/list/tuple, with an optional edit in the middle of a large tensor.

--container picks the batch type the collate function builds; --edit changes one value in the
middle of one row's 3000-wide feature vector, where torch's repr shows only "...".
"""
import argparse
import dataclasses
from collections import namedtuple
from collections.abc import Mapping

import torch
from torch.utils.data import DataLoader, Dataset

WIDTH = 3000


class Encoding(Mapping):
    """A read-only mapping of fields, like a tokenizer's BatchEncoding (which is a UserDict, not a dict)."""

    def __init__(self, **fields):
        self._fields = fields

    def __getitem__(self, key):
        return self._fields[key]

    def __iter__(self):
        return iter(self._fields)

    def __len__(self):
        return len(self._fields)


@dataclasses.dataclass
class Batch:
    features: torch.Tensor
    labels: torch.Tensor


Pair = namedtuple("Pair", ["features", "labels"])


class Bag:
    """Fields as plain attributes."""

    def __init__(self, features, labels):
        self.features = features
        self.labels = labels


class Opaque:
    """Holds its data where a structural walk cannot see it (a slot, no __dict__)."""

    __slots__ = ("payload",)

    def __init__(self, payload):
        self.payload = payload


class Rows(Dataset):
    def __init__(self, edit):
        generator = torch.Generator().manual_seed(0)
        self.features = torch.randn(64, WIDTH, generator=generator)
        if edit:
            self.features[3, WIDTH // 2] += 1.0
        self.labels = torch.arange(64)

    def __len__(self):
        return len(self.features)

    def __getitem__(self, index):
        return self.features[index], self.labels[index]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--container", choices=["mapping", "dataclass", "namedtuple", "bag", "opaque"], required=True)
    parser.add_argument("--edit", action="store_true")
    args = parser.parse_args()
    build = {"mapping": lambda f, l: Encoding(features=f, labels=l), "dataclass": Batch, "namedtuple": Pair,
             "bag": Bag, "opaque": lambda f, l: Opaque((f, l))}[args.container]

    def collate(items):
        return build(torch.stack([f for f, _ in items]), torch.stack([l for _, l in items]))

    loader = DataLoader(Rows(args.edit), batch_size=8, collate_fn=collate)
    model = torch.nn.Linear(WIDTH, 1)
    for epoch in range(1000):
        for batch in loader:
            features = batch.payload[0] if args.container == "opaque" else (
                batch["features"] if args.container == "mapping" else batch.features)
            model(features).sum().backward()


if __name__ == "__main__":
    main()
