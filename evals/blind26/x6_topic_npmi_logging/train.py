"""ProdLDA on a synthetic corpus with NPMI coherence tracked during training."""
import argparse

import torch
import yaml
from torch.utils.data import DataLoader, TensorDataset

from evalkit import Meter
from topics.coherence import CoherenceMonitor
from topics.corpus import generate_corpus
from topics.model import ProdLDA


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="prodlda.yaml")
    with open(ap.parse_args().config) as fh:
        cfg = yaml.safe_load(fh)
    torch.set_num_threads(cfg["torch_threads"])
    torch.manual_seed(cfg["seed"])
    bow, docs = generate_corpus(seed=cfg["seed"], **cfg["corpus"])
    loader = DataLoader(TensorDataset(torch.from_numpy(bow)), batch_size=cfg["optim"]["batch_size"],
                        shuffle=True, drop_last=True, num_workers=0,
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    model = ProdLDA(cfg["corpus"]["vocab_size"], **cfg["model"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], betas=(0.99, 0.999))
    monitor = CoherenceMonitor(docs, cfg["monitor"]["top_n"], cfg["monitor"]["every_n_steps"])
    meter = Meter()
    step = 0
    for epoch in range(cfg["optim"]["epochs"]):
        model.train()
        for (x,) in loader:
            meter.batch(x)
            loss = model(x)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            coh = monitor(step, model)
            meter.step(loss)
            if meter.done():
                break
        print(f"epoch {epoch} loss {loss.item():.2f} npmi {coh:.4f}")
        if meter.done():
            break
    meter.report({"npmi_history": monitor.history, "best_npmi": monitor.best[1], "best_step": monitor.best[0]})


if __name__ == "__main__":
    main()
