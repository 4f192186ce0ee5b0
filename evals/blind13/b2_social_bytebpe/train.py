"""Topic classification of social-media posts with a byte-level BPE tokenizer.

    python train.py config.json
"""
import json
import random
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset

import evalkit
from bpe import ByteBPETokenizer
from normalize import normalize_post
from posts import make_post


class PostStream(IterableDataset):
    """Streams an export of raw posts (one JSON object per line), reshuffled each epoch."""

    def __init__(self, lines, seed, shuffle_buffer=512):
        self.lines = lines
        self.seed = seed
        self.shuffle_buffer = shuffle_buffer
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        rng = random.Random(self.seed * 1000 + self.epoch)
        buffer = []
        for line in self.lines:
            buffer.append(line)
            if len(buffer) >= self.shuffle_buffer:
                yield json.loads(buffer.pop(rng.randrange(len(buffer))))
        rng.shuffle(buffer)
        while buffer:
            yield json.loads(buffer.pop())


class DataCollatorForPostClassification:
    """Normalise + tokenize a list of raw posts, random-crop long ones, pad to the longest."""

    def __init__(self, tokenizer, max_length, generator):
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.generator = generator

    def __call__(self, features):
        encoded = []
        for f in features:
            ids = self.tokenizer.encode(normalize_post(f["text"]))
            if len(ids) > self.max_length:
                start = int(torch.randint(0, len(ids) - self.max_length + 1, (1,),
                                          generator=self.generator))
                ids = ids[start:start + self.max_length]
            encoded.append(ids)
        width = max(len(ids) for ids in encoded)
        input_ids = torch.full((len(encoded), width), self.tokenizer.pad_id, dtype=torch.long)
        attention_mask = torch.zeros((len(encoded), width), dtype=torch.long)
        for row, ids in enumerate(encoded):
            input_ids[row, :len(ids)] = torch.tensor(ids, dtype=torch.long)
            attention_mask[row, :len(ids)] = 1
        return {"input_ids": input_ids, "attention_mask": attention_mask,
                "labels": torch.tensor([f["label"] for f in features], dtype=torch.long)}


class BagClassifier(nn.Module):
    def __init__(self, vocab_size, dim, n_classes, pad_id):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, dim, padding_idx=pad_id)
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, n_classes)

    def forward(self, input_ids, attention_mask):
        h = self.emb(input_ids)
        m = attention_mask.unsqueeze(-1).float()
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.out(torch.tanh(self.proj(pooled)))


def main():
    with open(sys.argv[1]) as fh:
        cfg = json.load(fh)
    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    fit_rng = random.Random(cfg["seed"] - 1)
    fit_texts = [make_post(fit_rng, cfg["topics"])["text"] for _ in range(cfg["tokenizer"]["fit_posts"])]
    tokenizer = ByteBPETokenizer.train(fit_texts, cfg["tokenizer"]["num_merges"], normalize_post)
    print(f"vocab size {len(tokenizer)}", flush=True)

    export_rng = random.Random(cfg["seed"])
    lines = [json.dumps(make_post(export_rng, cfg["topics"]), ensure_ascii=False)
             for _ in range(cfg["data"]["posts_per_epoch"])]
    stream = PostStream(lines, cfg["seed"])
    collator = DataCollatorForPostClassification(tokenizer, cfg["data"]["max_length"],
                                                 torch.Generator().manual_seed(cfg["seed"]))
    loader = DataLoader(stream, batch_size=cfg["loader"]["batch_size"],
                        num_workers=cfg["loader"]["num_workers"], collate_fn=collator)
    model = BagClassifier(len(tokenizer), cfg["model"]["dim"], len(cfg["topics"]), tokenizer.pad_id)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    meter = evalkit.Meter()
    step = 0
    tokens_seen = 0
    for epoch in range(cfg["epochs"]):
        stream.set_epoch(epoch)
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = F.cross_entropy(logits, batch["labels"])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            tokens_seen += int(batch["attention_mask"].sum())
            step += 1
            if step % cfg["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"tokens_seen": tokens_seen, "vocab": len(tokenizer)})


if __name__ == "__main__":
    main()
