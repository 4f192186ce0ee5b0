"""Train a residual MLP language model (next token from a window of tokens) in float32 on the GPU."""
import argparse
import json
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import evalkit


def make_tokens(n_seqs, seq_len, vocab, seed):
    """Sequences from a fixed sparse Markov chain: each token has a few likely successors."""
    g = torch.Generator().manual_seed(seed)
    successors = torch.randint(0, vocab, (vocab, 4), generator=g)
    seqs = torch.empty(n_seqs, seq_len + 1, dtype=torch.long)
    seqs[:, 0] = torch.randint(0, vocab, (n_seqs,), generator=g)
    for t in range(seq_len):
        pick = torch.randint(0, 4, (n_seqs,), generator=g)
        seqs[:, t + 1] = successors[seqs[:, t], pick]
    return seqs


class Block(nn.Module):
    def __init__(self, dim, mult):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, mult * dim)
        self.down = nn.Linear(mult * dim, dim)

    def forward(self, x):
        return x + self.down(nn.functional.gelu(self.up(self.norm(x))))


class TokenMLP(nn.Module):
    def __init__(self, vocab, dim, depth, mult):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.Sequential(*[Block(dim, mult) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        return self.head(self.norm(self.blocks(self.embed(tokens))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    d, m = cfg["data"], cfg["model"]
    seqs = make_tokens(d["n_seqs"], d["seq_len"], d["vocab"], seed)
    loader = DataLoader(TensorDataset(seqs), batch_size=d["batch_size"], shuffle=True, drop_last=True,
                        num_workers=d["num_workers"], pin_memory=device.type == "cuda",
                        generator=torch.Generator().manual_seed(seed))

    model = TokenMLP(d["vocab"], m["dim"], m["depth"], m["mult"]).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])

    meter = evalkit.Meter()
    for epoch in range(cfg["train"]["epochs"]):
        for (batch,) in loader:
            meter.batch(batch)
            batch = batch.to(device, non_blocking=True)
            inputs, targets = batch[:, :-1], batch[:, 1:]
            logits = model(inputs)
            loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            if meter.steps % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {meter.steps} loss {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
