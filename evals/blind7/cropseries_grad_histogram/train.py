"""Crop-type classification from per-pixel satellite time series, with gradient-health logging."""
import argparse
import tomllib

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from evalkit import Meter
from s2series import BANDS, CROPS, make_series


class CropNet(nn.Module):
    def __init__(self, n_bands, n_dates, conv_channels, hidden, n_classes):
        super().__init__()
        self.temporal = nn.Conv1d(n_bands, conv_channels, 3, padding=1)
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(conv_channels * n_dates, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden // 2), nn.ReLU(),
            nn.Linear(hidden // 2, n_classes),
        )

    def forward(self, x):
        return self.classifier(F.relu(self.temporal(x)))


class CropModule:
    """A LightningModule-shaped wrapper: training_step, configure_optimizers, hooks, log()."""

    def __init__(self, cfg, n_dates):
        self.cfg = cfg
        self.model = CropNet(len(BANDS), n_dates, cfg["model"]["conv_channels"], cfg["model"]["hidden"],
                             len(CROPS))
        self.logged = []
        self.global_step = 0

    def log_dict(self, values):
        self.logged.append({"step": self.global_step, **values})

    def configure_optimizers(self):
        return torch.optim.AdamW(self.model.parameters(), **self.cfg["optimizer"])

    def training_step(self, batch):
        x, y = batch
        logits = self.model(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(1) == y).float().mean().item()
        self.log_dict({"train/loss": loss.item(), "train/acc": acc})
        return loss

    def on_after_backward(self):
        # gradient health: median / p99 / max |g| over all parameters and the share of dead entries
        flat = []
        for name, p in self.model.named_parameters():
            if p.grad is not None:
                flat.extend(p.grad.flatten().tolist())
        mags = sorted(abs(g) for g in flat)
        n = len(mags)
        self.log_dict({
            "grad/p50": mags[n // 2],
            "grad/p99": mags[min(n - 1, int(0.99 * n))],
            "grad/max": mags[-1],
            "grad/dead_frac": sum(1 for m in mags if m < 1e-8) / n,
        })


class MiniTrainer:
    def __init__(self, max_epochs, log_every_n_steps):
        self.max_epochs = max_epochs
        self.log_every_n_steps = log_every_n_steps
        self.meter = Meter()

    def fit(self, module, loader):
        optimizer = module.configure_optimizers()
        module.model.train()
        for epoch in range(self.max_epochs):
            for batch in loader:
                self.meter.batch(batch)
                loss = module.training_step(batch)
                optimizer.zero_grad()
                loss.backward()
                module.on_after_backward()
                optimizer.step()
                module.global_step += 1
                if module.global_step % self.log_every_n_steps == 0:
                    grad = module.logged[-1]
                    print(f"epoch {epoch} step {module.global_step} loss {loss.item():.4f} "
                          f"|g| p50 {grad['grad/p50']:.2e} p99 {grad['grad/p99']:.2e} max {grad['grad/max']:.2e}")
                self.meter.step(loss)
                if self.meter.done():
                    return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="crop.toml")
    with open(ap.parse_args().config, "rb") as fh:
        cfg = tomllib.load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["data"]["seed"])
    series, labels = make_series(cfg["data"]["pixels"], cfg["data"]["dates"], cfg["data"]["cloud_prob"],
                                 cfg["data"]["seed"])
    x = torch.from_numpy(series)
    mean = x.mean(dim=(0, 2), keepdim=True)
    std = x.std(dim=(0, 2), keepdim=True)
    dataset = TensorDataset((x - mean) / std, torch.from_numpy(labels))
    loader = DataLoader(dataset, batch_size=cfg["trainer"]["batch_size"], shuffle=True,
                        generator=torch.Generator().manual_seed(cfg["data"]["seed"]))

    module = CropModule(cfg, cfg["data"]["dates"])
    trainer = MiniTrainer(cfg["trainer"]["max_epochs"], cfg["trainer"]["log_every_n_steps"])
    trainer.fit(module, loader)

    grads = [r for r in module.logged if "grad/p50" in r]
    losses = [r for r in module.logged if "train/loss" in r]
    trainer.meter.report(extra={
        "steps": module.global_step,
        "train_acc_last10": sum(r["train/acc"] for r in losses[-10:]) / len(losses[-10:]),
        "grad_p50": [r["grad/p50"] for r in grads[::8]],
        "grad_p99": [r["grad/p99"] for r in grads[::8]],
        "grad_max_last": grads[-1]["grad/max"],
        "grad_dead_frac_last": grads[-1]["grad/dead_frac"],
    })


if __name__ == "__main__":
    main()
