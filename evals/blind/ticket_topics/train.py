import argparse
import random
import tomllib

import numpy as np
import torch
from torch import nn

import evalkit
from corpus import TOPICS, make_tickets
from text import TicketText, build_vocab


class BagOfNgrams(nn.Module):
    def __init__(self, vocab_size, buckets, dim, classes):
        super().__init__()
        self.uni = nn.EmbeddingBag(vocab_size, dim, mode="sum", padding_idx=0)
        self.bi = nn.EmbeddingBag(buckets, dim, mode="sum", padding_idx=0)
        self.out = nn.Linear(dim, classes)

    def forward(self, ids, bigrams, n):
        h = (self.uni(ids) + self.bi(bigrams)) / n.clamp(min=1).unsqueeze(1).float()
        return self.out(h)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    with open(ap.parse_args().config, "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["run"]["seed"]
    random.seed(seed); np.random.seed(seed); torch.manual_seed(seed)
    torch.set_num_threads(1)

    c, t = cfg["corpus"], cfg["text"]
    texts, labels = make_tickets(c["tickets"], c["min_words"], c["max_words"], seed)
    vocab = build_vocab(texts, t["min_count"])
    ds = TicketText(texts, labels, vocab, t["max_tokens"], t["bigram_buckets"])
    loader = torch.utils.data.DataLoader(ds, batch_size=cfg["loader"]["batch_size"], shuffle=True,
                                         num_workers=cfg["loader"]["num_workers"],
                                         generator=torch.Generator().manual_seed(seed))
    model = BagOfNgrams(len(vocab), t["bigram_buckets"], cfg["model"]["dim"], len(TOPICS))
    opt = torch.optim.SGD(model.parameters(), lr=cfg["model"]["lr"])

    meter = evalkit.Meter()
    per_epoch_correct = []
    for epoch in range(cfg["run"]["epochs"]):
        correct = 0
        for ids, bigrams, n, y in loader:
            meter.batch((ids, bigrams, n, y))
            logits = model(ids, bigrams, n)
            loss = nn.functional.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += (logits.argmax(1) == y).sum().item()
            meter.step(loss)
            if meter.done():
                break
        per_epoch_correct.append(correct)
        if meter.done():
            break
    meter.report(extra={"per_epoch_correct": per_epoch_correct})


if __name__ == "__main__":
    main()
