"""NIR calibration: regress the concentration of component A, with an EMA copy of the weights
evaluated on every training batch for the progress log."""
import argparse
import copy
import json

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from ema import WeightEMA
from evalkit import Meter
from spectra import SpectraDataset, make_spectra


def build_mlp(n_in, hidden):
    layers, prev = [], n_in
    for h in hidden:
        layers += [nn.Linear(prev, h), nn.SiLU()]
        prev = h
    layers.append(nn.Linear(prev, 1))
    return nn.Sequential(*layers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="nir.json")
    with open(ap.parse_args().config) as f:
        cfg = json.load(f)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    rng = np.random.default_rng(cfg["seed"])

    dc = cfg["data"]
    x, y = make_spectra(dc["train_spectra"] + dc["val_spectra"], dc["wavelengths"], dc["noise"], rng)
    train_set = SpectraDataset(x[:dc["train_spectra"]], y[:dc["train_spectra"]])
    val_set = SpectraDataset(x[dc["train_spectra"]:], y[dc["train_spectra"]:])
    g = torch.Generator()
    g.manual_seed(cfg["seed"])
    oc = cfg["optim"]
    loader = DataLoader(train_set, batch_size=oc["batch_size"], shuffle=True, drop_last=True, generator=g)

    model = build_mlp(dc["wavelengths"], cfg["model"]["hidden"])
    ema_model = copy.deepcopy(model).eval()
    ema = WeightEMA(model, cfg["ema"]["decay"])
    optimizer = torch.optim.Adam(model.parameters(), lr=oc["lr"])
    criterion = nn.MSELoss()
    meter = Meter()

    log = {"epoch_loss": [], "epoch_ema_loss": []}
    for epoch in range(oc["epochs"]):
        model.train()
        losses, ema_losses = [], []
        for batch in loader:
            meter.batch(batch)
            pred = model(batch["spectrum"]).squeeze(-1)
            loss = criterion(pred, batch["target"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            ema.update(model)
            meter.step(loss)
            ema.copy_to(ema_model)
            with torch.no_grad():
                ema_losses.append(criterion(ema_model(batch["spectrum"]).squeeze(-1), batch["target"]).item())
            losses.append(loss.item())
            if meter.done():
                break
        log["epoch_loss"].append(sum(losses) / len(losses))
        log["epoch_ema_loss"].append(sum(ema_losses) / len(ema_losses))
        print(f"epoch {epoch}: train {log['epoch_loss'][-1]:.5f}  ema {log['epoch_ema_loss'][-1]:.5f}")
        if meter.done():
            break
    ema.copy_to(ema_model)
    with torch.no_grad():
        val_pred = ema_model(val_set.x).squeeze(-1)
        log["val_rmse_ema"] = float(torch.sqrt(((val_pred - val_set.y) ** 2).mean()))
    meter.report(extra=log)


if __name__ == "__main__":
    main()
