import argparse
import json
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from make_shards import PATTERNS, write_shards
from wafer_data import WaferShards


def build_model(n_classes):
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(32, n_classes))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="wafer.json")
    hp = json.load(open(parser.parse_args().config))
    torch.manual_seed(hp["seed"])
    torch.set_num_threads(1)
    if not os.path.isdir(hp["shard_dir"]) or not os.listdir(hp["shard_dir"]):
        write_shards(hp["shard_dir"], hp["num_shards"], hp["samples_per_shard"], hp["map_size"], hp["seed"])
    ds = WaferShards(hp["shard_dir"], hp["crop"], hp["seed"] + 1)
    loader = DataLoader(ds, batch_size=hp["batch_size"], shuffle=True, drop_last=True,
                        num_workers=hp["num_workers"], generator=torch.Generator().manual_seed(hp["seed"]))
    model = build_model(len(PATTERNS))
    optimizer = torch.optim.Adam(model.parameters(), lr=hp["lr"])
    loss_fn = nn.CrossEntropyLoss()
    meter = evalkit.Meter()
    summary = []
    for epoch in range(hp["epochs"]):
        total_loss, correct, seen = 0.0, 0, 0
        for maps, labels in loader:
            meter.batch((maps, labels))
            logits = model(maps)
            loss = loss_fn(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            total_loss += loss.item() * len(labels)
            correct += (logits.argmax(1) == labels).sum().item()
            seen += len(labels)
            if meter.done():
                break
        summary.append({"epoch": epoch, "loss": total_loss / seen, "acc": correct / seen})
        print(summary[-1])
        if meter.done():
            break
    meter.report(extra={"summary": summary})


if __name__ == "__main__":
    main()
