import argparse
import random
import tomllib

import numpy as np
import torch
import torch.nn as nn

import evalkit
from data import RemoteEmbeddings
from store import BlobClient, populate


def main(path):
    with open(path, "rb") as f:
        cfg = tomllib.load(f)
    random.seed(cfg["seed"]); np.random.seed(cfg["seed"]); torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    s, l, t = cfg["store"], cfg["loader"], cfg["train"]
    objects, keys = populate(s["objects"], s["dim"], t["classes"], cfg["seed"])
    client = BlobClient(objects, s["latency_ms"] / 1000.0)
    dataset = RemoteEmbeddings(client, keys)
    loader = torch.utils.data.DataLoader(dataset, batch_size=l["batch_size"], shuffle=True,
                                         num_workers=l["num_workers"],
                                         generator=torch.Generator().manual_seed(cfg["seed"]))
    head = nn.Sequential(nn.Linear(s["dim"], 128), nn.ReLU(), nn.Linear(128, t["classes"]))
    opt = torch.optim.AdamW(head.parameters(), lr=t["lr"])

    meter = evalkit.Meter()
    agree = 0
    for epoch in range(t["epochs"]):
        for batch in loader:
            meter.batch(batch)
            logits = head(batch["embedding"])
            loss = nn.functional.cross_entropy(logits, batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            agree += int((logits.argmax(-1) == batch["label"]).sum())
            meter.step(loss)
            if meter.done():
                break
    meter.report(extra={"agree": agree})


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    main(ap.parse_args().config)
