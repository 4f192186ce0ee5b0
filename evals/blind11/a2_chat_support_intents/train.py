#!/usr/bin/env python
"""Intent classification for chat-support messages: a bag-of-embeddings baseline.

Messages arrive as raw chat text: emoji, links, full-width characters from mobile keyboards,
decomposed accents. They are normalised (NFKC, URLs and e-mails replaced, emoji stripped,
accents folded, case folded), split into words, and mapped to ids with a fitted vocabulary;
out-of-vocabulary words go to FNV-1a hashed buckets so that order numbers and names still
get an embedding.
"""
import argparse
import json
import random
import re
import unicodedata
from bisect import bisect_right
from collections import Counter

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset

import evalkit

INTENTS = ["billing", "shipping", "refund", "login", "cancel", "technical", "product", "feedback"]

URL_RE = re.compile(r"(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
EMAIL_RE = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
REPEAT_RE = re.compile(r"(\w)\1{2,}")
WORD_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
SPACE_RE = re.compile(r"\s+")

# Emoji blocks (start, end) sorted by start; checked with bisect per character.
EMOJI_RANGES = [
    (0x2190, 0x21FF), (0x2300, 0x23FF), (0x2460, 0x24FF), (0x25A0, 0x27BF), (0x2900, 0x297F),
    (0x2B00, 0x2BFF), (0x3030, 0x3030), (0x303D, 0x303D), (0x3297, 0x3299), (0xFE00, 0xFE0F),
    (0x1F000, 0x1F02F), (0x1F0A0, 0x1F0FF), (0x1F100, 0x1F1FF), (0x1F200, 0x1F2FF),
    (0x1F300, 0x1F5FF), (0x1F600, 0x1F64F), (0x1F680, 0x1F6FF), (0x1F700, 0x1F77F),
    (0x1F900, 0x1F9FF), (0x1FA70, 0x1FAFF), (0xE0020, 0xE007F),
]
EMOJI_STARTS = [lo for lo, _ in EMOJI_RANGES]
ZWJ = "\u200d"

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK64 = (1 << 64) - 1


def fnv1a_64(word):
    h = FNV_OFFSET
    for byte in word.encode("utf-8"):
        h ^= byte
        h = (h * FNV_PRIME) & MASK64
    return h


def is_emoji(ch):
    cp = ord(ch)
    i = bisect_right(EMOJI_STARTS, cp) - 1
    if i >= 0 and cp <= EMOJI_RANGES[i][1]:
        return True
    return ch == ZWJ or unicodedata.category(ch) == "So"


class SupportTokenizer:
    pad_id = 0
    unk_url = "xxurl"
    unk_email = "xxemail"

    def __init__(self, min_count=3, oov_buckets=2048):
        self.min_count = min_count
        self.oov_buckets = oov_buckets
        self.vocab = {}

    def normalize(self, text):
        text = unicodedata.normalize("NFKC", text)
        text = URL_RE.sub(f" {self.unk_url} ", text)
        text = EMAIL_RE.sub(f" {self.unk_email} ", text)
        text = "".join(" " if is_emoji(ch) else ch for ch in text)
        text = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
        text = text.casefold()
        text = REPEAT_RE.sub(r"\1\1", text)
        return SPACE_RE.sub(" ", text).strip()

    def words(self, text):
        return WORD_RE.findall(self.normalize(text))

    def fit(self, texts):
        counts = Counter(w for t in texts for w in self.words(t))
        kept = sorted((w for w, c in counts.items() if c >= self.min_count), key=lambda w: (-counts[w], w))
        self.vocab = {w: i + 1 for i, w in enumerate(kept)}  # 0 is padding
        return self

    @property
    def size(self):
        return len(self.vocab) + 1 + self.oov_buckets

    def word_id(self, word):
        idx = self.vocab.get(word)
        if idx is not None:
            return idx
        return len(self.vocab) + 1 + fnv1a_64(word) % self.oov_buckets

    def encode(self, text):
        return [self.word_id(w) for w in self.words(text)]


# ---------------------------------------------------------------- synthetic chat logs
GREETINGS = ["hi", "hello", "hey there", "Hi team", "good morning", "Hellooo", "hola", "Bonjour"]
EMOJI = ["\U0001F600", "\U0001F64F", "\U0001F44D", "\U0001F621", "\u2764\ufe0f", "\U0001F622", "\U0001F914",
         "\U0001F680", "\U0001F1EB\U0001F1F7", "\U0001F468\u200d\U0001F4BB", "\u2705", "\u26A0\ufe0f"]
SNIPPETS = {
    "billing": ["i was charged twice for my subscription", "the invoice shows the wrong amount",
                "why is there an extra fee on my card", "my payment failed but money left the account"],
    "shipping": ["my package has not arrived yet", "the tracking number does not work",
                 "the parcel is stuck at the depot", "delivery was supposed to be yesterday"],
    "refund": ["i want my money back for this order", "when will the refund be processed",
               "i returned the item two weeks ago and got nothing", "please refund the damaged product"],
    "login": ["i cannot log in to my account", "the password reset email never comes",
              "two factor code is rejected", "my account is locked after too many attempts"],
    "cancel": ["please cancel my subscription", "how do i close my account",
               "stop the renewal before next month", "i want to cancel the order i just placed"],
    "technical": ["the app crashes when i open the cart", "the page shows error 500",
                  "checkout button does nothing on android", "images do not load on the website"],
    "product": ["is this jacket available in size m", "does the blender come with a warranty",
                "what is the difference between the two models", "can i get the red version"],
    "feedback": ["great service thank you so much", "the delivery guy was really rude",
                 "love the new design of the app", "your support team is awesome"],
}
FILLER = ["also", "btw", "pls", "asap", "thanks", "honestly", "again", "today", "right now", "urgent",
          "for the third time", "as soon as possible", "cheers", "ty", "lol", "seriously"]
NAMES = ["José", "Zoë", "François", "Müller", "Ana", "Łukasz", "Søren", "Chloé", "Nuñez", "Ålesund"]


def _fullwidth(s):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


def _typo(rng, word):
    if len(word) < 4:
        return word
    i = rng.randrange(1, len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def make_message(rng, intent):
    parts = [rng.choice(GREETINGS) + rng.choice([",", "!", "", " " + rng.choice(EMOJI)])]
    for _ in range(rng.randint(3, 8)):
        s = rng.choice(SNIPPETS[intent if rng.random() < 0.8 else rng.choice(INTENTS)])
        words = [(_typo(rng, w) if rng.random() < 0.06 else w) for w in s.split()]
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words) + 1), rng.choice(FILLER))
        sentence = " ".join(words)
        if rng.random() < 0.15:
            sentence = sentence.upper()
        if rng.random() < 0.1:
            sentence = _fullwidth(sentence)
        parts.append(sentence + rng.choice([".", "!!", "?", "...", " " + rng.choice(EMOJI) * rng.randint(1, 6)]))
    if rng.random() < 0.5:
        parts.append(f"order #{rng.randint(10000, 99999)}-{rng.choice('ABCDEFGH')}{rng.randint(0, 9)}")
    if rng.random() < 0.4:
        parts.append(f"see https://shop.example.com/orders/{rng.randint(10**6, 10**7)}?ref=app&utm={rng.random():.4f}")
    if rng.random() < 0.2:
        parts.append(f"reach me at {rng.choice(NAMES).lower()}.{rng.randint(1, 99)}@mail.example.org")
    name = rng.choice(NAMES)
    if rng.random() < 0.5:
        name = unicodedata.normalize("NFD", name)
    parts.append(rng.choice(["thx", "regards", "best", "--"]) + "\u00a0" + name)
    return "\n".join(parts) if rng.random() < 0.3 else " ".join(parts)


def make_corpus(n, seed):
    rng = random.Random(seed)
    labels = [rng.randrange(len(INTENTS)) for _ in range(n)]
    return [make_message(rng, INTENTS[y]) for y in labels], labels


# ---------------------------------------------------------------- data pipeline
class ChatStream(IterableDataset):
    """Streams (message, intent) pairs in a per-epoch shuffled order, tokenised on the fly."""

    def __init__(self, texts, labels, tokenizer, max_length, word_dropout, seed):
        self.texts = texts
        self.labels = labels
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.word_dropout = word_dropout
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.texts)

    def __iter__(self):
        rng = random.Random(self.seed * 1000 + self.epoch)
        order = list(range(len(self.texts)))
        rng.shuffle(order)
        for idx in order:
            ids = self.tokenizer.encode(self.texts[idx])
            kept = [t for t in ids if rng.random() >= self.word_dropout]
            if not kept:
                kept = ids[:1] or [self.tokenizer.pad_id]
            if len(kept) > self.max_length:
                start = rng.randrange(len(kept) - self.max_length + 1)
                kept = kept[start:start + self.max_length]
            yield {"input_ids": kept, "label": self.labels[idx]}


def pad_collate(features):
    lengths = torch.tensor([len(f["input_ids"]) for f in features], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.tensor([f["input_ids"] + [0] * (longest - len(f["input_ids"])) for f in features],
                             dtype=torch.long)
    mask = torch.arange(longest)[None, :] < lengths[:, None]
    return {"input_ids": input_ids, "attention_mask": mask,
            "labels": torch.tensor([f["label"] for f in features], dtype=torch.long)}


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab_size, dim, hidden, num_labels):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, num_labels))

    def forward(self, input_ids, attention_mask):
        emb = self.embed(input_ids) * attention_mask.unsqueeze(-1)
        pooled = emb.sum(1) / attention_mask.sum(1, keepdim=True).clamp(min=1)
        return self.mlp(pooled)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)

    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    dcfg = cfg["data"]
    texts, labels = make_corpus(dcfg["num_messages"], cfg["seed"])
    tokenizer = SupportTokenizer(dcfg["min_count"], dcfg["oov_buckets"]).fit(texts[:dcfg["vocab_fit_messages"]])
    stream = ChatStream(texts, labels, tokenizer, dcfg["max_length"], dcfg["word_dropout"], cfg["seed"])
    loader = DataLoader(stream, batch_size=cfg["dataloader"]["batch_size"],
                        num_workers=cfg["dataloader"]["num_workers"], collate_fn=pad_collate)

    model = BagOfEmbeddings(tokenizer.size, cfg["model"]["embed_dim"], cfg["model"]["hidden"], len(INTENTS))
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    loss_fn = nn.CrossEntropyLoss()
    meter = evalkit.Meter()

    tokens_seen = 0
    for epoch in range(cfg["optim"]["epochs"]):
        stream.set_epoch(epoch)
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = loss_fn(logits, batch["labels"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            tokens_seen += int(batch["attention_mask"].sum())
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"vocab_size": len(tokenizer.vocab), "tokens_seen": tokens_seen})


if __name__ == "__main__":
    main()
