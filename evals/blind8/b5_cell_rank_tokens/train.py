"""python train.py settings.py"""
import runpy
import sys
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from scrank.data import RankedCells
from scrank.synthetic import reference_medians, simulate_counts


class RankBag(nn.Module):
    """Gene embeddings pooled with learned rank-position weights (a cheap Geneformer stand-in)."""

    def __init__(self, n_tokens, max_tokens, dim, n_summary, n_classes):
        super().__init__()
        self.bag = nn.EmbeddingBag(n_tokens, dim, mode="sum", padding_idx=0)
        self.rank_logit = nn.Parameter(torch.zeros(max_tokens))
        self.summary = nn.Linear(n_summary, dim)
        self.out = nn.Sequential(nn.LayerNorm(2 * dim), nn.Linear(2 * dim, dim), nn.GELU(), nn.Linear(dim, n_classes))

    def forward(self, ids, summary):
        w = torch.softmax(self.rank_logit, 0) * (ids > 0)
        w = w / w.sum(1, keepdim=True)
        pooled = self.bag(ids, per_sample_weights=w)
        return self.out(torch.cat([pooled, self.summary(torch.log1p(summary))], dim=1))


def main(path):
    cfg = SimpleNamespace(**{k: v for k, v in runpy.run_path(path).items() if k.isupper()})
    torch.manual_seed(cfg.SEED)
    torch.set_num_threads(1)
    counts, labels = simulate_counts(cfg.N_CELLS, cfg.N_GENES, cfg.N_CELL_TYPES, cfg.SEED)
    medians = reference_medians(counts, cfg.UNMAPPED_FRACTION, cfg.TARGET_SUM, cfg.SEED)
    ds = RankedCells(counts, labels, medians, cfg.TARGET_SUM, cfg.MAX_TOKENS, cfg.GENE_KEEP, cfg.SEED)
    loader = DataLoader(ds, batch_size=cfg.BATCH_SIZE, shuffle=True, num_workers=cfg.NUM_WORKERS,
                        drop_last=True, generator=torch.Generator().manual_seed(cfg.SEED))
    model = RankBag(cfg.N_GENES + 2, cfg.MAX_TOKENS, cfg.EMBED_DIM, 5, cfg.N_CELL_TYPES)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.LR)

    meter = evalkit.Meter()
    per_epoch = []
    for epoch in range(cfg.EPOCHS):
        correct, seen = 0, 0
        for ids, summary, y in loader:
            meter.batch([ids, summary, y])
            logits = model(ids, summary)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(-1) == y).sum())
            seen += len(y)
            if meter.done():
                break
        per_epoch.append(round(correct / seen, 6))
        print(f"epoch {epoch}: acc {per_epoch[-1]:.4f}")
        if meter.done():
            break
    meter.report(extra={"epoch_acc": per_epoch})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "settings.py")
