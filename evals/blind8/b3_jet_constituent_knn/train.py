import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from jetgraph.config import load_config
from jetgraph.dataset import JetGraphDataset
from jetgraph.generate import CLASSES, make_jets
from jetgraph.model import NeighbourhoodTagger


def parse():
    p = argparse.ArgumentParser(description="toy ParticleNet tagger")
    p.add_argument("--cfg", required=True)
    return p.parse_args()


def main():
    cfg = load_config(parse().cfg)
    torch.manual_seed(cfg.run.seed)
    torch.set_num_threads(1)
    jets = make_jets(cfg.data, cfg.run.seed)
    dataset = JetGraphDataset(jets, cfg.data, cfg.run.seed)
    loader = DataLoader(dataset, batch_size=cfg.loader.batch_size, shuffle=True, drop_last=True,
                        num_workers=cfg.loader.num_workers,
                        generator=torch.Generator().manual_seed(cfg.run.seed))
    model = NeighbourhoodTagger(6, cfg.model.width, len(CLASSES))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.model.lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.model.lr, total_steps=cfg.run.max_steps)

    meter = evalkit.Meter()
    step, log = 0, []
    it = iter(loader)
    while step < cfg.run.max_steps:
        try:
            feats, nbr, edge_dr, mask, label = next(it)
        except StopIteration:
            it = iter(loader)
            continue
        meter.batch((feats, nbr, edge_dr, mask, label))
        logits = model(feats, nbr, edge_dr, mask)
        loss = F.cross_entropy(logits, label)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        meter.step(loss)
        step += 1
        if step % cfg.run.log_every == 0:
            acc = (logits.argmax(1) == label).float().mean().item()
            log.append([step, round(loss.item(), 5), round(acc, 4)])
            print(f"step {step} loss {loss.item():.4f} acc {acc:.3f}")
        if meter.done():
            break
    meter.report(extra={"log": log})


if __name__ == "__main__":
    main()
