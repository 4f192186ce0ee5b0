"""Cell selection for table question answering (TAPAS-like), with a TURL-style visibility mask.

    python train.py @tableqa.args
"""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from collate import TableCollator, WordPieceTokenizer
from tables import TableQADataset, generate_tables


def parse_args(argv=None):
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--num-tables", type=int, default=300)
    ap.add_argument("--questions-per-table", type=int, default=3)
    ap.add_argument("--max-length", type=int, default=192)
    ap.add_argument("--max-cell-tokens", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--max-steps", type=int, default=100)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--dim", type=int, default=32)
    ap.add_argument("--log-every", type=int, default=20)
    return ap.parse_args(argv)


class CellSelector(nn.Module):
    def __init__(self, vocab_size, dim, max_rows=32, max_cols=16):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, dim)
        self.row = nn.Embedding(max_rows, dim)
        self.col = nn.Embedding(max_cols, dim)
        self.attn = nn.MultiheadAttention(dim, 1, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, 1))

    def forward(self, b):
        h = self.tok(b.input_ids) + self.row(b.row_ids) + self.col(b.col_ids)
        a, _ = self.attn(h, h, h, attn_mask=~b.visibility, need_weights=False)
        return self.ff(h + a).squeeze(-1)


def main():
    args = parse_args()
    torch.set_num_threads(1)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    examples = generate_tables(args.num_tables, args.questions_per_table, args.seed)
    tokenizer = WordPieceTokenizer.build([ex["csv"] + " " + ex["question"] for ex in examples[::7]])
    ds = TableQADataset(examples, args.seed + 1)
    collator = TableCollator(tokenizer, args.max_length, args.max_cell_tokens)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers,
                        collate_fn=collator, generator=torch.Generator().manual_seed(args.seed + 2))
    model = CellSelector(len(tokenizer.vocab), args.dim)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    meter = evalkit.Meter()

    step, epoch = 0, 0
    selected = 0
    while step < args.max_steps and not meter.done():
        for batch in loader:
            meter.batch(batch.as_dict())
            logits = model(batch)
            per_tok = F.binary_cross_entropy_with_logits(logits, batch.answer_mask, reduction="none")
            loss = (per_tok * batch.attention_mask).sum() / batch.attention_mask.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            selected += int(((logits > 0) & batch.attention_mask.bool()).sum())
            if step % args.log_every == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            if step >= args.max_steps or meter.done():
                break
        epoch += 1
    meter.report({"steps": step, "epochs_started": epoch, "tokens_selected": selected})


if __name__ == "__main__":
    main()
