import argparse
import json

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from clicks.dataset import ClickTrainDataset
from clicks.net import ClickNet
from evalkit import Meter


def infinite(loader):
    while True:
        yield from loader


def main():
    parser = argparse.ArgumentParser(description="train a click-train species classifier")
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)

    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(cfg["train"]["num_threads"])
    ds = ClickTrainDataset(cfg["audio"], cfg["detector"], cfg["seed"])
    tc = cfg["train"]
    loader = DataLoader(ds, batch_size=tc["batch_size"], shuffle=True, num_workers=0,
                        generator=torch.Generator().manual_seed(cfg["seed"] + 1))
    det = cfg["detector"]
    env_len = (cfg["audio"]["clip_samples"] - 3 - det["envelope_len"] + 1) // det["pool"]
    model = ClickNet(env_len, det["ici_bins"] + det["zc_bins"])
    opt = torch.optim.Adam(model.parameters(), lr=tc["lr"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=tc["max_steps"])
    meter = Meter()

    model.train()
    for step, batch in enumerate(infinite(loader), start=1):
        meter.batch(batch)
        env, hist, scalars, labels = batch
        loss = F.cross_entropy(model(env, hist, scalars), labels)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), tc["grad_clip"])
        opt.step()
        sched.step()
        meter.step(loss)
        if step % tc["log_interval"] == 0:
            print(json.dumps({"step": step, "loss": round(loss.item(), 4), "lr": sched.get_last_lr()[0]}))
        if meter.done() or step >= tc["max_steps"]:
            break
    meter.report({"final_lr": sched.get_last_lr()[0]})


if __name__ == "__main__":
    main()
