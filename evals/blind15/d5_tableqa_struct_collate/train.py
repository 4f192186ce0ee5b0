"""Column selection for table QA: which column holds the answer?

    python train.py --settings settings.py
"""
import argparse
import itertools
import random
import runpy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit
from collator import SPECIALS, TableQACollator
from tables import make_corpus


class TableQADataset(Dataset):
    def __init__(self, examples):
        self.examples = examples

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, idx):
        return self.examples[idx]


class TableQAModule(nn.Module):
    """One masked self-attention block over token + row + column embeddings; per-token column logits
    are pooled per column id."""

    def __init__(self, vocab, max_rows, max_cols, hidden):
        super().__init__()
        self.tok = nn.Embedding(vocab, hidden)
        self.row = nn.Embedding(max_rows + 2, hidden)
        self.col = nn.Embedding(max_cols + 1, hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.ff = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU())
        self.score = nn.Linear(hidden, 1)
        self.max_cols = max_cols

    def forward(self, batch):
        h = self.tok(batch["input_ids"]) + self.row(batch["row_ids"]) + self.col(batch["column_ids"])
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        att = (q @ k.transpose(1, 2)) / q.shape[-1] ** 0.5
        att = att.masked_fill(~batch["structure_mask"], float("-inf")).softmax(-1)
        h = h + self.ff(att @ v)
        token_logits = self.score(h).squeeze(-1)
        cols = F.one_hot(batch["column_ids"], self.max_cols + 1).float()
        cols = cols * batch["attention_mask"].unsqueeze(-1)
        col_logits = (cols * token_logits.unsqueeze(-1)).sum(1) / cols.sum(1).clamp_min(1.0)
        return col_logits.masked_fill(cols.sum(1) == 0, -1e4)

    def training_step(self, batch):
        return F.cross_entropy(self(batch), batch["labels"])

    def configure_optimizers(self, lr):
        return torch.optim.AdamW(self.parameters(), lr=lr, weight_decay=0.01)


def fit(module, loader, s, meter):
    opt = module.configure_optimizers(s["LEARNING_RATE"])
    step = 0
    for epoch in itertools.count():
        for batch in loader:
            meter.batch(batch)
            loss = module.training_step(batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            if step >= s["MAX_STEPS"] or meter.done():
                return step, epoch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--settings", default="settings.py")
    s = runpy.run_path(parser.parse_args().settings)
    random.seed(s["SEED"])
    np.random.seed(s["SEED"])
    torch.manual_seed(s["SEED"])
    torch.set_num_threads(1)

    data = TableQADataset(make_corpus(s["SEED"], s["NUM_TABLES"], s["MAX_ROWS"], s["MAX_COLS"]))
    collate = TableQACollator(s["MAX_SEQ_LEN"], s["MAX_CELL_TOKENS"], s["HASH_BUCKETS"], s["SHUFFLE_ROWS"],
                              generator=torch.Generator().manual_seed(s["SEED"] + 1))
    loader = DataLoader(data, batch_size=s["BATCH_SIZE"], shuffle=True, num_workers=s["NUM_WORKERS"],
                        collate_fn=collate, generator=torch.Generator().manual_seed(s["SEED"] + 2))
    module = TableQAModule(len(SPECIALS) + s["HASH_BUCKETS"], s["MAX_ROWS"], s["MAX_COLS"], s["HIDDEN"])
    meter = evalkit.Meter()
    steps, epochs = fit(module, loader, s, meter)
    print(f"done: {steps} steps, final loss {meter.losses[-1]:.4f}", flush=True)
    meter.report({"steps": steps})


if __name__ == "__main__":
    main()
