"""Multi-label tag prediction from sparse TF-IDF documents, with threshold-sweep metrics logged every step."""
import argparse
import json
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit
from callbacks import ConsoleLogger, ThresholdMetrics


def synth_documents(rng, n_docs, n_terms, n_labels):
    """JSON lines as an export would give them: {"id", "tags": [...], "tfidf": {term: weight}}."""
    label_terms = [rng.choice(n_terms, 12, replace=False) for _ in range(n_labels)]
    label_freq = rng.dirichlet(np.full(n_labels, 0.8))
    lines = []
    for i in range(n_docs):
        n_tags = int(rng.integers(1, 5))
        tags = sorted({int(t) for t in rng.choice(n_labels, n_tags, p=label_freq)})
        terms = {}
        for t in tags:
            for term in rng.choice(label_terms[t], 6, replace=False):
                terms[int(term)] = terms.get(int(term), 0.0) + rng.uniform(0.2, 1.0)
        for term in rng.choice(n_terms, int(rng.integers(10, 30)), replace=False):
            terms[int(term)] = terms.get(int(term), 0.0) + rng.exponential(0.3)
        lines.append(json.dumps({"id": f"doc-{i}", "tags": [f"tag{t:02d}" for t in tags],
                                 "tfidf": {str(k): round(v, 4) for k, v in terms.items()}}))
    return lines


class TaggedDocuments(Dataset):
    def __init__(self, lines, n_terms, n_labels):
        self.x = np.zeros((len(lines), n_terms), dtype=np.float32)
        self.y = np.zeros((len(lines), n_labels), dtype=np.float32)
        for i, line in enumerate(lines):
            rec = json.loads(line)
            for term, w in rec["tfidf"].items():
                self.x[i, int(term)] = w
            for tag in rec["tags"]:
                self.y[i, int(tag[3:])] = 1.0
        norms = np.linalg.norm(self.x, axis=1, keepdims=True)
        self.x /= np.maximum(norms, 1e-6)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), torch.from_numpy(self.y[i])


class LabelBalancedSampler(Sampler):
    """Draws len(dataset) indices with replacement, weighting a document by its rarest tag."""

    def __init__(self, targets, generator):
        freq = targets.sum(0)
        inv = np.where(freq > 0, 1.0 / np.maximum(freq, 1), 0.0)
        self.weights = torch.from_numpy((targets * inv).max(1))
        self.generator = generator

    def __len__(self):
        return len(self.weights)

    def __iter__(self):
        yield from torch.multinomial(self.weights, len(self.weights), replacement=True,
                                     generator=self.generator).tolist()


class TagMLP(nn.Module):
    def __init__(self, n_terms, hidden, n_labels):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_terms, hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden, n_labels))

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, model, loader, optimizer, epochs, meter, metrics, callbacks):
        self.model, self.loader, self.optimizer, self.epochs = model, loader, optimizer, epochs
        self.meter, self.metrics = meter, metrics
        self.callbacks = [metrics] + list(callbacks)
        self.loss_fn = nn.BCEWithLogitsLoss()
        self.global_step = 0

    def fit(self):
        for cb in self.callbacks:
            cb.on_train_begin(self)
        for _ in range(self.epochs):
            self.model.train()
            for batch in self.loader:
                self.meter.batch(batch)
                x, y = batch
                logits = self.model(x)
                loss = self.loss_fn(logits, y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.meter.step(loss)
                self.global_step += 1
                outputs = {"loss": loss.item(), "probs": torch.sigmoid(logits.detach()), "targets": y}
                for cb in self.callbacks:
                    cb.on_batch_end(self, outputs)
                if self.meter.done():
                    break
            if self.meter.done():
                break
        for cb in self.callbacks:
            cb.on_train_end(self)


def main():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-docs", type=int, default=1024)
    ap.add_argument("--n-terms", type=int, default=256)
    ap.add_argument("--n-labels", type=int, default=32)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--thresholds", type=lambda s: [float(v) for v in s.split(",")], default=[0.5])
    ap.add_argument("--metric-window", type=int, default=8)
    ap.add_argument("--log-every", type=int, default=50)
    args = ap.parse_args()

    torch.set_num_threads(1)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    lines = synth_documents(np.random.default_rng(args.seed), args.n_docs, args.n_terms, args.n_labels)
    dataset = TaggedDocuments(lines, args.n_terms, args.n_labels)
    sampler = LabelBalancedSampler(dataset.y, torch.Generator().manual_seed(args.seed + 1))
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=args.num_workers,
                        drop_last=True)
    model = TagMLP(args.n_terms, args.hidden, args.n_labels)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    meter = evalkit.Meter()
    metrics = ThresholdMetrics(args.thresholds, args.n_labels, args.metric_window)
    trainer = Trainer(model, loader, optimizer, args.epochs, meter, metrics, [ConsoleLogger(args.log_every)])
    trainer.fit()
    last = metrics.latest
    meter.report(extra={
        "best_threshold_trace": [h[1] for h in metrics.history],
        "best_macro_f1_trace": [h[2] for h in metrics.history],
        "micro_f1_trace": [h[3] for h in metrics.history],
        "final": {thr: {k: v for k, v in m.items() if k != "label_f1"} for thr, m in last.items()},
        "final_label_f1_0.5": last.get("0.5", {}).get("label_f1"),
    })


if __name__ == "__main__":
    main()
