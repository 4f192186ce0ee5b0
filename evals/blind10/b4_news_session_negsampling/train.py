"""Train a session-based news recommender with sampled negatives (positive at index 0)."""
import argparse
import random
import tomllib

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from newsrec import ClickStreamDataset, DwellAttentionRecommender, collate_news, synth_click_logs


def batches_forever(loader, dataset):
    epoch = 0
    while True:
        dataset.set_epoch(epoch)
        yield from loader
        epoch += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="newsrec.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)

    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    logs, items = synth_click_logs(cfg["data"]["users"], cfg["data"]["items"], cfg["seed"])
    ds = ClickStreamDataset(logs, items, cfg["data"]["history_len"], cfg["data"]["negatives"],
                            cfg["data"]["dwell_cap_s"], cfg["data"]["half_life_h"], cfg["seed"])
    loader = DataLoader(ds, batch_size=cfg["train"]["batch_size"], collate_fn=collate_news,
                        num_workers=cfg["loader"]["num_workers"], drop_last=True)
    model = DwellAttentionRecommender(len(items), cfg["model"]["dim"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
    meter = evalkit.Meter()
    hits = 0
    for step, batch in enumerate(batches_forever(loader, ds), start=1):
        meter.batch(batch.as_dict())
        scores = model(batch)
        loss = F.cross_entropy(scores, torch.zeros(scores.shape[0], dtype=torch.long))
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        hits += int((scores.argmax(1) == 0).sum())
        if step % cfg["train"]["log_every"] == 0:
            print(f"step {step} loss {loss.item():.4f} hit@1 {hits / (step * scores.shape[0]):.3f}")
        if step >= cfg["train"]["max_steps"] or meter.done():
            break
    meter.report(extra={"hits_at_1": hits})


if __name__ == "__main__":
    main()
