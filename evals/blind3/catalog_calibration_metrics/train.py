import argparse
import json

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import evalkit
from metrics import MetricTracker


def make_catalog(n_rows, n_features, n_classes, label_noise, seed):
    """Product-catalog-like table: class-conditional Gaussian features, some label noise."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 1.0, (n_classes, n_features))
    y = rng.integers(0, n_classes, n_rows)
    x = centers[y] + rng.normal(0, 1.6, (n_rows, n_features))
    flip = rng.random(n_rows) < label_noise
    y[flip] = rng.integers(0, n_classes, flip.sum())
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.long)


def mlp(n_in, hidden, n_out, dropout):
    layers, prev = [], n_in
    for h in hidden:
        layers += [nn.Linear(prev, h), nn.ReLU(), nn.Dropout(dropout)]
        prev = h
    layers.append(nn.Linear(prev, n_out))
    return nn.Sequential(*layers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    hp = json.load(open(parser.parse_args().config))
    torch.set_num_threads(1)
    torch.manual_seed(hp["seed"])

    x, y = make_catalog(hp["n_rows"], hp["n_features"], hp["n_classes"], hp["label_noise"], hp["seed"])
    loader = DataLoader(TensorDataset(x, y), batch_size=hp["batch_size"], shuffle=True, drop_last=True,
                        generator=torch.Generator().manual_seed(hp["seed"]))
    model = mlp(hp["n_features"], hp["hidden_units"], hp["n_classes"], hp["dropout"])
    optimizer = torch.optim.Adam(model.parameters(), lr=hp["learning_rate"])
    loss_fn = nn.CrossEntropyLoss()
    tracker = MetricTracker(hp["n_classes"], hp["topk"], hp["ece_bins"])
    meter = evalkit.Meter()
    logs = []
    step = 0
    for epoch in range(hp["max_epochs"]):
        tracker.reset()
        model.train()
        for features, labels in loader:
            meter.batch((features, labels))
            logits = model(features)
            loss = loss_fn(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            with torch.no_grad():
                tracker.update(logits.detach(), logits.detach().softmax(dim=-1), labels)
            step += 1
            m = tracker.compute()  # running metrics for the progress line
            if step % hp["log_every_n_steps"] == 0:
                logs.append({"step": step, "loss": round(loss.item(), 6), **{k: round(v, 8) for k, v in m.items()}})
                print(json.dumps(logs[-1]), flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"logs": logs, "final": tracker.compute()})


if __name__ == "__main__":
    main()
