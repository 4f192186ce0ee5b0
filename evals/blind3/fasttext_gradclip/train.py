"""Surname -> origin classifier (fastText-style hashed char n-grams), SGD with global gradient-norm clipping."""
import argparse
import math
import tomllib
from dataclasses import dataclass, fields

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

import evalkit
from model import FastTextClassifier
from names import hash_ngrams, make_names


@dataclass
class Config:
    seed: int
    num_names: int
    num_origins: int
    ngram_buckets: int
    max_ngrams: int
    batch_size: int
    epochs: int
    lr: float
    momentum: float
    max_grad_norm: float
    embed_dim: int
    hidden: int
    log_every: int

    @classmethod
    def from_toml(cls, path):
        with open(path, "rb") as fh:
            raw = tomllib.load(fh)
        return cls(**{f.name: raw[f.name] for f in fields(cls)})


def grad_norms(named_params):
    """Per-parameter L2 norms of the gradients, plus the global norm (float64 accumulation)."""
    per_param = {}
    total_sq = 0.0
    for name, p in named_params:
        if p.grad is None:
            continue
        sq = 0.0
        for g in p.grad.flatten().tolist():
            sq += g * g
        per_param[name] = math.sqrt(sq)
        total_sq += sq
    return per_param, math.sqrt(total_sq)


def clip_gradients(params, total_norm, max_norm):
    coef = max_norm / (total_norm + 1e-6)
    if coef < 1.0:
        for p in params:
            if p.grad is not None:
                p.grad.mul_(coef)
    return coef < 1.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    cfg = Config.from_toml(ap.parse_args().config)
    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)

    names, origins = make_names(cfg.num_names, cfg.num_origins, cfg.seed)
    ds = TensorDataset(hash_ngrams(names, cfg.ngram_buckets, cfg.max_ngrams), torch.tensor(origins))
    loader = DataLoader(ds, batch_size=cfg.batch_size, shuffle=True, drop_last=True,
                        generator=torch.Generator().manual_seed(cfg.seed))
    model = FastTextClassifier(cfg.ngram_buckets, cfg.embed_dim, cfg.hidden, cfg.num_origins)
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=cfg.momentum)

    meter = evalkit.Meter()
    log = []
    clipped = 0
    step = 0
    for epoch in range(cfg.epochs):
        model.train()
        for x, y in loader:
            meter.batch((x, y))
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            per_param, total = grad_norms(model.named_parameters())
            clipped += clip_gradients(model.parameters(), total, cfg.max_grad_norm)
            opt.step()
            meter.step(loss)
            step += 1
            if step % cfg.log_every == 0:
                log.append({"step": step, "loss": round(loss.item(), 6), "grad_norm": round(total, 6),
                            "max_layer": max(per_param, key=per_param.get)})
                print(log[-1], flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"log": log, "clipped_steps": clipped})


if __name__ == "__main__":
    main()
