"""Radar reflectivity nowcasting from variable-length frame histories."""
import argparse
import importlib.util

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from evalkit import Meter
from nowcast.data import PadCollate, RadarSequences


def load_config(path):
    spec = importlib.util.spec_from_file_location("nowcast_config", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class MaskedTemporalNowcaster(nn.Module):
    """Per-frame patch encoder (4x4), recency-weighted masked pooling over time, conv decoder."""

    def __init__(self, hidden):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, hidden, 4, stride=4), nn.ReLU(),
                                 nn.Conv2d(hidden, hidden, 1), nn.ReLU())
        self.recency = nn.Parameter(torch.tensor(0.5))
        self.dec = nn.Sequential(nn.ConvTranspose2d(hidden + 1, hidden, 4, stride=4), nn.ReLU(),
                                 nn.Conv2d(hidden, 1, 3, padding=1))

    def forward(self, frames, mask):
        b, t, h, w = frames.shape
        z = self.enc(frames.reshape(b * t, 1, h, w)).reshape(b, t, -1, h // 4, w // 4)
        age = torch.arange(t - 1, -1, -1, dtype=frames.dtype)
        logits = (-F.softplus(self.recency) * age).expand(b, t).masked_fill(~mask, float("-inf"))
        wts = logits.softmax(dim=1)[:, :, None, None, None]
        pooled = (z * wts).sum(1)
        last = F.avg_pool2d(frames[:, -1:], 4)
        return frames[:, -1] + self.dec(torch.cat([pooled, last], 1)).squeeze(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="nowcast_config.py")
    cfg = load_config(ap.parse_args().config)
    torch.set_num_threads(cfg.TORCH_THREADS)
    torch.manual_seed(cfg.SEED)
    ds = RadarSequences(seed=cfg.SEED, **cfg.DATA)
    loader = DataLoader(ds, batch_size=cfg.OPTIM["batch_size"], shuffle=True, num_workers=0,
                        collate_fn=PadCollate(**cfg.DATA), generator=torch.Generator().manual_seed(cfg.SEED))
    model = MaskedTemporalNowcaster(**cfg.MODEL)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.OPTIM["lr"])
    meter = Meter()
    for epoch in range(cfg.OPTIM["epochs"]):
        ds.epoch = epoch
        for batch in loader:
            meter.batch(batch)
            pred = model(batch["frames"], batch["mask"])
            loss = F.mse_loss(pred, batch["target"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            if meter.done():
                break
        print(f"epoch {epoch} mse {loss.item():.4f}")
        if meter.done():
            break
    meter.report({"recency": round(float(F.softplus(model.recency)), 6)})


if __name__ == "__main__":
    main()
