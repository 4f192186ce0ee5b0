"""Intent classifier for search queries: many short epochs over a small labelled set."""
import argparse
import json
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, RandomSampler

import evalkit
from data import QueryDataset, make_queries, worker_init


class BagOfWords(nn.Module):
    def __init__(self, vocab_size, dim, n_out):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, dim, mode="sum", padding_idx=0, sparse=True)
        self.head = nn.Linear(dim, n_out)

    def forward(self, tokens, length):
        return self.head(self.embed(tokens) / length[:, None])


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
    # Small model: intra-op threads cost more in sync than they save.
    torch.set_num_threads(1)

    d = cfg["data"]
    queries, intents = make_queries(d["n_queries"], d["vocab_size"], d["max_words"], d["n_intents"], seed)
    dataset = QueryDataset(queries, intents, d["vocab_size"], d["max_words"])
    # The sampler owns its generator so the shuffle order is reproducible on its own.
    sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(seed))
    loader = DataLoader(dataset, batch_size=d["batch_size"], sampler=sampler,
                        num_workers=d["num_workers"], persistent_workers=d["persistent_workers"],
                        worker_init_fn=worker_init)
    model = BagOfWords(d["vocab_size"], cfg["model"]["embed_dim"], d["n_intents"])
    opt = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"])

    meter = evalkit.Meter()
    for epoch in range(cfg["train"]["epochs"]):
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["tokens"], batch["length"].float())
            loss = nn.functional.cross_entropy(logits, batch["intent"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            if meter.done():
                break
        if epoch % 10 == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}")
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
