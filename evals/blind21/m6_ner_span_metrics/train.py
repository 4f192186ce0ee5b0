"""Window BIO tagger with per-step entity-level metrics."""
import argparse
import importlib.util

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from corpus import SyntheticNERCorpus, TokenClassificationCollator
from evalkit import Meter
from span_metrics import SpanF1


def load_settings(path):
    spec = importlib.util.spec_from_file_location("run_settings", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class WindowTagger(nn.Module):
    """Collobert-style window tagger: embeddings of tokens i-w .. i+w, then an MLP per token."""

    def __init__(self, vocab_size, embed_dim, hidden, num_tags, window=1):
        super().__init__()
        self.window = window
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear((2 * window + 1) * embed_dim, hidden), nn.Tanh(), nn.Linear(hidden, num_tags))

    def forward(self, input_ids):
        e = self.embed(input_ids)                                  # B T E
        w = self.window
        padded = F.pad(e, (0, 0, w, w))
        context = torch.cat([padded[:, k:k + e.shape[1]] for k in range(2 * w + 1)], dim=-1)
        return self.mlp(context)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    S = load_settings(ap.parse_args().settings)

    torch.set_num_threads(1)
    torch.manual_seed(S.SEED)
    corpus = SyntheticNERCorpus(S.NUM_SENTENCES, S.MIN_LEN, S.MAX_LEN, S.VOCAB_SIZE, S.ENTITY_TYPES,
                                S.ENTITY_RATE, S.SEED)
    loader = DataLoader(corpus, batch_size=S.BATCH_SIZE, shuffle=True, num_workers=S.NUM_WORKERS,
                        collate_fn=TokenClassificationCollator(), generator=torch.Generator().manual_seed(S.SEED))
    model = WindowTagger(S.VOCAB_SIZE, S.EMBED_DIM, S.HIDDEN, len(corpus.tags))
    optimizer = torch.optim.Adam(model.parameters(), lr=S.LR)
    metric = SpanF1(corpus.tags, S.ENTITY_TYPES)

    meter = Meter()
    history = {etype: [] for etype in S.ENTITY_TYPES + ("micro",)}
    step = 0
    done = False
    for epoch in range(S.EPOCHS):
        model.train()
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["input_ids"])
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch["labels"].reshape(-1), ignore_index=-100)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)

            with torch.no_grad():
                preds = logits.argmax(-1)
            scores = metric.batch_scores(preds, batch["labels"])
            for key, (p, r, f1) in scores.items():
                history[key].append([p, r, f1])
            step += 1
            if step % S.LOG_EVERY == 0:
                per_type = " ".join(f"{k}={scores[k][2]:.2f}" for k in S.ENTITY_TYPES)
                print(f"ep {epoch} step {step} loss {loss.item():.4f} micro-F1 {scores['micro'][2]:.3f} | {per_type}",
                      flush=True)
            if meter.done() or step >= S.MAX_STEPS:
                done = True
                break
        if done:
            break
    meter.report(extra={"span_prf_per_step": history})


if __name__ == "__main__":
    main()
