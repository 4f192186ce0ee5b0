"""Train a species classifier on ring-width profiles of synthetic increment cores."""
import argparse

import torch
import yaml
from torch.utils.data import DataLoader

from dendro.data import CoreScanDataset
from dendro.model import RingNet
from evalkit import Meter


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        torch.manual_seed(cfg["seed"])
        torch.set_num_threads(cfg["trainer"]["threads"])
        data = cfg["data"]
        self.ds = CoreScanDataset(data, cfg["seed"])
        g = torch.Generator().manual_seed(cfg["seed"])
        ld = cfg["loader"]
        self.loader = DataLoader(self.ds, batch_size=ld["batch_size"], shuffle=ld["shuffle"],
                                 num_workers=ld["num_workers"], drop_last=ld["drop_last"], generator=g)
        prof_len = data["scan_width"] // data["profile"]["pool"]
        self.model = RingNet(prof_len, data["profile"]["max_rings"], data["n_species"])
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=cfg["optim"]["lr"],
                                     weight_decay=cfg["optim"]["weight_decay"])
        self.loss_fn = torch.nn.CrossEntropyLoss()
        self.meter = Meter()

    def fit(self):
        step = 0
        correct = seen = 0
        for epoch in range(self.cfg["trainer"]["epochs"]):
            self.model.train()
            for batch in self.loader:
                self.meter.batch(batch)
                logits = self.model(batch["profile"], batch["widths"], batch["n_rings"])
                loss = self.loss_fn(logits, batch["label"])
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                self.opt.step()
                self.meter.step(loss)
                correct += int((logits.argmax(1) == batch["label"]).sum())
                seen += len(batch["label"])
                step += 1
                if step % self.cfg["trainer"]["log_every"] == 0:
                    print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {correct / seen:.3f}")
                if self.meter.done():
                    return step, correct / max(seen, 1)
        return step, correct / max(seen, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="configs/cores.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    trainer = Trainer(cfg)
    steps, acc = trainer.fit()
    trainer.meter.report({"train_acc": round(acc, 6), "steps": steps})


if __name__ == "__main__":
    main()
