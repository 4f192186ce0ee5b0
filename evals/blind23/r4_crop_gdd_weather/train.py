"""Yield regression from per-field daily weather (GDD, frost, rain windows around sowing)."""
import argparse
import importlib.util

import torch
from torch import nn
from torch.utils.data import DataLoader

from agro.agronomy import SeasonFeatures
from agro.archive import build_archive
from agro.dataset import FieldSeasonDataset
from evalkit import Meter


def load_settings(path):
    spec = importlib.util.spec_from_file_location("settings", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    s = load_settings(ap.parse_args().settings)
    torch.manual_seed(s.SEED)
    torch.set_num_threads(s.TORCH_THREADS)

    files, meta = build_archive(s)
    featurizer = SeasonFeatures(s)
    ds = FieldSeasonDataset(files, meta, featurizer, s)
    loader = DataLoader(ds, batch_size=s.BATCH_SIZE, shuffle=True, drop_last=True,
                        generator=torch.Generator().manual_seed(s.SEED))

    model = nn.Sequential(nn.Linear(featurizer.size + 1, s.HIDDEN), nn.SiLU(), nn.Linear(s.HIDDEN, s.HIDDEN),
                          nn.SiLU(), nn.Linear(s.HIDDEN, 1))
    opt = torch.optim.Adam(model.parameters(), lr=s.LR, weight_decay=s.WEIGHT_DECAY)
    meter = Meter()
    sq_err = 0.0
    n = 0
    for epoch in range(s.EPOCHS):
        ds.epoch = epoch
        for x, y in loader:
            meter.batch((x, y))
            pred = model(x).squeeze(-1)
            loss = nn.functional.mse_loss(pred, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            sq_err += loss.item() * len(y)
            n += len(y)
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"train_rmse": (sq_err / n) ** 0.5})


if __name__ == "__main__":
    main()
