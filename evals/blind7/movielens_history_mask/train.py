"""Next-item prediction (SASRec-lite) on a synthetic interaction log."""
import argparse
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from interactions import make_log


def get_config():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="seqrec.yaml")
    parser.add_argument("--override", nargs="*", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    for item in args.override:
        key, value = item.split("=", 1)
        cfg[key] = yaml.safe_load(value)
    return cfg


class NextItemDataset(Dataset):
    """One training example per user: a random cut point in the user's time-ordered history."""

    def __init__(self, log, users, max_len, min_history, seed):
        self.log = log
        self.users = users
        self.max_len = max_len
        self.min_history = min_history
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.users)

    def user_history(self, user):
        rows = self.log["user"] == user
        items = self.log["item"][rows]
        ts = self.log["ts"][rows]
        order = np.argsort(ts, kind="stable")
        return items[order], ts[order]

    def __getitem__(self, i):
        items, ts = self.user_history(self.users[i])
        p = int(self.rng.integers(self.min_history, len(items)))
        hist = items[max(0, p - self.max_len):p]
        seq = np.zeros(self.max_len, dtype=np.int64)
        seq[self.max_len - len(hist):] = hist
        gap = np.log1p((ts[p] - ts[p - 1]) / 3600.0)
        return {
            "history": torch.from_numpy(seq),
            "target": int(items[p]) - 1,
            "gap": torch.tensor(gap, dtype=torch.float32),
        }


class SASRecLite(nn.Module):
    def __init__(self, n_items, d_model, n_heads, max_len, dropout):
        super().__init__()
        self.item = nn.Embedding(n_items + 1, d_model, padding_idx=0)
        self.pos = nn.Embedding(max_len, d_model)
        self.block = nn.TransformerEncoderLayer(d_model, n_heads, 2 * d_model, dropout, batch_first=True)
        self.gap = nn.Linear(1, d_model)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, history, gap):
        h = self.item(history) + self.pos.weight.unsqueeze(0)
        h = self.block(h, src_key_padding_mask=history.eq(0))
        user = self.norm(h[:, -1] + self.gap(gap.unsqueeze(1)))
        return user @ self.item.weight[1:].t()


class Trainer:
    def __init__(self, cfg, model, loader):
        self.cfg = cfg
        self.model = model
        self.loader = loader
        self.opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
        self.meter = Meter()
        self.global_step = 0
        self.hit10 = []

    def training_step(self, batch):
        logits = self.model(batch["history"], batch["gap"])
        loss = F.cross_entropy(logits, batch["target"])
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        with torch.no_grad():
            top10 = logits.topk(10, dim=1).indices
            self.hit10.append(float((top10 == batch["target"].unsqueeze(1)).any(1).float().mean()))
        return loss

    def fit(self):
        self.model.train()
        for epoch in range(self.cfg["epochs"]):
            for batch in self.loader:
                self.meter.batch(batch)
                loss = self.training_step(batch)
                self.global_step += 1
                if self.global_step % self.cfg["log_every"] == 0:
                    recent = self.hit10[-self.cfg["log_every"]:]
                    print(f"epoch {epoch} step {self.global_step} loss {loss.item():.4f} "
                          f"hit@10 {sum(recent) / len(recent):.3f}")
                self.meter.step(loss)
                if self.meter.done():
                    return
        return

    def summary(self):
        tail = self.hit10[-20:]
        return {"steps": self.global_step, "hit10_last20": sum(tail) / len(tail),
                "ppl_last": math.exp(self.meter.losses[-1])}


def main():
    cfg = get_config()
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    log = make_log(cfg["n_users"], cfg["n_items"], cfg["n_genres"], cfg["mean_history"], cfg["seed"])
    counts = np.bincount(log["user"], minlength=cfg["n_users"])
    users = np.flatnonzero(counts > cfg["min_history"])
    print(f"{len(log['user'])} interactions, {len(users)} users")

    dataset = NextItemDataset(log, users, cfg["max_len"], cfg["min_history"], cfg["seed"] + 3)
    loader = DataLoader(dataset, batch_size=cfg["batch_size"], shuffle=True,
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    model = SASRecLite(cfg["n_items"], cfg["d_model"], cfg["n_heads"], cfg["max_len"], cfg["dropout"])
    trainer = Trainer(cfg, model, loader)
    trainer.fit()
    trainer.meter.report(extra=trainer.summary())


if __name__ == "__main__":
    main()
