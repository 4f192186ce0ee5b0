"""Session-based next-item recommendation with a cloze objective (BERT4Rec-like, tiny).

    python train.py --settings settings.py
"""
import argparse
import heapq
import random
import runpy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit
from collator import IGNORE_INDEX, DataCollatorForSessionCloze


def synthesize_sessions(n_sessions, n_items, min_events, max_events, seed):
    """Click-stream sessions as an event log export: parallel lists of item ids, unix seconds, types."""
    rng = np.random.default_rng(seed)
    popularity = 1.0 / np.arange(1, n_items + 1) ** 1.05
    popularity /= popularity.sum()
    # items live in 60 categories; a session mostly browses two or three of them
    category = rng.integers(0, 60, n_items)
    by_cat = [np.flatnonzero(category == c) + 1 for c in range(60)]
    sessions = []
    start = 1_764_547_200  # 2025-12-01
    for _ in range(n_sessions):
        n = int(min(max_events, max(min_events, rng.lognormal(4.2, 0.6))))
        cats = rng.choice(60, size=3, replace=False)
        repeat, source, kind = rng.random(n), rng.random(n), rng.random(n)
        cat_pick, rank = rng.integers(0, 3, n), rng.geometric(0.08, n) - 1
        popular = rng.choice(n_items, size=n, p=popularity) + 1
        long_gap = rng.random(n) < 0.1
        gaps = np.where(long_gap, rng.exponential(3 * 3600.0, n), rng.exponential(45.0, n)).astype(np.int64) + 1
        items, prev = [], None
        for k in range(n):
            if prev is not None and repeat[k] < 0.25:
                item = prev  # reload / back-button: the same item again
            elif source[k] < 0.7:
                pool = by_cat[int(cats[cat_pick[k]])]
                item = int(pool[min(int(rank[k]), len(pool) - 1)])
            else:
                item = int(popular[k])
            items.append(item)
            prev = item
        t0 = start + int(rng.integers(0, 30 * 86400))
        ts = (t0 + np.concatenate([[0], np.cumsum(gaps[:-1])])).tolist()
        types = np.where(kind < 0.85, 0, np.where(kind < 0.97, 1, 2)).tolist()
        sessions.append({"session_id": len(sessions), "items": items, "ts": ts, "types": types})
    return sessions


class SessionDataset(Dataset):
    def __init__(self, sessions):
        self.sessions = sessions

    def __len__(self):
        return len(self.sessions)

    def __getitem__(self, idx):
        return self.sessions[idx]


class BucketBatchSampler(Sampler):
    """Batches of similar-length sessions: shuffle, cut into pools of `bucket` batches, sort each pool
    by length (longest first, ties by index), split into batches and shuffle the batch order."""

    def __init__(self, lengths, batch_size, bucket, generator):
        self.lengths, self.batch_size, self.bucket, self.generator = lengths, batch_size, bucket, generator

    def __iter__(self):
        order = torch.randperm(len(self.lengths), generator=self.generator).tolist()
        pool_size = self.batch_size * self.bucket
        batches = []
        for start in range(0, len(order), pool_size):
            pool = order[start:start + pool_size]
            ranked = heapq.nsmallest(len(pool), pool, key=lambda i: (-self.lengths[i], i))
            batches += [ranked[k:k + self.batch_size] for k in range(0, len(ranked), self.batch_size)
                        if len(ranked[k:k + self.batch_size]) == self.batch_size]
        for b in torch.randperm(len(batches), generator=self.generator).tolist():
            yield batches[b]

    def __len__(self):
        full = 0
        for start in range(0, len(self.lengths), self.batch_size * self.bucket):
            full += min(self.batch_size * self.bucket, len(self.lengths) - start) // self.batch_size
        return full


class TinyClozeRecommender(nn.Module):
    """Summed item / gap / type / position embeddings, one residual MLP, and a sampled softmax
    over the true item and `n_negatives` catalogue items shared by the batch."""

    SIDE_FEATURES = ("gap_bucket_ids", "dwell_bucket_ids", "hour_ids", "repeat_ids", "event_type_ids")

    def __init__(self, n_items, dim, max_len, n_gap_buckets, n_negatives, generator):
        super().__init__()
        self.n_items, self.n_negatives, self.generator = n_items, n_negatives, generator
        self.items = nn.Embedding(n_items + 2, dim, padding_idx=0)
        # one table for all categorical side features, each feature at its own offset (DLRM-style)
        sizes = [n_gap_buckets, n_gap_buckets, 25, 5, 4]
        self.register_buffer("offsets", torch.tensor([0] + sizes[:-1]).cumsum(0), persistent=False)
        self.side = nn.Embedding(sum(sizes), dim)
        self.pos = nn.Embedding(max_len, dim)
        self.ff = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.norm = nn.LayerNorm(dim)
        nn.init.normal_(self.items.weight, std=0.1)

    def forward(self, batch, sel):
        """Cloze context: the inputs left and right of each target, plus the target position's own features."""
        ids = F.pad(batch["input_ids"], (1, 1), value=0)  # pad so that neighbours of the ends are PAD
        rows, cols = sel.nonzero(as_tuple=True)
        context = self.items(ids[rows, cols]) + self.items(ids[rows, cols + 2])
        side = torch.stack([batch[name][rows, cols] for name in self.SIDE_FEATURES], dim=1) + self.offsets
        h = context + self.pos(cols) + self.side(side).sum(1)
        return self.norm(h + self.ff(h))

    def loss(self, batch):
        sel = batch["labels"] != IGNORE_INDEX
        h = self(batch, sel)
        target = batch["labels"][sel]
        negatives = torch.randint(1, self.n_items + 1, (self.n_negatives,), generator=self.generator)
        pos_logit = (h * self.items(target)).sum(-1, keepdim=True)
        neg_logit = h @ self.items(negatives).T
        neg_logit = neg_logit.masked_fill(negatives.unsqueeze(0) == target.unsqueeze(1), float("-inf"))
        logits = torch.cat([pos_logit, neg_logit], dim=1)
        return F.cross_entropy(logits, torch.zeros(len(target), dtype=torch.long))


class Trainer:
    """A pared-down HF-style trainer: epochs over a DataLoader, logging every `logging_steps`."""

    def __init__(self, model, train_dataloader, optimizer, meter, num_train_epochs, logging_steps):
        self.model, self.train_dataloader, self.optimizer = model, train_dataloader, optimizer
        self.meter, self.num_train_epochs, self.logging_steps = meter, num_train_epochs, logging_steps
        self.global_step = 0
        self.log_history = []

    def train(self):
        self.model.train()
        for epoch in range(self.num_train_epochs):
            running = 0.0
            for batch in self.train_dataloader:
                self.meter.batch(batch)
                loss = self.model.loss(batch)
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                self.optimizer.step()
                self.meter.step(loss)
                self.global_step += 1
                running += loss.item()
                if self.global_step % self.logging_steps == 0:
                    self.log_history.append({"step": self.global_step, "loss": round(running / self.logging_steps, 6)})
                    print(self.log_history[-1], flush=True)
                    running = 0.0
                if self.meter.done():
                    return
        return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    args = ap.parse_args()
    s = {k: v for k, v in runpy.run_path(args.settings).items() if k.isupper()}

    torch.set_num_threads(1)
    random.seed(s["SEED"])
    np.random.seed(s["SEED"])
    torch.manual_seed(s["SEED"])

    sessions = synthesize_sessions(s["N_SESSIONS"], s["N_ITEMS"], s["MIN_EVENTS"], s["MAX_EVENTS"], s["SEED"])
    ds = SessionDataset(sessions)
    sampler = BucketBatchSampler([len(x["items"]) for x in sessions], s["BATCH_SIZE"], s["BUCKET_SIZE"],
                                 torch.Generator().manual_seed(s["SEED"] + 1))
    collator = DataCollatorForSessionCloze(n_items=s["N_ITEMS"], max_len=s["MAX_LEN"], mask_prob=s["MASK_PROB"],
                                           gap_boundaries=s["GAP_BOUNDARIES_S"], seed=s["SEED"] + 2)
    loader = DataLoader(ds, batch_sampler=sampler, collate_fn=collator, num_workers=s["NUM_WORKERS"])
    model = TinyClozeRecommender(s["N_ITEMS"], s["EMBED_DIM"], s["MAX_LEN"], len(s["GAP_BOUNDARIES_S"]) + 3,
                                 s["N_NEGATIVES"], torch.Generator().manual_seed(s["SEED"] + 3))
    opt = torch.optim.AdamW(model.parameters(), lr=s["LR"])
    meter = evalkit.Meter()
    trainer = Trainer(model, loader, opt, meter, s["NUM_TRAIN_EPOCHS"], s["LOGGING_STEPS"])
    trainer.train()
    meter.report(extra={"log_history": trainer.log_history, "global_step": trainer.global_step})


if __name__ == "__main__":
    main()
