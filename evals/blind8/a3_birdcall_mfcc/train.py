import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from birdcall.config import load_config
from birdcall.dataset import BirdcallDataset
from birdcall.model import CallNet


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="birdcall.toml")
    args = ap.parse_args()
    cfg = load_config(args.config)

    torch.manual_seed(cfg.experiment.seed)
    torch.set_num_threads(1)
    ds = BirdcallDataset(cfg, seed=cfg.experiment.seed)
    loader = DataLoader(ds, batch_size=cfg.optim.batch_size, shuffle=True, num_workers=0,
                        drop_last=True, generator=torch.Generator().manual_seed(cfg.experiment.seed))
    model = CallNet(cfg.features.n_mfcc, cfg.data.num_species)
    opt = torch.optim.SGD(model.parameters(), lr=cfg.optim.lr, momentum=cfg.optim.momentum,
                          weight_decay=cfg.optim.weight_decay, nesterov=True)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.optim.lr * 10,
                                                total_steps=cfg.experiment.epochs * len(loader))

    meter = evalkit.Meter()
    per_epoch = []
    for epoch in range(cfg.experiment.epochs):
        model.train()
        tot_loss, tot_correct, tot_n = 0.0, 0, 0
        for x, y in loader:
            meter.batch((x, y))
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot_loss += loss.item() * y.size(0)
            tot_correct += (logits.argmax(1) == y).sum().item()
            tot_n += y.size(0)
            meter.step(loss)
            if meter.done():
                break
        per_epoch.append({"epoch": epoch, "loss": tot_loss / tot_n, "acc": tot_correct / tot_n})
        print(per_epoch[-1], flush=True)
        if meter.done():
            break
    meter.report(extra={"per_epoch": per_epoch})


if __name__ == "__main__":
    main()
