import argparse
import json
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from data import CharVocab, ReviewChars, synth_reviews


class ChunkedCharEncoder(nn.Module):
    """Embeds characters, encodes non-overlapping chunks of `chunk` chars, max-pools over chunks."""

    def __init__(self, vocab_size, emb_dim, hidden, chunk):
        super().__init__()
        self.chunk = chunk
        self.emb = nn.Embedding(vocab_size, emb_dim, padding_idx=0)
        self.proj = nn.Linear(emb_dim * chunk, hidden)
        self.head = nn.Linear(hidden, 2)

    def forward(self, ids, mask):
        b, n = ids.shape
        x = self.emb(ids).reshape(b, n // self.chunk, -1)
        chunk_mask = mask.reshape(b, n // self.chunk, self.chunk).amax(dim=2, keepdim=True)
        h = torch.relu(self.proj(x)) * chunk_mask
        return self.head(h.max(dim=1).values)


def parse_args():
    p = argparse.ArgumentParser(description="char-level sentiment")
    p.add_argument("--config", type=str, required=True)
    return p.parse_args()


def main():
    args = parse_args()
    cfg = json.load(open(args.config))
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    c = cfg["corpus"]
    texts, labels = synth_reviews(c["n_reviews"], c["min_words"], c["max_words"], cfg["seed"])
    vocab = CharVocab(texts)
    ds = ReviewChars(texts, labels, vocab, cfg["max_chars"])
    dl = DataLoader(ds, batch_size=cfg["batch_size"], shuffle=True, num_workers=cfg["num_workers"],
                    generator=torch.Generator().manual_seed(cfg["seed"]))

    m = cfg["model"]
    net = ChunkedCharEncoder(len(vocab), m["emb_dim"], m["hidden"], m["chunk"])
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg["lr"])
    criterion = nn.CrossEntropyLoss()

    meter = evalkit.Meter()
    step = 0
    hits = 0
    for epoch in range(cfg["epochs"]):
        for batch in dl:
            meter.batch(batch)
            logits = net(batch["input_ids"], batch["attention_mask"])
            loss = criterion(logits, batch["label"])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            hits += (logits.argmax(-1) == batch["label"]).sum().item()
            step += 1
            meter.step(loss)
            if step % 20 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"hits": hits, "steps": step})


if __name__ == "__main__":
    main()
