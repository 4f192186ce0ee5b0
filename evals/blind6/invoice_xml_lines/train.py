"""Invoice fraud scoring: XML e-invoices -> header features + DeepSets over line items."""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit
from invoices import LINE_FEATS, generate, parse_invoice


class InvoiceDataset(Dataset):
    def __init__(self, docs, labels, max_lines):
        self.docs = docs
        self.labels = labels
        self.max_lines = max_lines

    def __len__(self):
        return len(self.docs)

    def __getitem__(self, i):
        feats, rows, n = parse_invoice(self.docs[i], self.max_lines)
        return (torch.tensor(feats, dtype=torch.float32), torch.tensor(rows, dtype=torch.float32),
                n, torch.tensor(self.labels[i]))


class FraudNet(nn.Module):
    def __init__(self, n_feats, hidden):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(LINE_FEATS, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.rho = nn.Sequential(nn.Linear(hidden + n_feats, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, feats, lines, n_lines):
        mask = (torch.arange(lines.shape[1]) < n_lines.unsqueeze(1)).float().unsqueeze(-1)
        pooled = (self.phi(lines) * mask).sum(1) / mask.sum(1)
        return self.rho(torch.cat([pooled, feats], 1)).squeeze(1)


def main():
    parser = argparse.ArgumentParser(fromfile_prefix_chars="@")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-invoices", type=int, default=1000)
    parser.add_argument("--max-lines", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--log-every", type=int, default=10)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    docs, labels = generate(args.num_invoices, args.seed)
    ds = InvoiceDataset(docs, labels, args.max_lines)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, generator=torch.Generator().manual_seed(args.seed))
    n_feats = len(ds[0][0])
    model = FraudNet(n_feats, args.hidden)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.BCEWithLogitsLoss()
    meter = evalkit.Meter()
    step, curve = 0, []
    tp = fp = fn = 0
    for epoch in range(args.epochs):
        for feats, lines, n_lines, y in loader:
            meter.batch((feats, lines, n_lines, y))
            logits = model(feats, lines, n_lines)
            loss = loss_fn(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            pred = logits.detach() > 0
            tp += int((pred & (y > 0.5)).sum())
            fp += int((pred & (y < 0.5)).sum())
            fn += int((~pred & (y > 0.5)).sum())
            if step % args.log_every == 0:
                f1 = 2 * tp / max(2 * tp + fp + fn, 1)
                curve.append([step, round(loss.item(), 6), round(f1, 6)])
                print(f"step {step} loss {loss.item():.4f} f1 {f1:.3f}", flush=True)
                tp = fp = fn = 0
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"curve": curve})


if __name__ == "__main__":
    main()
