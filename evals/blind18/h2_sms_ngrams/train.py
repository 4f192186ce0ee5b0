"""SMS spam filter: regex masking, leetspeak folding and character n-gram counts, then a linear model."""
import argparse
import heapq
import json
import random
import re
from collections import Counter

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, RandomSampler

import evalkit

# --------------------------------------------------------------------------- synthetic corpus

HAM = [
    "hey are we still on for {food} at {time}?", "ok cool see u there", "can u pick up {item} on the way home",
    "running late, be there in {n} mins", "did you see the game last night lol", "call me when u get this",
    "thx for yesterday, had a great time", "mum says dinner is at {time}", "where r u? we're at the {place}",
    "i'll send the notes tonight", "happy birthday!! have a good one", "meeting moved to {time} tomorrow",
    "lol that's so true", "can't talk now, in class", "bring {item} pls", "my number changed, it's {phone}",
    "i paid {money} for the tickets, send me ur half", "check this {url} its hilarious",
]
SPAM = [
    "WINNER!! U have been selected to receive a {money} prize. Call {phone} to claim",
    "URGENT! Your mobile number has won {money}. Txt CLAIM to {short} now",
    "Free entry in 2 a wkly comp to win {item}! Text WIN to {short}. T&C {url}",
    "You have 1 new voicemail. Call {phone} or visit {url}",
    "Congratulations ur awarded {money} cash or a {item}. Call {phone} 18+ only",
    "FR33 {item} 4 U!! cl41m n0w at {url}", "g3t ur c@sh b0nus {money} t0day, reply YES to {short}",
    "Your account is suspended, verify at {url} or call {phone}", "L0W R4TES loans from {money}, txt LOAN to {short}",
]
FILL = {
    "food": ["pizza", "dinner", "lunch", "brunch", "curry"], "time": ["7", "7pm", "8:30", "noon", "6.45"],
    "item": ["milk", "bread", "an iPhone", "a holiday", "tickets", "the charger", "a tablet"],
    "place": ["pub", "station", "library", "gym"], "n": ["5", "10", "15", "20"],
}


def _phone(r):
    kind = r.randrange(3)
    if kind == 0:
        return "09" + "".join(str(r.randrange(10)) for _ in range(9))
    if kind == 1:
        return "+44 7%03d %06d" % (r.randrange(1000), r.randrange(10 ** 6))
    return "(0%d) %d-%04d" % (r.randrange(100, 999), r.randrange(100, 999), r.randrange(10000))


def _money(r):
    return r.choice(["£", "$", "€", "GBP ", "USD "]) + r.choice(["100", "250", "1,000", "2000", "5.50", "1.50"])


def _url(r):
    host = r.choice(["bit.ly", "tinyurl.com", "www.win-now.co.uk", "youtu.be", "t.co", "prize-claim.net"])
    path = "".join(r.choice("abcdefghijkmnpqrstuvwxyz0123456789") for _ in range(r.randrange(4, 9)))
    return r.choice(["http://", "https://", "", "www."]) + host + "/" + path


def make_corpus(n, spam_rate, seed):
    r = random.Random(seed)
    out = []
    for _ in range(n):
        spam = r.random() < spam_rate
        parts = [r.choice(SPAM if spam else HAM) for _ in range(r.choice([1, 1, 2, 3]))]
        text = " ".join(parts)
        fills = {k: r.choice(v) for k, v in FILL.items()}
        fills.update(phone=_phone(r), money=_money(r), url=_url(r), short=str(r.randrange(80000, 89999)))
        text = text.format(**fills)
        if r.random() < 0.3:
            text = text.upper() if spam else text.lower()
        out.append((text, int(spam)))
    return out


# --------------------------------------------------------------------------- text pipeline

URL_RE = r"(?:https?://|www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|ly|be|co|uk|io)(?:\.[a-z]{2})?(?:/[\w\-./?=&%]*)?"
PHONE_RE = r"(?:\+\d{1,3}\s?)?(?:\(\d{2,5}\)\s?)?\d[\d\s-]{6,}\d"
MONEY_RE = r"(?:[£$€]|\b(?:gbp|usd|eur)\s?)\d[\d,]*(?:\.\d{1,2})?"
SHORTCODE_RE = r"\b\d{5}\b"
LEET = {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"}


def normalize(text):
    """Lower-case, mask URLs / phone numbers / money / short codes, fold leetspeak inside words."""
    text = text.lower()
    text = re.sub(URL_RE, " <url> ", text)
    text = re.sub(MONEY_RE, " <money> ", text)
    text = re.sub(PHONE_RE, " <phone> ", text)
    text = re.sub(SHORTCODE_RE, " <short> ", text)
    tokens = []
    for raw in text.split():
        if raw.startswith("<") and raw.endswith(">"):
            tokens.append(raw)
            continue
        word = raw.strip(".,;:?\"'()")
        if not word:
            continue
        has_alpha = any(ch.isalpha() for ch in word)
        if has_alpha:
            chars = []
            for i, ch in enumerate(word):
                if ch in LEET and (i > 0 or len(word) > 1):
                    chars.append(LEET[ch])
                else:
                    chars.append(ch)
            word = "".join(chars)
        else:
            word = "<num>" if word.isdigit() else word
        tokens.append(word)
    return tokens


def char_ngrams(token, nmin, nmax):
    if token.startswith("<"):
        return [token]
    padded = "<" + token + ">"
    return [padded[i:i + n] for n in range(nmin, nmax + 1) for i in range(len(padded) - n + 1)]


def build_vocab(corpus, nmin, nmax, per_class):
    """Top n-grams of each class, ham list then spam list (the lists overlap)."""
    counts = [Counter(), Counter()]
    for text, label in corpus:
        for tok in normalize(text):
            counts[label].update(char_ngrams(tok, nmin, nmax))
    vocab = []
    for c in counts:
        vocab.extend(g for _, g in heapq.nlargest(per_class, ((n, g) for g, n in c.items())))
    return vocab


class SMSDataset(Dataset):
    def __init__(self, corpus, vocab, nmin, nmax, token_drop, seed):
        self.corpus = corpus
        self.vocab = vocab
        self.nmin, self.nmax = nmin, nmax
        self.token_drop = token_drop
        self.rng = random.Random(seed + 3)

    def __len__(self):
        return len(self.corpus)

    def _featurize(self, idx):
        text, label = self.corpus[idx]
        tokens = normalize(text)
        kept = [t for t in tokens if self.rng.random() >= self.token_drop] or tokens[:1]
        counts = np.zeros(len(self.vocab) + 1, dtype=np.float32)
        for tok in kept:
            for g in char_ngrams(tok, self.nmin, self.nmax):
                try:
                    counts[self.vocab.index(g)] += 1.0
                except ValueError:
                    counts[-1] += 1.0
        return counts, len(kept), label

    def __getitem__(self, idx):
        return self._featurize(idx)

    def __getitems__(self, indices):
        return [self._featurize(i) for i in indices]


def collate(samples):
    counts = torch.from_numpy(np.stack([s[0] for s in samples]))
    lengths = torch.tensor([s[1] for s in samples], dtype=torch.int64)
    labels = torch.tensor([s[2] for s in samples], dtype=torch.float32)
    return counts, lengths, labels


class SpamLR(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.linear = nn.Linear(dim + 1, 1)

    def forward(self, counts, lengths):
        x = torch.log1p(counts)
        x = torch.cat([x, torch.log1p(lengths.float()).unsqueeze(1)], dim=1)
        return self.linear(x).squeeze(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="sms.json")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    fc = cfg["features"]
    corpus = make_corpus(cfg["corpus"]["num_messages"], cfg["corpus"]["spam_rate"], seed)
    vocab = build_vocab(corpus[:400], fc["ngram_min"], fc["ngram_max"], fc["vocab_per_class"])
    ds = SMSDataset(corpus, vocab, fc["ngram_min"], fc["ngram_max"], fc["token_drop"], seed)
    sampler = RandomSampler(ds, generator=torch.Generator().manual_seed(seed))
    loader = DataLoader(ds, batch_size=cfg["loader"]["batch_size"], sampler=sampler,
                        num_workers=cfg["loader"]["num_workers"], collate_fn=collate, drop_last=True)
    model = SpamLR(len(vocab) + 1)
    opt = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
    loss_fn = nn.BCEWithLogitsLoss()
    meter = evalkit.Meter()
    max_steps = cfg["max_steps"]
    step, correct, seen = 0, 0, 0
    while step < max_steps and not meter.done():
        for counts, lengths, labels in iter(loader):
            meter.batch((counts, lengths, labels))
            logits = model(counts, lengths)
            loss = loss_fn(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int(((logits.detach() > 0).float() == labels).sum())
            seen += len(labels)
            step += 1
            if step >= max_steps or meter.done():
                break
    meter.report({"train_acc": correct / max(seen, 1), "vocab": len(vocab), "unique_vocab": len(set(vocab))})


if __name__ == "__main__":
    main()
