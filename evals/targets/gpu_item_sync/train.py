"""Train an embedding classifier on the GPU, reporting each epoch's mean loss and accuracy."""
import argparse
import json
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import evalkit


def make_embeddings(n, dim, n_classes, seed):
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(n_classes, dim, generator=g)
    labels = torch.randint(0, n_classes, (n,), generator=g)
    return centres[labels] + 4.0 * torch.randn(n, dim, generator=g), labels


def build_model(dim, hidden, depth, n_classes):
    layers, width = [], dim
    for _ in range(depth):
        layers += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    return nn.Sequential(*layers, nn.Linear(width, n_classes))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    d, m = cfg["data"], cfg["model"]
    x, y = make_embeddings(d["n_samples"], d["dim"], d["n_classes"], seed)
    loader = DataLoader(TensorDataset(x, y), batch_size=d["batch_size"], shuffle=True,
                        num_workers=d["num_workers"], persistent_workers=d["num_workers"] > 0,
                        pin_memory=device.type == "cuda", generator=torch.Generator().manual_seed(seed))

    model = build_model(d["dim"], m["hidden"], m["depth"], d["n_classes"]).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])

    meter = evalkit.Meter()
    history = []
    for epoch in range(cfg["train"]["epochs"]):
        running_loss = 0.0
        correct = 0
        seen = batches = 0
        for xb, yb in loader:
            meter.batch((xb, yb))
            xb = xb.to(device, non_blocking=True)
            yb = yb.to(device, non_blocking=True)
            logits = model(xb)
            loss = nn.functional.cross_entropy(logits, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            running_loss += loss.item()
            correct += (logits.argmax(1) == yb).sum().item()
            seen += len(yb)
            batches += 1
            meter.step(loss)
            if meter.done():
                break
        history.append([running_loss, correct])
        print(f"epoch {epoch} mean loss {running_loss / batches:.4f} train acc {correct / seen:.4f}")
        if meter.done():
            break
    meter.report(extra={"epoch_loss_sum_correct": history})


if __name__ == "__main__":
    main()
