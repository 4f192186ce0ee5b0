import argparse

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from data import PercussionClips


class OnsetNet(nn.Module):
    def __init__(self, in_ch, n_classes):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv1d(in_ch, 48, 5, padding=2), nn.BatchNorm1d(48), nn.ReLU(),
            nn.Conv1d(48, 48, 5, padding=2), nn.BatchNorm1d(48), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(48, n_classes))

    def forward(self, x):
        return self.body(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/onsets.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    seed = cfg["seed"]
    torch.manual_seed(seed)
    np.random.seed(seed)
    torch.set_num_threads(1)

    ds = PercussionClips(cfg, seed)
    tc = cfg["train"]
    g = torch.Generator().manual_seed(seed)
    loader = DataLoader(ds, batch_size=tc["batch_size"], shuffle=True, generator=g,
                        num_workers=tc["num_workers"], drop_last=True)
    model = OnsetNet(cfg["features"]["n_bands"] + 1, cfg["data"]["n_classes"])
    opt = torch.optim.AdamW(model.parameters(), lr=tc["lr"], weight_decay=tc["weight_decay"])
    crit = nn.CrossEntropyLoss()
    meter = evalkit.Meter()

    history = []
    for epoch in range(tc["epochs"]):
        correct = total = 0
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["feats"])
            loss = crit(logits, batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == batch["label"]).sum())
            total += len(batch["label"])
            if meter.done():
                break
        history.append(round(correct / max(total, 1), 4))
        print(f"epoch {epoch} train_acc {history[-1]}")
        if meter.done():
            break
    meter.report(extra={"train_acc": history})


if __name__ == "__main__":
    main()
