import argparse
import random
import shlex

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from recipes import CUISINES, RecipeTitles, make_titles
from tokenizer import UnigramTokenizer


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default=None, help="file of extra arguments (shlex syntax)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n-titles", type=int, default=4000)
    p.add_argument("--max-len", type=int, default=32)
    p.add_argument("--max-piece", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--emb-dim", type=int, default=32)
    args = p.parse_args()
    if args.config:
        with open(args.config) as fh:
            extra = shlex.split(fh.read(), comments=True)
        args = p.parse_args(extra, namespace=args)
    return args


class BagClassifier(nn.Module):
    def __init__(self, vocab_size, dim, n_classes):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.head = nn.Sequential(nn.Linear(dim, 128), nn.GELU(), nn.Linear(128, n_classes))

    def forward(self, input_ids, attention_mask):
        m = attention_mask.unsqueeze(-1).float()
        pooled = (self.emb(input_ids) * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.head(pooled)


def main():
    args = get_args()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    titles, labels = make_titles(args.n_titles, args.seed)
    tok = UnigramTokenizer.train(titles, max_piece=args.max_piece)
    print(f"vocab {len(tok)} pieces")
    ds = RecipeTitles(titles, labels, tok, args.max_len)
    dl = DataLoader(ds, batch_size=args.batch_size, shuffle=True, drop_last=True,
                    generator=torch.Generator().manual_seed(args.seed))
    model = BagClassifier(len(tok), args.emb_dim, len(CUISINES))
    optim = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    meter = evalkit.Meter()

    step = 0
    accs = []
    for epoch in range(args.epochs):
        hits = n = 0
        for batch in dl:
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = loss_fn(logits, batch["labels"])
            optim.zero_grad()
            loss.backward()
            optim.step()
            meter.step(loss)
            step += 1
            hits += (logits.argmax(-1) == batch["labels"]).sum().item()
            n += batch["labels"].numel()
            if step % 20 == 0:
                print(f"step {step} loss {loss.item():.4f}")
            if meter.done():
                break
        accs.append(hits / n)
        if meter.done():
            break
    meter.report(extra={"epoch_acc": accs, "vocab_size": len(tok)})


if __name__ == "__main__":
    main()
