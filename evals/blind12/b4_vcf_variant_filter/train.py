"""Train a variant filter on a joint-called cohort VCF (site features + per-sample genotype encoder)."""
import argparse
import configparser
import random
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit
from features import site_features
from vcf_io import parse_header, parse_record, simulate_vcf


@dataclass
class VariantBatch:
    site: torch.Tensor        # [B, 15] float32
    genotypes: torch.Tensor   # [B, S] int64, 0/1/2 alt dosage, 3 = missing
    gq: torch.Tensor          # [B, S] float32
    label: torch.Tensor       # [B] float32, 1 = PASS

    def as_dict(self):
        return {"site": self.site, "genotypes": self.genotypes, "gq": self.gq, "label": self.label}


class VCFDataset(Dataset):
    """Keeps the VCF lines; records are parsed when a batch of them is requested (__getitems__)."""

    def __init__(self, header, lines, subset_size, seed):
        self.meta, self.samples = parse_header(header)
        self.lines = lines
        self.subset_size = subset_size
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, idx):
        return self.__getitems__([idx])[0]

    def __getitems__(self, indices):
        out = []
        for idx in indices:
            rec = parse_record(self.lines[idx], self.meta)
            subset = np.sort(self.rng.choice(len(self.samples), size=self.subset_size, replace=False))
            feats, genotypes, gq = site_features(rec, subset.tolist())
            out.append({"site": feats, "genotypes": genotypes, "gq": gq,
                        "label": 1.0 if rec["filter"] == "PASS" else 0.0})
        return out


class VariantCollator:
    def __call__(self, items):
        return VariantBatch(
            site=torch.tensor([it["site"] for it in items], dtype=torch.float32),
            genotypes=torch.tensor([it["genotypes"] for it in items], dtype=torch.int64),
            gq=torch.tensor([it["gq"] for it in items], dtype=torch.float32) / 99.0,
            label=torch.tensor([it["label"] for it in items], dtype=torch.float32),
        )


class VariantFilterModule(nn.Module):
    """Lightning-style module (without Lightning): training_step / configure_optimizers."""

    def __init__(self, hidden, lr):
        super().__init__()
        self.lr = lr
        self.gt_embed = nn.Embedding(4, 8)
        self.sample_mlp = nn.Linear(9, hidden)
        self.site_mlp = nn.Sequential(nn.Linear(15 + hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, batch):
        per_sample = torch.cat([self.gt_embed(batch.genotypes), batch.gq.unsqueeze(-1)], dim=-1)
        pooled = torch.relu(self.sample_mlp(per_sample)).mean(dim=1)
        return self.site_mlp(torch.cat([batch.site, pooled], dim=-1)).squeeze(-1)

    def training_step(self, batch):
        logits = self(batch)
        loss = F.binary_cross_entropy_with_logits(logits, batch.label)
        acc = ((logits > 0).float() == batch.label).float().mean()
        return loss, {"acc": float(acc)}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


def fit(module, loader, max_epochs, meter):
    opt = module.configure_optimizers()
    accs = []
    for _epoch in range(max_epochs):
        for batch in loader:
            meter.batch(batch.as_dict())
            loss, logs = module.training_step(batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            accs.append(logs["acc"])
            meter.step(loss)
            if meter.done():
                return accs
    return accs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="vqsr.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    seed = cfg.getint("run", "seed")
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    header, lines = simulate_vcf(np.random.default_rng(seed), cfg.getint("cohort", "num_variants"),
                                 cfg.getint("cohort", "num_samples"), cfg.get("cohort", "contig"))
    dataset = VCFDataset(header, lines, cfg.getint("augment", "subset_size"), seed=seed + 5)
    loader = DataLoader(dataset, batch_size=cfg.getint("loader", "batch_size"),
                        shuffle=cfg.getboolean("loader", "shuffle"),
                        num_workers=cfg.getint("loader", "num_workers"), collate_fn=VariantCollator(),
                        generator=torch.Generator().manual_seed(seed))
    module = VariantFilterModule(cfg.getint("model", "hidden"), cfg.getfloat("model", "lr"))
    meter = evalkit.Meter()
    accs = fit(module, loader, cfg.getint("run", "max_epochs"), meter)
    meter.report({"mean_train_acc": round(sum(accs) / len(accs), 6)})


if __name__ == "__main__":
    main()
