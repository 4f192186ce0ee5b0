import argparse
import configparser
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from sessions import SessionLog, collate_sessions


class AttentionReranker(nn.Module):
    """DIN-style: attend over the history with the candidate, then score with an MLP."""

    def __init__(self, item_dim, query_dim, hidden):
        super().__init__()
        self.att = nn.Sequential(nn.Linear(4 * item_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.q_proj = nn.Linear(query_dim, item_dim)
        self.mlp = nn.Sequential(nn.Linear(3 * item_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, user, item):
        hist, mask, cand = user["history"], user["history_mask"], item["candidate"]
        c = cand.unsqueeze(1).expand_as(hist)
        w = self.att(torch.cat([hist, c, hist - c, hist * c], dim=-1)).squeeze(-1)
        w = w.masked_fill(~mask, float("-inf")).softmax(dim=1)
        interest = (w.unsqueeze(-1) * hist).sum(1)
        q = self.q_proj(user["query"])
        return self.mlp(torch.cat([interest, q, cand], dim=-1)).squeeze(-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/rerank.ini")
    args = parser.parse_args()
    cp = configparser.ConfigParser()
    cp.read(args.config)

    seed = cp.getint("general", "seed")
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    data = SessionLog(cp.getint("data", "sessions"), cp.getint("data", "items"), cp.getint("data", "item_dim"),
                      cp.getint("data", "query_dim"), cp.getint("data", "max_history"), seed)
    loader = DataLoader(data, batch_size=cp.getint("loader", "batch_size"), shuffle=True,
                        num_workers=cp.getint("loader", "num_workers"), collate_fn=collate_sessions,
                        generator=torch.Generator().manual_seed(seed))
    model = AttentionReranker(cp.getint("data", "item_dim"), cp.getint("data", "query_dim"), cp.getint("model", "hidden"))
    opt = torch.optim.Adam(model.parameters(), lr=cp.getfloat("train", "lr"))
    log_every = cp.getint("train", "log_every")

    meter = evalkit.Meter()
    running = None
    summary = []
    n_iter = 0
    for epoch in range(cp.getint("train", "epochs")):
        hits = seen = 0
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["user"], batch["item"])
            loss = F.binary_cross_entropy_with_logits(logits, batch["click"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            n_iter += 1
            value = loss.item()
            running = value if running is None else 0.98 * running + 0.02 * value
            hits += int(((logits > 0).float() == batch["click"]).sum())
            seen += len(batch["click"])
            if n_iter % log_every == 0:
                print(f"iter {n_iter:5d} | loss {running:.4f} | ppl-ish {math.exp(running):.3f} | acc {hits / seen:.3f}")
            if meter.done():
                break
        summary.append({"epoch": epoch, "ema_loss": running, "accuracy": hits / max(seen, 1)})
        if meter.done():
            break
    meter.report(extra={"summary": summary, "iterations": n_iter})


if __name__ == "__main__":
    main()
