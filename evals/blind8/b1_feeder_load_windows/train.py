"""Train a small temporal CNN for day-ahead feeder load.

    python train.py --config config.yaml
"""
import argparse

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, RandomSampler

import evalkit
from gridload.data import FeederWindows


class TCN(nn.Module):
    def __init__(self, c_in, ch, k):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(c_in, ch, k, padding=k // 2), nn.GELU(),
            nn.Conv1d(ch, ch, k, padding=k // 2, dilation=1, stride=2), nn.GELU(),
            nn.Conv1d(ch, ch, k, padding=2 * (k // 2), dilation=2, stride=2), nn.GELU(),
        )
        self.head = nn.Linear(2 * ch, 1)

    def forward(self, x):
        h = self.net(x)
        h = torch.cat([h.mean(-1), h[..., -1]], dim=1)
        return self.head(h).squeeze(-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    tcfg = cfg["train"]

    ds = FeederWindows(cfg, cfg["seed"])
    gen = torch.Generator().manual_seed(cfg["seed"])
    sampler = RandomSampler(ds, replacement=False, num_samples=tcfg["windows_per_epoch"], generator=gen)
    loader = DataLoader(ds, batch_size=tcfg["batch_size"], sampler=sampler,
                        num_workers=tcfg["num_workers"], drop_last=True)

    model = TCN(10, cfg["model"]["channels"], cfg["model"]["kernel"])
    opt = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"])
    loss_fn = nn.SmoothL1Loss(beta=0.5)

    meter = evalkit.Meter()
    epoch_losses = []
    for epoch in range(tcfg["epochs"]):
        running, n = 0.0, 0
        for x, y in loader:
            meter.batch((x, y))
            pred = model(x)
            loss = loss_fn(pred, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            running += loss.item()
            n += 1
            if meter.done():
                break
        epoch_losses.append(running / max(n, 1))
        print(f"epoch {epoch}: loss {epoch_losses[-1]:.4f}")
        if meter.done():
            break
    meter.report(extra={"epoch_loss": epoch_losses, "windows": len(ds)})


if __name__ == "__main__":
    main()
