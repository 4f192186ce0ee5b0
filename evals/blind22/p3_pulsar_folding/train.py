"""Train a small pulsar-candidate classifier on folded time-phase diagrams."""
import argparse
import tomllib

import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from observation import CandidateStream


class CandidateNet(nn.Module):
    def __init__(self, n_bins):
        super().__init__()
        self.image = nn.Sequential(nn.Conv2d(1, 8, (3, 5), padding=(1, 2)), nn.ReLU(),
                                   nn.AdaptiveAvgPool2d((2, 8)), nn.Flatten())
        self.profile = nn.Sequential(nn.Conv1d(1, 8, 7, padding=3), nn.ReLU(), nn.AdaptiveMaxPool1d(8),
                                     nn.Flatten())
        self.head = nn.Linear(8 * 16 + 8 * 8 + 1, 1)

    def forward(self, batch):
        feats = [self.image(batch["subints"]), self.profile(batch["profile"].unsqueeze(1)),
                 torch.log1p(batch["snr"].clamp(min=0)).unsqueeze(1)]
        return self.head(torch.cat(feats, dim=1)).squeeze(1)


class DetectionLog:
    """Callback: counts candidates above the S/N cut and their hit rate."""

    def __init__(self, threshold):
        self.threshold = threshold
        self.detections = 0
        self.true_detections = 0
        self.snr_sum = 0.0

    def on_batch_end(self, batch, loss):
        above = batch["snr"] > self.threshold
        self.detections += int(above.sum())
        self.true_detections += int((above & (batch["label"] > 0.5)).sum())
        self.snr_sum += float(batch["snr"].double().sum())

    def state(self):
        return {"detections": self.detections, "true_detections": self.true_detections,
                "snr_sum": round(self.snr_sum, 9)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="survey.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    loader = DataLoader(CandidateStream(cfg), batch_size=cfg["loader"]["batch_size"],
                        num_workers=cfg["loader"]["num_workers"])
    model = CandidateNet(cfg["folding"]["n_bins"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    loss_fn = nn.BCEWithLogitsLoss()
    callbacks = [DetectionLog(cfg["optim"]["snr_detect"])]
    meter = evalkit.Meter()
    for batch in loader:
        meter.batch(batch)
        loss = loss_fn(model(batch), batch["label"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        for cb in callbacks:
            cb.on_batch_end(batch, loss)
        if meter.done():
            break
    meter.report(extra=callbacks[0].state())


if __name__ == "__main__":
    main()
