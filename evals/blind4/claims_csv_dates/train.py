import argparse
import configparser
import os

import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from claims_data import ClaimsCSV
from make_claims import write_claims


class FraudTrainer:
    def __init__(self, model, lr):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.loss_fn = nn.BCEWithLogitsLoss()
        self.meter = evalkit.Meter()

    def train_epoch(self, loader):
        self.model.train()
        total, count, tp, fp, fn = 0.0, 0, 0, 0, 0
        for x, y in loader:
            self.meter.batch((x, y))
            logit = self.model(x).squeeze(1)
            loss = self.loss_fn(logit, y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.meter.step(loss)
            total += loss.item() * len(y)
            count += len(y)
            pred = (logit > 0).float()
            tp += int((pred * y).sum())
            fp += int((pred * (1 - y)).sum())
            fn += int(((1 - pred) * y).sum())
            if self.meter.done():
                break
        f1 = 2 * tp / max(2 * tp + fp + fn, 1)
        return {"loss": round(total / max(count, 1), 6), "f1": round(f1, 6)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="claims.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    seed = cfg.getint("data", "seed")
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    path = cfg.get("data", "path")
    if not os.path.exists(path):
        write_claims(path, cfg.getint("data", "rows"), seed)
    ds = ClaimsCSV(path)
    bs = cfg.getint("optim", "batch_size")
    loader = DataLoader(ds, batch_size=bs, shuffle=True, drop_last=True,
                        num_workers=cfg.getint("optim", "workers"),
                        generator=torch.Generator().manual_seed(seed))
    n_in = len(ds[0][0])
    hidden = cfg.getint("model", "hidden")
    model = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                          nn.Linear(hidden, 1))
    trainer = FraudTrainer(model, cfg.getfloat("optim", "lr"))
    history = []
    for epoch in range(cfg.getint("optim", "epochs")):
        history.append(trainer.train_epoch(loader))
        print(epoch, history[-1])
        if trainer.meter.done():
            break
    trainer.meter.report(extra={"history": history})


if __name__ == "__main__":
    main()
