"""Classify lab-notebook procedures by reaction type from their BPE-tokenised text."""
import argparse
import json
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit
from bpe import BPETokenizer
from notebook import CLASSES, ProcedureNormalizer, make_notebook


class NotebookDataset(Dataset):
    """Map-style dataset with a batched ``__getitems__`` (the DataLoader calls it per batch).

    Each draw drops procedure lines at random (never the header), then normalises and
    tokenises what is left.
    """

    def __init__(self, entries, normalizer, tokenizer, line_dropout, max_len):
        self.entries = entries
        self.normalizer = normalizer
        self.tokenizer = tokenizer
        self.line_dropout = line_dropout
        self.max_len = max_len

    def __len__(self):
        return len(self.entries)

    def encode(self, text):
        lines = text.split("\n")
        kept = [lines[0]] + [ln for ln in lines[1:] if random.random() >= self.line_dropout]
        ids = [self.tokenizer.cls_id]
        for line in kept:
            ids.extend(self.tokenizer.encode_words(self.normalizer(line)))
            ids.append(self.tokenizer.sep_id)
        return ids[:self.max_len]

    def __getitem__(self, idx):
        text, label = self.entries[idx]
        return {"input_ids": self.encode(text), "label": label}

    def __getitems__(self, indices):
        return [self[i] for i in indices]


class PadCollator:
    def __init__(self, pad_id):
        self.pad_id = pad_id

    def __call__(self, features):
        width = max(len(f["input_ids"]) for f in features)
        ids = torch.full((len(features), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(features), width), dtype=torch.bool)
        for row, f in enumerate(features):
            n = len(f["input_ids"])
            ids[row, :n] = torch.tensor(f["input_ids"], dtype=torch.long)
            mask[row, :n] = True
        labels = torch.tensor([f["label"] for f in features], dtype=torch.long)
        return ids, mask, labels


class ProcedureClassifier(nn.Module):
    def __init__(self, vocab_size, dim, kernel, n_classes):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, dim, kernel, padding=kernel // 2)
        self.out = nn.Linear(2 * dim, n_classes)

    def forward(self, ids, mask):
        h = self.embed(ids)
        h = F.gelu(self.conv(h.transpose(1, 2))).transpose(1, 2)
        m = mask.unsqueeze(-1).float()
        mean = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        mx = h.masked_fill(~mask.unsqueeze(-1), -1e4).max(1).values
        return self.out(torch.cat([mean, mx], dim=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    dc, tc = cfg["data"], cfg["train"]
    entries = make_notebook(dc["n_entries"], seed)
    normalizer = ProcedureNormalizer()
    sample = [normalizer(line) for text, _ in entries[:dc["tokenizer_sample"]] for line in text.split("\n")]
    tokenizer = BPETokenizer.train(sample, cfg["tokenizer"]["num_merges"])
    print(f"{len(entries)} entries, vocab {len(tokenizer)}")

    dataset = NotebookDataset(entries, normalizer, tokenizer, dc["line_dropout"], dc["max_len"])
    loader = DataLoader(dataset, batch_size=tc["batch_size"], shuffle=True,
                        num_workers=tc["num_workers"], collate_fn=PadCollator(tokenizer.pad_id),
                        generator=torch.Generator().manual_seed(seed))

    mc = cfg["model"]
    model = ProcedureClassifier(len(tokenizer), mc["dim"], mc["kernel"], len(CLASSES))
    opt = torch.optim.Adam(model.parameters(), lr=tc["lr"])
    meter = evalkit.Meter()

    step, epoch, hits, tokens = 0, 0, 0, 0
    it = iter(loader)
    while step < tc["max_steps"] and not meter.done():
        try:
            batch = next(it)
        except StopIteration:
            epoch += 1
            it = iter(loader)
            continue
        meter.batch(batch)
        ids, mask, labels = batch
        logits = model(ids, mask)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        meter.step(loss)
        step += 1
        hits += int((logits.argmax(-1) == labels).sum())
        tokens += int(mask.sum())
        if step % tc["log_every"] == 0:
            print(f"step {step} epoch {epoch} loss {loss.item():.4f}")
    meter.report({"train_acc": hits / max(step * tc["batch_size"], 1), "tokens": tokens,
                  "vocab": len(tokenizer)})


if __name__ == "__main__":
    main()
