"""fastText-style CPC section classifier for patent abstracts and claims.

Text is normalised with regular expressions (reference numerals, figure and patent citations,
numbers), split into words, and each word contributes its own bucket plus the buckets of its
character n-grams (of "<word>", minn..maxn) under a polynomial rolling hash, as fastText does;
word bigrams are hashed too. An EmbeddingBag averages the buckets.
"""
import argparse
import json
import random
import re

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit

SECTIONS = "ABCDEFGH"
MOD = (1 << 61) - 1
BASE = 1_000_003

# ---------------------------------------------------------------- synthetic corpus

_ONSETS = ["b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "tr", "pr", "st", "ch", "ph",
           "th", "gr", "cl", "fl", "sp"]
_NUCLEI = ["a", "e", "i", "o", "u", "io", "ea", "ou", "y"]
_SUFFIXES = ["", "", "", "tion", "ment", "ing", "ed", "al", "ic", "ive", "er", "ate", "ity", "able", "ous", "ly"]
_TEMPLATES = [
    "{n}. A {w} {w} comprising: a {w} ({num}) coupled to the {w} {w} ({num}a); and a {w} configured to {w} the {w}.",
    "The {w} {w} of claim {k}, wherein the {w} is {w} at {pct}% of the {w} {w}.",
    "As shown in FIG. {k}, the {w} ({num}) and the {w} {w} ({num}) are {w} by a {w} {w}.",
    "Prior art such as {cc} {yr}/{pub} A1 and {cc} {pat} B2 discloses a {w} {w} without {w}.",
    "In some embodiments, the {w} {w} has a {w} of about {dec} mm and a {w} of {num} {w}.",
    "A method of {w} a {w}, the method comprising {w} the {w} {w} and {w} a {w} {w}.",
]


def _make_vocab(rng, size):
    words = set()
    while len(words) < size:
        n_syll = int(rng.integers(2, 5))
        w = "".join(str(rng.choice(_ONSETS)) + str(rng.choice(_NUCLEI)) for _ in range(n_syll))
        words.add(w + str(rng.choice(_SUFFIXES)))
    return sorted(words)


def make_corpus(n_docs, vocab_size, min_words, max_words, seed):
    rng = np.random.default_rng(seed)
    vocab = _make_vocab(rng, vocab_size)
    ranks = np.arange(1, vocab_size + 1)
    base = 1.0 / ranks ** 1.05
    topics = []
    for _ in SECTIONS:
        boost = np.ones(vocab_size)
        boost[rng.choice(vocab_size, 120, replace=False)] = 25.0
        p = base * boost
        topics.append(p / p.sum())
    docs, labels = [], []
    for _ in range(n_docs):
        label = int(rng.integers(len(SECTIONS)))
        target = int(rng.integers(min_words, max_words))
        draws = iter(rng.choice(vocab_size, size=target + 40, p=topics[label]).tolist())
        caps = iter((rng.random(target + 40) < 0.05).tolist())
        parts, n_words = [], 0
        while n_words < target:
            tpl = _TEMPLATES[int(rng.integers(len(_TEMPLATES)))]
            out = []
            for piece in re.split(r"(\{\w+\})", tpl):
                if piece == "{w}":
                    word = vocab[next(draws)]
                    out.append(word.capitalize() if next(caps) else word)
                    n_words += 1
                elif piece == "{n}" or piece == "{k}":
                    out.append(str(int(rng.integers(1, 21))))
                elif piece == "{num}":
                    out.append(str(int(rng.integers(10, 400))))
                elif piece == "{pct}":
                    out.append(f"{rng.uniform(0.5, 99):.1f}")
                elif piece == "{dec}":
                    out.append(f"{rng.uniform(0.01, 50):.2f}")
                elif piece == "{cc}":
                    out.append(str(rng.choice(["US", "EP", "WO"])))
                elif piece == "{yr}":
                    out.append(str(int(rng.integers(1995, 2024))))
                elif piece == "{pub}":
                    out.append(f"{int(rng.integers(0, 999999)):07d}")
                elif piece == "{pat}":
                    out.append(f"{int(rng.integers(5_000_000, 11_999_999)):,}")
                else:
                    out.append(piece)
            parts.append("".join(out))
        docs.append("  ".join(parts))
        labels.append(label)
    return docs, labels


# ---------------------------------------------------------------- tokenizer

_RE_REFNUM = re.compile(r"\(\s*\d+[a-z]?\s*\)")
_RE_FIG = re.compile(r"\bfigs?\.\s*\d+[a-z]?\b", re.IGNORECASE)
_RE_PATENT = re.compile(r"\b(?:US|EP|WO)\s*(?:\d{4}/\d{7}|\d{1,3}(?:,\d{3})+)\s*[AB]\d\b")
_RE_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")
_RE_NONWORD = re.compile(r"[^a-z<>]+")


def normalize(text):
    text = _RE_REFNUM.sub(" ", text)
    text = _RE_FIG.sub(" fig ", text)
    text = _RE_PATENT.sub(" patref ", text)
    text = _RE_NUMBER.sub(" <num> ", text)
    text = _RE_NONWORD.sub(" ", text.lower())
    return text.split()


def rolling_hash(s):
    h = 0
    for ch in s:
        h = (h * BASE + ord(ch)) % MOD
    return h


class HashingNgramTokenizer:
    """fastText-like features: word bucket, then char n-gram buckets, then word n-gram buckets."""

    def __init__(self, n_buckets, minn, maxn, word_ngrams):
        self.n_buckets = n_buckets
        self.minn, self.maxn = minn, maxn
        self.word_ngrams = word_ngrams

    def char_ngrams(self, word):
        padded = "<" + word + ">"
        grams = []
        for n in range(self.minn, self.maxn + 1):
            for i in range(len(padded) - n + 1):
                gram = padded[i:i + n]
                if gram != padded:
                    grams.append(rolling_hash(gram) % self.n_buckets)
        return grams

    def encode(self, words):
        ids = []
        hashes = []
        for word in words:
            h = rolling_hash(word)
            hashes.append(h)
            ids.append(h % self.n_buckets)
            ids.extend(self.char_ngrams(word))
        for n in range(2, self.word_ngrams + 1):
            for i in range(len(hashes) - n + 1):
                h = 0
                for j in range(i, i + n):
                    h = (h * 116049371 + hashes[j]) % MOD
                ids.append(h % self.n_buckets)
        return ids


class PatentDataset(Dataset):
    def __init__(self, docs, labels, tokenizer, word_dropout, max_features, seed):
        self.docs, self.labels = docs, labels
        self.tokenizer = tokenizer
        self.word_dropout = word_dropout
        self.max_features = max_features
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.docs)

    def __getitem__(self, idx):
        words = normalize(self.docs[idx])
        if self.word_dropout > 0:
            words = [w for w in words if self.rng.random() >= self.word_dropout]
        ids = self.tokenizer.encode(words)[: self.max_features]
        return {"input_ids": ids, "label": self.labels[idx]}


class DataCollatorForBags:
    """(labels, flat ids, offsets) for nn.EmbeddingBag, HF-collator style."""

    def __call__(self, features):
        lengths = [len(f["input_ids"]) for f in features]
        offsets = torch.tensor([0] + lengths[:-1], dtype=torch.long).cumsum(0)
        flat = torch.tensor([i for f in features for i in f["input_ids"]], dtype=torch.long)
        labels = torch.tensor([f["label"] for f in features], dtype=torch.long)
        return labels, flat, offsets


class FastTextClassifier(nn.Module):
    def __init__(self, n_buckets, dim, n_classes):
        super().__init__()
        self.bag = nn.EmbeddingBag(n_buckets, dim, mode="mean", sparse=True)
        self.fc = nn.Linear(dim, n_classes)
        nn.init.uniform_(self.bag.weight, -1.0 / dim, 1.0 / dim)
        nn.init.zeros_(self.fc.weight)
        nn.init.zeros_(self.fc.bias)

    def forward(self, input_ids, offsets):
        return self.fc(self.bag(input_ids, offsets))


class Trainer:
    def __init__(self, model, train_dataset, data_collator, args, seed):
        self.model, self.train_dataset, self.data_collator, self.args = model, train_dataset, data_collator, args
        self.generator = torch.Generator().manual_seed(seed)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=args["lr"])
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: max(0.0, 1.0 - s / args["max_steps"]))
        self.meter = evalkit.Meter()
        self.state = {"global_step": 0, "epoch": 0, "log_history": []}

    def get_train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=self.args["batch_size"], shuffle=True,
                          num_workers=self.args["num_workers"], collate_fn=self.data_collator,
                          generator=self.generator, drop_last=True)

    def training_step(self, batch):
        labels, input_ids, offsets = batch
        logits = self.model(input_ids, offsets)
        loss = F.cross_entropy(logits, labels)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        self.scheduler.step()
        return loss, (logits.argmax(1) == labels).float().mean().item()

    def train(self):
        self.model.train()
        it = iter(self.get_train_dataloader())
        running = []
        while self.state["global_step"] < self.args["max_steps"] and not self.meter.done():
            try:
                batch = next(it)
            except StopIteration:
                self.state["epoch"] += 1
                it = iter(self.get_train_dataloader())
                continue
            self.meter.batch(batch)
            loss, acc = self.training_step(batch)
            self.meter.step(loss)
            self.state["global_step"] += 1
            running.append(acc)
            if self.state["global_step"] % self.args["logging_steps"] == 0:
                entry = {"step": self.state["global_step"], "loss": round(loss.item(), 4),
                         "acc": sum(running) / len(running)}
                self.state["log_history"].append(entry)
                print(json.dumps(entry))
                running = []
        return self.state


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="fasttext_cpc.json")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    seed = cfg["seed"]
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    docs, labels = make_corpus(seed=seed, **cfg["corpus"])
    f = cfg["features"]
    tokenizer = HashingNgramTokenizer(f["n_buckets"], f["minn"], f["maxn"], f["word_ngrams"])
    dataset = PatentDataset(docs, labels, tokenizer, f["word_dropout"], f["max_features"], seed)
    model = FastTextClassifier(f["n_buckets"], cfg["model"]["dim"], len(SECTIONS))
    trainer = Trainer(model, dataset, DataCollatorForBags(), cfg["trainer"], seed)
    state = trainer.train()
    trainer.meter.report(extra={"epochs": state["epoch"], "log_history": state["log_history"]})


if __name__ == "__main__":
    main()
