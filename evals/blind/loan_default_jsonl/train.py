import argparse
import random
import tomllib

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from data import LoanJsonLines
from records import generate_lines


def mlp(n_in, hidden):
    layers, d = [], n_in
    for h in hidden:
        layers += [nn.Linear(d, h), nn.ReLU()]
        d = h
    layers.append(nn.Linear(d, 1))
    return nn.Sequential(*layers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    opts = ap.parse_args()
    with open(opts.config, "rb") as f:
        conf = tomllib.load(f)
    seed = conf["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    lines = generate_lines(conf["data"]["rows"], seed)
    train_set = LoanJsonLines(lines)
    loader = DataLoader(train_set, batch_size=conf["data"]["batch_size"],
                        shuffle=conf["data"]["shuffle"], num_workers=conf["data"]["num_workers"],
                        generator=torch.Generator().manual_seed(seed))
    model = mlp(train_set.n_features, conf["model"]["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=conf["optim"]["lr"],
                           weight_decay=conf["optim"]["weight_decay"])
    bce = nn.BCEWithLogitsLoss()

    meter = evalkit.Meter()
    tp = fp = fn = 0
    for epoch in range(conf["optim"]["epochs"]):
        for step, (x, y) in enumerate(loader):
            meter.batch((x, y))
            logit = model(x).squeeze(1)
            loss = bce(logit, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                pred = logit > 0
                tp += int((pred & (y > 0.5)).sum())
                fp += int((pred & (y < 0.5)).sum())
                fn += int((~pred & (y > 0.5)).sum())
            meter.step(loss)
            if meter.done():
                break
        else:
            print(f"epoch {epoch} done, last loss {loss.item():.4f}")
            continue
        break
    meter.report(extra={"tp": tp, "fp": fp, "fn": fn})


if __name__ == "__main__":
    main()
