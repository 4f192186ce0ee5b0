"""Per-column conservation from a multiple sequence alignment (MSA column-attention-lite)."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from evalkit import Meter
from msakit import ALPHABET, MSACollator, SyntheticMSADataset


def get_args(argv=None):
    p = argparse.ArgumentParser(fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-families", type=int, default=500)
    p.add_argument("--min-depth", type=int, default=8)
    p.add_argument("--max-depth", type=int, default=32)
    p.add_argument("--min-length", type=int, default=48)
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--max-steps", type=int, default=-1)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--embed-dim", type=int, default=32)
    p.add_argument("--log-every", type=int, default=25)
    return p.parse_args(argv)


class ColumnProfileNet(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.row_weight = nn.Linear(dim, 1)
        self.conv = nn.Sequential(nn.Conv1d(dim + 1, dim, 5, padding=2), nn.GELU(), nn.Conv1d(dim, 2, 1))

    def forward(self, tokens, gap_mask, pad_mask):
        h = self.embed(tokens)                                   # B D L E
        keep = (~pad_mask).unsqueeze(-1).float()
        w = torch.sigmoid(self.row_weight(h)) * keep
        profile = (h * w).sum(1) / w.sum(1).clamp_min(1e-6)      # B L E
        gap_frac = (gap_mask.float().sum(1) / keep.squeeze(-1).sum(1).clamp_min(1.0)).unsqueeze(-1)
        x = torch.cat([profile, gap_frac], -1).transpose(1, 2)   # B E+1 L
        return self.conv(x)                                       # B 2 L


def main():
    args = get_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    ds = SyntheticMSADataset(args.num_families, (args.min_depth, args.max_depth),
                             (args.min_length, args.max_length), seed=args.seed)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers,
                        collate_fn=MSACollator(max_depth=args.max_depth),
                        generator=torch.Generator().manual_seed(args.seed))
    model = ColumnProfileNet(len(ALPHABET), args.embed_dim)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    meter = Meter()
    step = 0
    for epoch in range(args.epochs):
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["tokens"], batch["gap_mask"], batch["pad_mask"])
            loss = F.cross_entropy(logits, batch["labels"], ignore_index=-100)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            if step % args.log_every == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
            if meter.done() or step == args.max_steps:
                break
        if meter.done() or step == args.max_steps:
            break
    meter.report()


if __name__ == "__main__":
    main()
