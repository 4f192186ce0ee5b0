#!/usr/bin/env python
"""Masked sub-token pretraining of a tiny code encoder (CodeBERT-style objective, toy scale)."""
import argparse
import json
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from codetok import SPECIALS, CodeLexer, default_vocab
from data import CodeSnippetDataset, DataCollatorForSubtokenMLM
from snippets import make_corpus


class TinyCodeEncoder(nn.Module):
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, dim, kernel_size=3, padding=1)
        self.norm = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab_size)

    def forward(self, input_ids, attention_mask, labels):
        x = self.embed(input_ids)
        h = self.conv(x.transpose(1, 2)).transpose(1, 2)
        h = self.norm(torch.relu(h) + x) * attention_mask.unsqueeze(-1)
        # Project only the masked positions onto the vocabulary.
        selected = labels != -100
        return self.lm_head(h[selected]), labels[selected]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True, help="JSON training config")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)

    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    vocab = default_vocab()
    lexer = CodeLexer(vocab, keep_comments=cfg["data"]["keep_comments"])
    sources = make_corpus(cfg["data"]["n_functions"], cfg["seed"])
    dataset = CodeSnippetDataset(sources, lexer, cfg["data"]["max_len"], cfg["seed"])
    collator = DataCollatorForSubtokenMLM(vocab.stoi["<pad>"], vocab.stoi["<mask>"], len(vocab), len(SPECIALS),
                                          cfg["data"]["mlm_probability"], seed=cfg["seed"])
    loader = DataLoader(dataset, batch_size=cfg["train"]["batch_size"], shuffle=True, collate_fn=collator,
                        num_workers=cfg["data"]["num_workers"], generator=torch.Generator().manual_seed(cfg["seed"]))

    model = TinyCodeEncoder(len(vocab), cfg["model"]["dim"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"], weight_decay=0.01)
    loss_fn = nn.CrossEntropyLoss(ignore_index=-100)
    meter = evalkit.Meter()

    step, epoch, masked_tokens = 0, 0, 0
    max_steps = cfg["train"]["max_steps"]
    while step < max_steps and not meter.done():
        batches = iter(loader)
        epoch += 1
        for batch in batches:
            meter.batch(batch)
            logits, targets = model(batch["input_ids"], batch["attention_mask"], batch["labels"])
            loss = loss_fn(logits, targets)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            meter.step(loss)
            masked_tokens += int((batch["labels"] != -100).sum())
            step += 1
            if step % cfg["train"]["log_every"] == 0:
                print(json.dumps({"epoch": epoch, "step": step, "loss": round(loss.item(), 4)}))
            if step >= max_steps or meter.done():
                break
    meter.report(extra={"epochs": epoch, "masked_tokens": masked_tokens, "vocab_size": len(vocab)})


if __name__ == "__main__":
    main()
