"""Learn frame transparency from aperture photometry of the detected stars."""
import argparse
import time

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from photometry import (AperturePhotometry, CalibrateFrame, CatalogToTensor, Compose,
                        DetectStars, FrameSimulator, StarFieldDataset)


class CatalogueNet(nn.Module):
    """Deep-sets style: per-star MLP, masked mean pool, regression head."""

    def __init__(self, in_dim=5, hidden=64):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.rho = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, catalogue):
        valid = catalogue[..., 4:5]
        h = self.phi(catalogue) * valid
        pooled = h.sum(1) / valid.sum(1).clamp_min(1.0)
        return torch.sigmoid(self.rho(pooled))


def build_transform(cfg):
    phot = cfg["photometry"]
    return Compose([
        CalibrateFrame(bias=100.0),
        DetectStars(threshold_sigma=phot["threshold_sigma"], border=phot["annulus_outer"]),
        AperturePhotometry(phot["aperture_radius"], phot["annulus_inner"], phot["annulus_outer"]),
        CatalogToTensor(max_stars=phot["max_stars"], frame_size=cfg["data"]["frame_size"]),
    ])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    data = cfg["data"]
    simulator = FrameSimulator(data["frame_size"], data["stars_per_frame"], data["sky_level"], data["read_noise"])
    dataset = StarFieldDataset(data["num_frames"], simulator, build_transform(cfg), seed=cfg["seed"])
    generator = torch.Generator().manual_seed(cfg["seed"])
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"], shuffle=cfg["loader"]["shuffle"],
                        num_workers=cfg["loader"]["num_workers"], generator=generator, drop_last=True)

    model = CatalogueNet()
    tcfg = cfg["train"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"])
    loss_fn = nn.MSELoss()
    meter = Meter()
    stars_seen = []
    step = 0
    t0 = time.time()
    for epoch in range(tcfg["epochs"]):
        for batch in loader:
            meter.batch(batch)
            pred = model(batch["catalogue"])
            loss = loss_fn(pred, batch["target"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            stars_seen.append(int(batch["n_stars"].sum()))
            step += 1
            if step % tcfg["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.5f} ({time.time() - t0:.1f}s)", flush=True)
            if meter.done() or step >= tcfg["max_steps"]:
                break
        if meter.done() or step >= tcfg["max_steps"]:
            break
    meter.report(extra={"stars_detected_per_step": stars_seen})


if __name__ == "__main__":
    main()
