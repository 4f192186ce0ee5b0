"""Fine-tune a bag-of-pieces rating classifier on product reviews."""
import argparse
import json
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from reviewlm import DataCollatorWithPadding, ReviewDataset, UnigramTokenizer, make_reviews


class PooledClassifier(nn.Module):
    def __init__(self, vocab_size, dim, num_labels):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, num_labels)

    def forward(self, input_ids, attention_mask):
        h = self.embed(input_ids)
        m = attention_mask.unsqueeze(-1).float()
        pooled = (h * m).sum(1) / m.sum(1).clamp_min(1.0)
        return self.out(torch.tanh(self.proj(pooled)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.json")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)

    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    c = cfg["corpus"]
    reviews = make_reviews(np.random.default_rng(cfg["seed"]), c["num_reviews"], c["num_word_types"],
                           c["min_words"], c["max_words"])
    tk = cfg["tokenizer"]
    tokenizer = UnigramTokenizer.train([r["text"] for r in reviews], tk["vocab_size"],
                                       tk["max_piece_len"], tk["unk_score"])
    dataset = ReviewDataset(reviews, tokenizer, cfg["data"]["max_length"], cfg["data"]["crop_prob"],
                            seed=cfg["seed"] + 1)
    tc = cfg["train"]
    loader = DataLoader(dataset, batch_size=tc["batch_size"], shuffle=True, num_workers=tc["num_workers"],
                        collate_fn=DataCollatorWithPadding(tokenizer.pad_id),
                        generator=torch.Generator().manual_seed(cfg["seed"]))

    model = PooledClassifier(len(tokenizer), cfg["model"]["dim"], cfg["model"]["num_labels"])
    optimizer = torch.optim.Adam(model.parameters(), lr=tc["lr"])
    meter = evalkit.Meter()
    step, running, history = 0, 0.0, []
    data_iter = iter(loader)
    while step < tc["max_steps"] and not meter.done():
        try:
            batch = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            continue
        meter.batch(batch)
        logits = model(batch["input_ids"], batch["attention_mask"])
        loss = F.cross_entropy(logits, batch["labels"])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        step += 1
        running += loss.item()
        if step % tc["log_every"] == 0:
            history.append(round(running / tc["log_every"], 6))
            running = 0.0
        meter.step(loss)
    meter.report({"vocab_size": len(tokenizer), "loss_history": history})


if __name__ == "__main__":
    main()
