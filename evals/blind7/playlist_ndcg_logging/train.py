"""Playlist continuation: a two-tower model scores every track for a playlist's seed tracks."""
import argparse
import dataclasses
import json
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from metrics import ranking_metrics


@dataclass
class DataArguments:
    n_tracks: int = 2000
    n_moods: int = 40
    n_playlists: int = 3000
    n_seeds: int = 16
    min_len: int = 20
    max_len: int = 50


@dataclass
class ModelArguments:
    dim: int = 64
    hidden: int = 128


@dataclass
class TrainingArguments:
    output_dir: str = "runs"
    seed: int = 42
    per_device_train_batch_size: int = 64
    num_train_epochs: int = 3
    learning_rate: float = 2e-3
    weight_decay: float = 0.0
    logging_steps: int = 10
    ndcg_k: int = 10
    recall_k: int = 50


def parse_json_file(path, *kinds):
    """Split one flat JSON object over several dataclasses (HfArgumentParser style)."""
    with open(path) as fh:
        raw = json.load(fh)
    out = []
    for kind in kinds:
        names = {f.name for f in dataclasses.fields(kind)}
        out.append(kind(**{k: v for k, v in raw.items() if k in names}))
    unused = set(raw) - {f.name for kind in kinds for f in dataclasses.fields(kind)}
    if unused:
        raise ValueError(f"unknown keys {sorted(unused)}")
    return out


def make_playlists(args: DataArguments, seed):
    rng = np.random.default_rng(seed)
    per_mood = args.n_tracks // args.n_moods
    playlists = []
    for _ in range(args.n_playlists):
        moods = rng.choice(args.n_moods, size=2, replace=False)
        length = int(rng.integers(args.min_len, args.max_len + 1))
        share = rng.uniform(0.6, 0.9)
        n_main = int(length * share)
        pool_a = moods[0] * per_mood + rng.choice(per_mood, size=min(n_main, per_mood), replace=False)
        pool_b = moods[1] * per_mood + rng.choice(per_mood, size=length - len(pool_a), replace=False)
        tracks = np.concatenate([pool_a, pool_b]) + 1  # ids from 1; 0 pads
        playlists.append(rng.permutation(tracks))
    return playlists


class ContinuationDataset(Dataset):
    """Hold out one random track of the playlist; up to n_seeds other tracks are the query."""

    def __init__(self, playlists, n_seeds, seed):
        self.playlists = playlists
        self.n_seeds = n_seeds
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.playlists)

    def __getitem__(self, i):
        tracks = self.playlists[i]
        order = self.rng.permutation(len(tracks))
        seeds = np.zeros(self.n_seeds, dtype=np.int64)
        chosen = tracks[order[1:1 + self.n_seeds]]
        seeds[:len(chosen)] = chosen
        return {"seeds": torch.from_numpy(seeds), "target": int(tracks[order[0]]) - 1}


class TwoTower(nn.Module):
    def __init__(self, n_tracks, dim, hidden):
        super().__init__()
        self.track = nn.Embedding(n_tracks + 1, dim, padding_idx=0)
        self.query = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        self.bias = nn.Parameter(torch.zeros(n_tracks))

    def forward(self, seeds):
        mask = (seeds > 0).unsqueeze(-1).float()
        pooled = (self.track(seeds) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        q = self.query(pooled)
        return q @ self.track.weight[1:].t() + self.bias


class RankingCallback:
    """Logs NDCG@k / Recall@k of the training batch at the end of every step."""

    def __init__(self, args: TrainingArguments):
        self.args = args
        self.history = []

    def on_step_end(self, step, logits, batch):
        ndcg, recall = ranking_metrics(logits, batch["target"], batch["seeds"],
                                       self.args.ndcg_k, self.args.recall_k)
        self.history.append({"step": step, "ndcg": ndcg, "recall": recall})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--args", default="args.json")
    data_args, model_args, train_args = parse_json_file(ap.parse_args().args, DataArguments, ModelArguments,
                                                        TrainingArguments)
    torch.set_num_threads(1)
    torch.manual_seed(train_args.seed)

    playlists = make_playlists(data_args, train_args.seed)
    dataset = ContinuationDataset(playlists, data_args.n_seeds, train_args.seed + 1)
    loader = DataLoader(dataset, batch_size=train_args.per_device_train_batch_size, shuffle=True,
                        generator=torch.Generator().manual_seed(train_args.seed))
    model = TwoTower(data_args.n_tracks, model_args.dim, model_args.hidden)
    optimizer = torch.optim.AdamW(model.parameters(), lr=train_args.learning_rate,
                                  weight_decay=train_args.weight_decay)
    callback = RankingCallback(train_args)
    meter = Meter()

    global_step = 0
    for epoch in range(train_args.num_train_epochs):
        model.train()
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["seeds"])
            loss = F.cross_entropy(logits, batch["target"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            global_step += 1
            callback.on_step_end(global_step, logits, batch)
            if global_step % train_args.logging_steps == 0:
                h = callback.history[-1]
                print(f"{{'epoch': {epoch}, 'step': {global_step}, 'loss': {loss.item():.4f}, "
                      f"'ndcg@{train_args.ndcg_k}': {h['ndcg']:.4f}, 'recall@{train_args.recall_k}': {h['recall']:.3f}}}")
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break

    last = callback.history[-10:]
    meter.report(extra={
        "steps": global_step,
        "ndcg_last10": sum(h["ndcg"] for h in last) / len(last),
        "recall_last10": sum(h["recall"] for h in last) / len(last),
        "ndcg_curve": [round(h["ndcg"], 6) for h in callback.history[::10]],
    })


if __name__ == "__main__":
    main()
