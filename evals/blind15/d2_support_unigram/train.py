"""Route customer-support emails to a queue from their cleaned, subword-tokenised body.

    python train.py config.json
"""
import json
import random
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit
from mailgen import CATEGORIES, make_email
from textclean import clean_email
from unigram import UnigramTokenizer


class SupportTickets(Dataset):
    def __init__(self, num_emails, tokenizer_kwargs, max_length, seed):
        gen = random.Random(seed)
        self.emails, self.labels = [], []
        for _ in range(num_emails):
            raw, label = make_email(gen)
            self.emails.append(raw)
            self.labels.append(label)
        corpus = [clean_email(raw) for raw in self.emails[: tokenizer_kwargs.pop("corpus_emails")]]
        self.tokenizer = UnigramTokenizer.train(corpus, **tokenizer_kwargs)
        self.max_length = max_length
        self.rng = np.random.default_rng(seed + 1)

    def __len__(self):
        return len(self.emails)

    def _encode(self, idx):
        ids = self.tokenizer.encode_words(clean_email(self.emails[idx]))
        room = self.max_length - 1
        if len(ids) > room:
            # random window over long threads so the model sees more than the greeting
            start = int(self.rng.integers(0, len(ids) - room + 1))
            ids = ids[start:start + room]
        return {"input_ids": [self.tokenizer.cls_id] + ids, "label": self.labels[idx]}

    def __getitems__(self, indices):
        return [self._encode(i) for i in indices]

    def __getitem__(self, idx):
        return self.__getitems__([idx])[0]


class DataCollatorWithTokenMasking:
    """Pad to the longest sequence (rounded up), build the attention mask, and randomly replace
    a fraction of real tokens with <mask> as input noise."""

    def __init__(self, pad_id, mask_id, mask_prob, pad_to_multiple_of=8, generator=None):
        self.pad_id, self.mask_id = pad_id, mask_id
        self.mask_prob = mask_prob
        self.multiple = pad_to_multiple_of
        self.generator = generator

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        width = -(-longest // self.multiple) * self.multiple
        input_ids = torch.full((len(features), width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((len(features), width), dtype=torch.long)
        for row, f in enumerate(features):
            n = len(f["input_ids"])
            input_ids[row, :n] = torch.tensor(f["input_ids"], dtype=torch.long)
            attention[row, :n] = 1
        noise = torch.rand(input_ids.shape, generator=self.generator)
        maskable = attention.bool()
        maskable[:, 0] = False
        input_ids = input_ids.masked_fill(maskable & (noise < self.mask_prob), self.mask_id)
        labels = torch.tensor([f["label"] for f in features], dtype=torch.long)
        return {"input_ids": input_ids, "attention_mask": attention, "labels": labels}


class BagClassifier(nn.Module):
    def __init__(self, vocab_size, dim, n_classes):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, n_classes)

    def forward(self, input_ids, attention_mask):
        h = self.emb(input_ids)
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp_min(1.0)
        return self.out(torch.tanh(self.proj(pooled)))


def main(argv):
    with open(argv[1] if len(argv) > 1 else "config.json") as fh:
        cfg = json.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    d = cfg["data"]
    dataset = SupportTickets(
        d["num_emails"],
        {"corpus_emails": d["vocab_corpus_emails"], "vocab_size": d["vocab_size"], "max_piece_len": d["max_piece_len"]},
        d["max_length"], seed)
    tok = dataset.tokenizer
    collator = DataCollatorWithTokenMasking(tok.pad_id, tok.mask_id, cfg["collator"]["mask_prob"],
                                            cfg["collator"]["pad_to_multiple_of"],
                                            generator=torch.Generator().manual_seed(seed + 2))
    dl = cfg["dataloader"]
    loader = DataLoader(dataset, batch_size=dl["batch_size"], shuffle=dl["shuffle"], num_workers=dl["num_workers"],
                        collate_fn=collator, drop_last=True, generator=torch.Generator().manual_seed(seed + 3))

    model = BagClassifier(len(tok), 48, len(CATEGORIES))
    max_steps = cfg["optim"]["max_steps"]
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / 20) * max(0.05, 1.0 - s / max_steps))
    meter = evalkit.Meter()

    step, passes, hits, seen = 0, 0, 0, 0
    while step < max_steps and not meter.done():
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = F.cross_entropy(logits, batch["labels"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            meter.step(loss)
            hits += int((logits.argmax(-1) == batch["labels"]).sum())
            seen += batch["labels"].numel()
            step += 1
            if step >= max_steps or meter.done():
                break
        passes += 1
    print(f"steps {step} passes {passes} acc {hits / max(seen, 1):.3f} vocab {len(tok)}", flush=True)
    meter.report({"train_accuracy": round(hits / max(seen, 1), 6), "vocab_size": len(tok), "passes": passes})


if __name__ == "__main__":
    main(sys.argv)
