"""Frozen-backbone features for a 100-class problem with a 20-superclass hierarchy (CIFAR-100 style)."""
import torch
from torch.utils.data import Dataset


def superclass_table(num_classes, num_superclasses, seed):
    """fine class -> coarse class: a fixed shuffle of classes into equal groups."""
    g = torch.Generator().manual_seed(seed + 1)
    perm = torch.randperm(num_classes, generator=g).tolist()
    per = num_classes // num_superclasses
    table = [0] * num_classes
    for rank, cls in enumerate(perm):
        table[cls] = rank // per
    return table


class FeatureBank(Dataset):
    """Features drawn around per-class means that are themselves clustered by superclass.

    Indexed with a whole list of indices at once (the sampler yields batches), like a tensor dataset.
    """

    def __init__(self, size, dim, num_classes, coarse_of, separation, seed):
        g = torch.Generator().manual_seed(seed)
        coarse_means = torch.randn(max(coarse_of) + 1, dim, generator=g)
        fine_means = coarse_means[torch.tensor(coarse_of)] + 0.6 * torch.randn(num_classes, dim, generator=g)
        self.labels = torch.randint(0, num_classes, (size,), generator=g)
        self.features = separation * fine_means[self.labels] + torch.randn(size, dim, generator=g)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, indices):
        indices = torch.as_tensor(indices)
        return {"features": self.features[indices], "label": self.labels[indices]}
