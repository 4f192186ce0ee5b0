"""Span-pointer dialogue state tracker (TRADE/SUMBT-flavoured, tiny)."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from dst import DialogueCorpus, DSTCollator, LengthGroupedSampler
from dst.corpus import make_dialogues
from evalkit import Meter


class PointerDST(nn.Module):
    def __init__(self, vocab_size, dim, num_slots):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.enc = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        self.slot_start = nn.Parameter(torch.randn(num_slots, dim) * 0.1)
        self.slot_end = nn.Parameter(torch.randn(num_slots, dim) * 0.1)
        self.gate = nn.Linear(2 * dim, 3)
        self.slot_emb = nn.Parameter(torch.randn(num_slots, dim) * 0.1)

    def forward(self, input_ids, token_mask, turn_mask):
        h = self.enc(self.embed(input_ids))                        # B T L D
        m = token_mask.unsqueeze(-1).float()
        pooled = (h * m).sum(2) / m.sum(2).clamp(min=1.0)          # B T D
        # dialogue context: running mean over the turns so far
        tm = turn_mask.unsqueeze(-1).float()
        ctx = (pooled * tm).cumsum(1) / tm.cumsum(1).clamp(min=1.0)
        start_logits = torch.einsum("btld,sd->btsl", h, self.slot_start)
        end_logits = torch.einsum("btld,sd->btsl", h, self.slot_end)
        neg = torch.finfo(h.dtype).min
        start_logits = start_logits.masked_fill(~token_mask.unsqueeze(2), neg)
        end_logits = end_logits.masked_fill(~token_mask.unsqueeze(2), neg)
        gate_in = torch.cat([ctx.unsqueeze(2) * self.slot_emb, pooled.unsqueeze(2).expand(-1, -1, self.slot_emb.shape[0], -1)], -1)
        return self.gate(gate_in), start_logits, end_logits


def dst_loss(gate_logits, start_logits, end_logits, batch):
    gate = F.cross_entropy(gate_logits.flatten(0, 2), batch["gate_labels"].flatten(), ignore_index=-100)
    span = F.cross_entropy(start_logits.flatten(0, 2), batch["start_positions"].flatten(), ignore_index=-100) + \
        F.cross_entropy(end_logits.flatten(0, 2), batch["end_positions"].flatten(), ignore_index=-100)
    return gate + 0.5 * span


def get_parser():
    p = argparse.ArgumentParser(fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-dialogues", type=int, default=1000)
    p.add_argument("--min-turns", type=int, default=2)
    p.add_argument("--max-turns", type=int, default=10)
    p.add_argument("--min-utt-len", type=int, default=6)
    p.add_argument("--max-utt-len", type=int, default=30)
    p.add_argument("--vocab-size", type=int, default=500)
    p.add_argument("--num-slots", type=int, default=12)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--embed-dim", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--log-every", type=int, default=50)
    return p


def main():
    args = get_parser().parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    dialogues = make_dialogues(args.num_dialogues, args.min_turns, args.max_turns, args.min_utt_len,
                               args.max_utt_len, args.vocab_size, args.num_slots, args.seed)
    corpus = DialogueCorpus(dialogues)
    sampler = LengthGroupedSampler(corpus.lengths(), args.batch_size,
                                   generator=torch.Generator().manual_seed(args.seed))
    loader = DataLoader(corpus, batch_size=args.batch_size, sampler=sampler, num_workers=args.num_workers,
                        collate_fn=DSTCollator(num_slots=args.num_slots))
    model = PointerDST(args.vocab_size, args.embed_dim, args.num_slots)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    meter = Meter()
    step, gate_hits, gate_total = 0, 0, 0
    for epoch in range(args.epochs):
        for batch in loader:
            meter.batch(batch)
            gate_logits, start_logits, end_logits = model(batch["input_ids"], batch["token_mask"], batch["turn_mask"])
            loss = dst_loss(gate_logits, start_logits, end_logits, batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            valid = batch["gate_labels"] != -100
            gate_hits += int(((gate_logits.argmax(-1) == batch["gate_labels"]) & valid).sum())
            gate_total += int(valid.sum())
            step += 1
            if step % args.log_every == 0:
                print(f"ep {epoch} it {step} loss {loss.item():.4f} gate-acc {gate_hits / gate_total:.4f}", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"gate_acc": gate_hits / max(gate_total, 1)})


if __name__ == "__main__":
    main()
