"""Toy show-and-tell captioner with per-step corpus BLEU-4 / CIDEr-D logging."""
import argparse
import importlib.util

import torch
from torch import nn
from torch.utils.data import DataLoader

from capmetrics import CiderD, corpus_bleu
from data import CaptionDataset
from evalkit import Meter


def load_settings(path):
    spec = importlib.util.spec_from_file_location("run_settings", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Captioner(nn.Module):
    def __init__(self, feat_dim, vocab, embed, hidden):
        super().__init__()
        self.init_h = nn.Linear(feat_dim, hidden)
        self.embed = nn.Embedding(vocab, embed, padding_idx=0)
        self.rnn = nn.GRU(embed, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, feats, tokens):
        h0 = torch.tanh(self.init_h(feats)).unsqueeze(0)
        y, _ = self.rnn(self.embed(tokens), h0)
        return self.out(y)


class CaptionMetricsLogger:
    """Logs corpus BLEU-4 and CIDEr-D of the teacher-forced greedy tokens on each training batch."""

    def __init__(self, dataset, every, print_every, sigma):
        self.ds = dataset
        self.every = every
        self.print_every = print_every
        self.cider = CiderD(dataset.refs, sigma=sigma)
        self.history = {"bleu4": [], "cider": []}

    def on_step_end(self, step, batch, logits):
        if step % self.every:
            return
        pred = logits.argmax(-1).tolist()
        hyps = [self.ds.decode(p) for p in pred]
        refs = [self.ds.refs[i] for i in batch["image_idx"].tolist()]
        bleu = corpus_bleu(hyps, refs)
        cider, _ = self.cider.compute_score(hyps, refs)
        self.history["bleu4"].append(bleu)
        self.history["cider"].append(cider)
        if step % self.print_every == 0:
            print(f"step {step} BLEU-4 {bleu:.4f} CIDEr-D {cider:.4f}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    s = load_settings(ap.parse_args().settings)
    torch.manual_seed(s.SEED)
    torch.set_num_threads(1)

    ds = CaptionDataset(s.NUM_IMAGES, s.REFS_PER_IMAGE, s.FEATURE_DIM, s.MAX_CAPTION_LEN, s.SEED)
    g = torch.Generator().manual_seed(s.SEED)
    loader = DataLoader(ds, batch_size=s.BATCH_SIZE, shuffle=True, num_workers=s.NUM_WORKERS, generator=g,
                        drop_last=True)
    model = Captioner(s.FEATURE_DIM, len(ds.itos), s.EMBED_DIM, s.HIDDEN_DIM)
    opt = torch.optim.Adam(model.parameters(), lr=s.LR)
    crit = nn.CrossEntropyLoss(ignore_index=0)
    logger = CaptionMetricsLogger(ds, s.METRICS_EVERY, s.PRINT_EVERY, s.CIDER_SIGMA)
    meter = Meter()
    step = 0
    for epoch in range(s.EPOCHS):
        ds.epoch = epoch
        for batch in loader:
            meter.batch(batch)
            ids = batch["input_ids"]
            logits = model(batch["feats"], ids[:, :-1])
            loss = crit(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            logger.on_step_end(step, batch, logits.detach())
            step += 1
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra=logger.history)


if __name__ == "__main__":
    main()
