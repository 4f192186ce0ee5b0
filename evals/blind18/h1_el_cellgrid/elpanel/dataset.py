import numpy as np
import torch
from torch.utils.data import Dataset

from .synth import augment, render_panel


class ELPanelDataset(Dataset):
    """Map-style dataset of EL panel images; each draw is a fresh camera shot of the panel."""

    def __init__(self, num_panels, rows, cols, cell_px, gap_px, max_shift, seed, transform=None):
        self.rows, self.cols, self.cell_px, self.gap_px = rows, cols, cell_px, gap_px
        self.max_shift = max_shift
        self.transform = transform
        self.seed = seed
        self.rng = np.random.default_rng(seed + 1)
        self.panels = []
        for i in range(num_panels):
            self.panels.append(render_panel(np.random.default_rng([seed, i]), rows, cols, cell_px, gap_px))

    def __len__(self):
        return len(self.panels)

    def __getitem__(self, idx):
        img, label = self.panels[idx]
        shot = augment(self.rng, img, self.max_shift)
        sample = {"image": shot, "label": label, "index": idx}
        return self.transform(sample) if self.transform is not None else sample


def collate_panels(samples):
    return {
        "cells": torch.stack([s["cells"] for s in samples]),
        "grid_ok": torch.stack([s["grid_ok"] for s in samples]),
        "label": torch.stack([s["label"] for s in samples]),
    }
