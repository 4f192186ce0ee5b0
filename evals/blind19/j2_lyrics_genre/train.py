"""Genre classifier over song lyrics: bag of tokens + line-level prosody/rhyme features."""
import argparse
import json
import random
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from corpus import generate_corpus
from evalkit import Meter
from text_features import LyricsFeaturizer, Vocab


class LyricsDataset(Dataset):
    def __init__(self, songs, featurizer, seed, max_lines):
        self.songs = songs
        self.featurizer = featurizer
        self.seed = seed
        self.max_lines = max_lines
        self.epoch = 0

    def __len__(self):
        return len(self.songs)

    def __getitem__(self, idx):
        song = self.songs[idx]
        lines = song["lyrics"].split("\n")
        # augmentation: a random window of consecutive lines (a verse + chorus, usually)
        rng = random.Random(self.seed * 1_000_003 + self.epoch * 10_007 + idx)
        start = rng.randint(0, max(0, len(lines) - self.max_lines))
        out = self.featurizer(lines[start:start + self.max_lines])
        out["labels"] = song["label"]
        return out


@dataclass
class LyricsCollator:
    pad_token_id: int
    max_lines: int
    n_line_feats: int

    def __call__(self, features):
        bsz = len(features)
        max_len = max(len(f["input_ids"]) for f in features)
        input_ids = torch.full((bsz, max_len), self.pad_token_id, dtype=torch.long)
        line_feats = torch.zeros(bsz, self.max_lines, self.n_line_feats)
        line_mask = torch.zeros(bsz, self.max_lines, dtype=torch.bool)
        for i, f in enumerate(features):
            ids = f["input_ids"]
            input_ids[i, : len(ids)] = torch.tensor(ids, dtype=torch.long)
            n = len(f["line_feats"])
            if n:
                line_feats[i, :n] = torch.tensor(f["line_feats"], dtype=torch.float32)
                line_mask[i, :n] = True
        return {"input_ids": input_ids, "line_feats": line_feats, "line_mask": line_mask,
                "labels": torch.tensor([f["labels"] for f in features], dtype=torch.long)}


class GenreClassifier(nn.Module):
    def __init__(self, vocab_size, n_line_feats, n_classes, embed_dim, hidden_dim, pad_idx):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_idx)
        self.line_proj = nn.Linear(n_line_feats, embed_dim)
        self.head = nn.Sequential(nn.Linear(2 * embed_dim, hidden_dim), nn.GELU(), nn.Linear(hidden_dim, n_classes))
        self.pad_idx = pad_idx

    def forward(self, input_ids, line_feats, line_mask):
        tok_mask = (input_ids != self.pad_idx).unsqueeze(-1).float()
        tok = (self.embed(input_ids) * tok_mask).sum(1) / tok_mask.sum(1).clamp(min=1.0)
        lm = line_mask.unsqueeze(-1).float()
        lines = (torch.tanh(self.line_proj(line_feats)) * lm).sum(1) / lm.sum(1).clamp(min=1.0)
        return self.head(torch.cat([tok, lines], dim=-1))


class Trainer:
    def __init__(self, model, train_dataset, data_collator, args, meter):
        self.model = model
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.args = args
        self.meter = meter
        self.optimizer = torch.optim.Adam(model.parameters(), lr=args["learning_rate"])
        self.log_history = []

    def get_train_dataloader(self):
        g = torch.Generator().manual_seed(self.args["seed"])
        return DataLoader(self.train_dataset, batch_size=self.args["batch_size"], shuffle=True,
                          collate_fn=self.data_collator, num_workers=self.args["num_workers"], generator=g)

    def training_step(self, inputs):
        self.model.train()
        logits = self.model(inputs["input_ids"], inputs["line_feats"], inputs["line_mask"])
        loss = F.cross_entropy(logits, inputs["labels"])
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.detach(), logits.detach()

    def train(self):
        loader = self.get_train_dataloader()
        global_step, correct, seen = 0, 0, 0
        for epoch in range(self.args["epochs"]):
            self.train_dataset.epoch = epoch
            for inputs in loader:
                self.meter.batch(inputs)
                loss, logits = self.training_step(inputs)
                self.meter.step(loss)
                global_step += 1
                correct += int((logits.argmax(-1) == inputs["labels"]).sum())
                seen += len(inputs["labels"])
                if global_step % self.args["logging_steps"] == 0:
                    self.log_history.append({"step": global_step, "loss": round(float(loss), 4)})
                    print(self.log_history[-1], flush=True)
                if self.meter.done():
                    return correct / max(seen, 1)
        return correct / max(seen, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.json")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    c, fc, tc = cfg["corpus"], cfg["features"], cfg["training"]
    songs = generate_corpus(c["genres"], c["num_songs"], c["lexicon_per_genre"], cfg["seed"])
    vocab = Vocab.build([s["lyrics"] for s in songs], min_freq=fc["vocab_min_freq"], max_size=fc["vocab_max_size"])
    featurizer = LyricsFeaturizer(vocab, fc["max_lines"], fc["max_tokens"])
    ds = LyricsDataset(songs, featurizer, cfg["seed"], fc["max_lines"])
    collator = LyricsCollator(vocab.pad_index, fc["max_lines"], LyricsFeaturizer.N_LINE_FEATS)
    model = GenreClassifier(len(vocab), LyricsFeaturizer.N_LINE_FEATS, len(c["genres"]),
                            tc["embed_dim"], tc["hidden_dim"], vocab.pad_index)
    meter = Meter()
    trainer = Trainer(model, ds, collator, dict(tc, seed=cfg["seed"]), meter)
    acc = trainer.train()
    meter.report(extra={"train_acc": acc, "vocab_size": len(vocab), "rhyme_tails": len(featurizer.tails)})


if __name__ == "__main__":
    main()
