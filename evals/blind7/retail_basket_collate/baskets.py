"""Synthetic grocery baskets: SKUs grouped into departments, customers with habits and segments."""
import random

import numpy as np
import torch


def make_catalogue(departments, per_department):
    return [f"SKU-{d:02d}{k:03d}" for d in range(departments) for k in range(per_department)]


def make_baskets(catalogue, departments, per_department, n_customers, n_baskets, seed):
    rng = np.random.default_rng(seed)
    pyrng = random.Random(seed)
    popularity = 1.0 / np.arange(1, per_department + 1) ** 1.1
    popularity /= popularity.sum()
    customers = []
    for c in range(n_customers):
        segment = c % 6
        habit = rng.dirichlet(np.full(departments, 0.3))
        staples = [catalogue[d * per_department + int(rng.choice(per_department, p=popularity))]
                   for d in rng.choice(departments, size=4, p=habit)]
        customers.append((segment, habit, staples))
    samples = []
    for _ in range(n_baskets):
        segment, habit, staples = customers[int(rng.integers(n_customers))]
        size = int(rng.integers(4, 28))
        depts = rng.choice(departments, size=size, p=habit)
        ranks = rng.choice(per_department, size=size, p=popularity)
        basket = [catalogue[d * per_department + r] for d, r in zip(depts.tolist(), ranks.tolist())]
        basket += [s for s in staples if pyrng.random() < 0.6]
        if segment in (2, 5):  # bulk buyers: extra units of what is already in the basket
            basket += [pyrng.choice(basket) for _ in range(pyrng.randint(0, 6))]
        pyrng.shuffle(basket)
        nxt = rng.choice(departments, size=int(rng.integers(3, 12)), p=habit)
        samples.append({"basket": basket, "next_departments": sorted(set(nxt.tolist())), "segment": segment})
    return samples


class BasketCollator:
    """Turns baskets of SKU strings into a quantity matrix over the catalogue, plus
    the multi-hot next-basket departments."""

    def __init__(self, catalogue, n_departments):
        self.catalogue = catalogue
        self.n_departments = n_departments

    def __call__(self, samples):
        qty = [[float(s["basket"].count(sku)) for sku in self.catalogue] for s in samples]
        target = [[1.0 if d in s["next_departments"] else 0.0 for d in range(self.n_departments)]
                  for s in samples]
        return {
            "qty": torch.tensor(qty, dtype=torch.float32),
            "segment": torch.tensor([s["segment"] for s in samples], dtype=torch.long),
            "size": torch.tensor([len(s["basket"]) for s in samples], dtype=torch.float32),
            "target": torch.tensor(target, dtype=torch.float32),
        }
