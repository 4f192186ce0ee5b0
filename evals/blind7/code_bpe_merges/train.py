"""Train a tiny causal conv language model on BPE-tokenized synthetic source code."""
import argparse
import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

from codelm import CodeBPE, CodeWindowDataset, build_corpus, learn_merges
from evalkit import Meter


class CausalConvBlock(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.pad = k - 1
        self.conv = nn.Conv1d(d, 2 * d, k)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):  # x: (B, T, D)
        h = self.norm(x).transpose(1, 2)
        h = self.conv(F.pad(h, (self.pad, 0)))
        a, b = h.chunk(2, dim=1)
        return x + (a * torch.sigmoid(b)).transpose(1, 2)


class ConvLM(nn.Module):
    def __init__(self, vocab_size, d_model, n_blocks, kernel_size):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.blocks = nn.ModuleList([CausalConvBlock(d_model, kernel_size) for _ in range(n_blocks)])
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, ids):
        x = self.embed(ids)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x))


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/codelm.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    seed_everything(cfg["seed"])
    dcfg, mcfg, ocfg = cfg["data"], cfg["model"], cfg["optim"]

    files = build_corpus(dcfg["n_files"], cfg["seed"])
    merges = learn_merges(files[: dcfg["merge_train_files"]], dcfg["num_merges"])
    alphabet = sorted(set("".join(files)))
    tokenizer = CodeBPE(merges, alphabet)
    print(f"vocab {tokenizer.vocab_size} ({len(alphabet)} chars, {len(merges)} merges)")

    dataset = CodeWindowDataset(files, tokenizer, dcfg["seq_len"], seed=cfg["seed"] + 1)
    loader = DataLoader(
        dataset,
        batch_size=ocfg["batch_size"],
        shuffle=True,
        drop_last=True,
        num_workers=0,
        generator=torch.Generator().manual_seed(cfg["seed"]),
    )

    model = ConvLM(tokenizer.vocab_size, mcfg["d_model"], mcfg["n_blocks"], mcfg["kernel_size"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=ocfg["lr"], weight_decay=ocfg["weight_decay"])
    max_steps = ocfg["max_steps"]

    def lr_lambda(step):
        if step < ocfg["warmup_steps"]:
            return (step + 1) / ocfg["warmup_steps"]
        progress = (step - ocfg["warmup_steps"]) / max(1, max_steps - ocfg["warmup_steps"])
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

    meter = Meter()
    step = 0
    target_tokens = 0
    history = []
    data_iter = iter(loader)
    model.train()
    while step < max_steps:
        try:
            batch = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            batch = next(data_iter)
        meter.batch(batch)

        logits = model(batch["input_ids"])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), batch["labels"].reshape(-1), ignore_index=-100)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), ocfg["grad_clip"])
        optimizer.step()
        scheduler.step()

        step += 1
        target_tokens += int((batch["labels"] != -100).sum())
        history.append(loss.item())
        if step % cfg["log_every"] == 0:
            print(f"step {step:4d}  loss {history[-1]:.4f}  ppl {math.exp(history[-1]):.2f}")
        meter.step(loss)
        if meter.done():
            break

    tail = history[-10:]
    meter.report(extra={
        "vocab_size": tokenizer.vocab_size,
        "num_merges": len(merges),
        "target_tokens": target_tokens,
        "final_ppl": math.exp(sum(tail) / len(tail)),
    })


if __name__ == "__main__":
    main()
