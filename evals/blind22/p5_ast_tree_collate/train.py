"""Predict the loop-nesting depth of a program from its syntax tree (tree attention over ancestors)."""
import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from astdata import TreeCollator, TreeCorpus
from model import TreeAttentionEncoder


def parse_args():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--num-programs", type=int, default=1000)
    ap.add_argument("--min-nodes", type=int, default=20)
    ap.add_argument("--max-nodes", type=int, default=120)
    ap.add_argument("--num-node-types", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--d-model", type=int, default=32)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--grad-clip", type=float, default=1.0)
    return ap.parse_args()


def main():
    args = parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    corpus = TreeCorpus(args.num_programs, args.min_nodes, args.max_nodes, args.num_node_types, args.seed)
    loader = DataLoader(corpus, batch_size=args.batch_size, shuffle=True, collate_fn=TreeCollator(),
                        num_workers=args.num_workers, generator=torch.Generator().manual_seed(args.seed))
    model = TreeAttentionEncoder(args.num_node_types, args.d_model, 4)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    meter = evalkit.Meter()
    max_depth_seen = 0
    for epoch in range(args.epochs):
        model.train()
        for batch in loader:
            meter.batch(batch)
            loss = F.cross_entropy(model(batch), batch["labels"])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
            opt.step()
            meter.step(loss)
            max_depth_seen = max(max_depth_seen, int(batch["depths"].max()))
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"max_depth_seen": max_depth_seen})


if __name__ == "__main__":
    main()
