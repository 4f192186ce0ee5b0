"""Three-way sentiment on multilingual product reviews with a hashed-trigram bag-of-subwords model."""
import argparse
import json
import random
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit
import textprep
from reviews_synth import make_export


class ReviewDataset(Dataset):
    """Reviews from a JSON-lines export; every fetch prepares the text and applies word dropout."""

    def __init__(self, export, buckets, max_trigrams, word_dropout, seed):
        self.records = [json.loads(line) for line in export.splitlines() if line.strip()]
        self.records = [r for r in self.records if r.get("body")]
        self.buckets = buckets
        self.max_trigrams = max_trigrams
        self.word_dropout = word_dropout
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.records)

    @staticmethod
    def label_of(stars):
        return 0 if stars <= 2 else 1 if stars == 3 else 2

    def encode(self, record):
        tokens = textprep.tokenize(textprep.normalise(record["body"]))
        kept = [t for t in tokens
                if t in textprep.SCOPE_END or t in textprep.NEGATORS or self.rng.random() >= self.word_dropout]
        ids = []
        for tok in textprep.mark_negation(kept):
            if tok[0].isalnum() or tok[0] == "<":
                ids.extend(textprep.word_trigrams(tok, self.buckets))
        if len(ids) > self.max_trigrams:
            start = self.rng.randrange(len(ids) - self.max_trigrams + 1)
            ids = ids[start:start + self.max_trigrams]
        return ids

    def __getitems__(self, indices):
        batch = []
        for idx in indices:
            record = self.records[idx]
            batch.append({"input_ids": self.encode(record), "label": self.label_of(record["stars"]),
                          "lang": record["lang"]})
        return batch

    def __getitem__(self, idx):
        return self.__getitems__([idx])[0]


@dataclass
class PadCollator:
    """HF-style collator: pad to the longest example (rounded up to a multiple), build the mask."""
    pad_id: int = textprep.PAD_ID
    pad_to_multiple_of: int = 8

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        width = -(-longest // self.pad_to_multiple_of) * self.pad_to_multiple_of
        ids = torch.full((len(features), width), self.pad_id, dtype=torch.long)
        for i, f in enumerate(features):
            ids[i, :len(f["input_ids"])] = torch.tensor(f["input_ids"], dtype=torch.long)
        return {"input_ids": ids, "attention_mask": (ids != self.pad_id).long(),
                "labels": torch.tensor([f["label"] for f in features], dtype=torch.long)}


class SubwordBag(nn.Module):
    def __init__(self, buckets, dim, n_classes):
        super().__init__()
        self.emb = nn.Embedding(buckets + 1, dim, padding_idx=0)
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, n_classes))

    def forward(self, input_ids, attention_mask):
        mask = attention_mask.unsqueeze(-1).float()
        pooled = (self.emb(input_ids) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.head(pooled)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    data = cfg["data"]
    dataset = ReviewDataset(make_export(data["n_reviews"], cfg["seed"]), data["buckets"], data["max_trigrams"],
                            data["word_dropout"], cfg["seed"] + 1)
    loader = DataLoader(dataset, batch_size=cfg["train"]["batch_size"], shuffle=True, drop_last=True,
                        num_workers=cfg["train"]["num_workers"], collate_fn=PadCollator(),
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    model = SubwordBag(data["buckets"], cfg["model"]["dim"], 3)
    optim = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
    meter = evalkit.Meter()

    max_steps = cfg["train"]["max_steps"]
    step, passes, tokens_seen = 0, 0, 0
    while step < max_steps and not meter.done():
        passes += 1
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = nn.functional.cross_entropy(logits, batch["labels"])
            optim.zero_grad()
            loss.backward()
            optim.step()
            meter.step(loss)
            step += 1
            tokens_seen += int(batch["attention_mask"].sum())
            if step % 20 == 0:
                print(f"step {step} pass {passes} loss {loss.item():.4f}")
            if step >= max_steps or meter.done():
                break
    meter.report({"passes": passes, "trigrams_seen": tokens_seen})


if __name__ == "__main__":
    main()
