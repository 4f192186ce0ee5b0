from dataclasses import dataclass

import torch


@dataclass
class UrlDataCollator:
    """Stacks the per-URL feature dicts into a batch dict of tensors."""

    label_key: str = "labels"

    def __call__(self, features):
        return {
            "ngram_counts": torch.stack([f["ngram_counts"] for f in features]),
            "dense": torch.stack([f["dense"] for f in features]),
            "labels": torch.tensor([f[self.label_key] for f in features], dtype=torch.long),
        }
