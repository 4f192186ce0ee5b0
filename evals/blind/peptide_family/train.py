import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml

import evalkit
from collate import pad_collate
from dataset import PeptideSet, sample_family_sequences


class MeanPoolEncoder(nn.Module):
    """Masked mean of residue embeddings, plus a position-weighted mean (N- vs C-terminal)."""

    def __init__(self, vocab, embed, hidden, n_out):
        super().__init__()
        self.tok = nn.Embedding(vocab, embed, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(2 * embed, hidden), nn.Tanh(), nn.Linear(hidden, n_out))

    def forward(self, batch):
        h = self.tok(batch["tokens"])
        n = batch["lengths"].unsqueeze(-1).float()
        m = batch["mask"]
        rel = batch["positions"].float() / n
        mean = torch.bmm(m.unsqueeze(1), h).squeeze(1) / n
        tail = torch.bmm((m * rel).unsqueeze(1), h).squeeze(1) / n
        return self.mlp(torch.cat([mean, tail], dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/default.yaml")
    args = parser.parse_args()
    cfg = yaml.safe_load(open(args.config))

    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    seqs, fams = sample_family_sequences(cfg["data"], cfg["seed"])
    train_ds = PeptideSet(seqs, fams)
    loader = torch.utils.data.DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True,
                                         collate_fn=pad_collate, num_workers=cfg["num_workers"],
                                         generator=torch.Generator().manual_seed(cfg["seed"]))
    model = MeanPoolEncoder(cfg["data"]["alphabet"], cfg["model"]["embed"], cfg["model"]["hidden"],
                            cfg["data"]["n_families"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

    meter = evalkit.Meter()
    n_right = 0
    for epoch in range(cfg["max_epochs"]):
        for it, batch in enumerate(loader):
            meter.batch(batch)
            out = model(batch)
            loss = nn.functional.cross_entropy(out, batch["family"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            n_right += int((out.argmax(1) == batch["family"]).sum())
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
        print(f"epoch {epoch}: {it + 1} batches, last loss {loss.item():.3f}")
    meter.report(extra={"n_right": n_right})


if __name__ == "__main__":
    main()
