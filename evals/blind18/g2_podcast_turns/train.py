"""Podcast genre classifier on speaker-tagged transcript windows.

Transcripts come as exported by a diarising ASR service, one turn a line:

    [00:12:05] ALEX (host): Um, so so the the thing is, Dr. Reyes said 3.5 percent.

The text pipeline (speaker tags, disfluency removal, rule-based sentence segmentation, vocabulary
lookup with hashed out-of-vocabulary buckets) feeds an IterableDataset of random sentence windows.

    python train.py --config podcast.json
"""
import argparse
import json
import re

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset

import evalkit

PAD, UNK, SEP = 0, 1, 2
SPECIALS = ["<pad>", "<unk>", "<sep>", "<spk:host>", "<spk:guest>", "<spk:caller>"]
ROLE_TAG = {"host": 3, "guest": 4, "caller": 5}

LINE_RE = re.compile(r"^\[(\d{2}):(\d{2}):(\d{2})\]\s+([A-Z][A-Z_ .'-]*?)\s+\((host|guest|caller)\):\s*(.*)$")
FILLER_RE = re.compile(r"\b(?:u+m+|u+h+|e+r+m*|hmm+)\b[,.]?\s*", re.IGNORECASE)
TOKEN_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|\d+\.\d+|[.,?!;]")
ABBREVIATIONS = {"dr.", "mr.", "mrs.", "ms.", "prof.", "e.g.", "i.e.", "vs.", "etc.", "u.s.", "st."}

COMMON = ("the a and to of in that it is was i you we they so but like just know think really "
          "what about with this have be on for not do are there right yeah well because if one "
          "people can would more when time said thing things get make going out about very").split()
GENRE_WORDS = [
    "market stock rates inflation budget earnings revenue startup investors quarter growth".split(),
    "election senate policy vote campaign congress governor debate ballot district reform".split(),
    "protein genome cells vaccine trial neurons climate carbon species telescope orbit".split(),
    "season coach playoff striker league transfer injury defense quarterback inning draft".split(),
]
NAMES = ["ALEX", "SAM", "JORDAN", "PRIYA", "MARCUS", "LENA", "DR. REYES", "KOJI", "O'BRIEN"]


# --------------------------------------------------------------------------------------------
# synthetic transcripts
# --------------------------------------------------------------------------------------------
def synth_episode(rng, genre, n_turns):
    host, guest, caller = rng.choice(NAMES, size=3, replace=False)
    t = int(rng.integers(0, 120))
    lines = []
    for _ in range(n_turns):
        role = ["host", "guest", "caller"][int(rng.choice(3, p=[0.45, 0.45, 0.10]))]
        name = {"host": host, "guest": guest, "caller": caller}[role]
        sentences = []
        for _ in range(int(rng.integers(1, 4))):
            words = []
            for _ in range(int(rng.integers(4, 16))):
                r = rng.random()
                if r < 0.07:
                    words.append(str(rng.choice(["um", "uh", "Um,", "uh,", "erm", "hmm"])))
                elif r < 0.12 and words:
                    words.append(words[-1])  # stutter / repeated word
                elif r < 0.30:
                    words.append(str(rng.choice(GENRE_WORDS[genre])))
                elif r < 0.36:
                    # rare words: names, jargon, misspellings -> out of vocabulary
                    words.append("".join(rng.choice(list("abcdefghiklmnoprstuvwyz"), size=int(rng.integers(4, 10)))))
                elif r < 0.38:
                    words.append(str(rng.choice(["Dr.", "Mr.", "e.g.", "U.S.", "vs."])))
                elif r < 0.40:
                    words.append(f"{int(rng.integers(0, 100))}.{int(rng.integers(0, 10))}")
                else:
                    words.append(str(rng.choice(COMMON)))
            words[0] = words[0].capitalize()
            sentences.append(" ".join(words) + str(rng.choice([".", ".", ".", "?", "!"])))
        t += int(rng.integers(2, 40))
        hh, mm, ss = t // 3600, (t // 60) % 60, t % 60
        lines.append(f"[{hh:02d}:{mm:02d}:{ss:02d}] {name} ({role}): {' '.join(sentences)}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# text pipeline
# --------------------------------------------------------------------------------------------
def fnv1a_32(text):
    h = 0x811C9DC5
    for byte in text.encode("utf-8"):
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


class Vocabulary:
    def __init__(self, words, oov_buckets):
        self.itos = list(SPECIALS) + list(words)
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.oov_buckets = oov_buckets

    def __len__(self):
        return len(self.itos) + self.oov_buckets

    def lookup(self, token):
        idx = self.stoi.get(token)
        if idx is not None:
            return idx
        return len(self.itos) + fnv1a_32(token) % self.oov_buckets


def remove_disfluencies(text):
    text = FILLER_RE.sub("", text)
    kept, prev = [], None
    for word in text.split():
        key = word.lower().strip(",;")
        if key == prev:
            continue
        kept.append(word)
        prev = key
    return " ".join(kept)


def split_sentences(text):
    sentences, current = [], []
    for word in text.split():
        current.append(word)
        low = word.lower()
        if low[-1:] in ".?!" and low not in ABBREVIATIONS and not re.fullmatch(r"\d+\.\d*", low):
            sentences.append(" ".join(current))
            current = []
    if current:
        sentences.append(" ".join(current))
    return sentences


def parse_transcript(raw, vocab):
    """-> list of (role, timestamp_s, token ids) sentences, in transcript order."""
    out = []
    for line in raw.splitlines():
        m = LINE_RE.match(line.strip())
        if m is None:
            continue
        hh, mm, ss, _name, role, text = m.groups()
        stamp = int(hh) * 3600 + int(mm) * 60 + int(ss)
        for sent in split_sentences(remove_disfluencies(text)):
            ids = [vocab.lookup(tok) for tok in TOKEN_RE.findall(sent.lower())]
            if ids:
                out.append((role, stamp, ids))
    return out


class TranscriptWindows(IterableDataset):
    """Random windows of consecutive sentences, with a speaker tag at every turn change."""

    def __init__(self, episodes, labels, vocab, cfg, seed):
        self.episodes = episodes
        self.labels = labels
        self.vocab = vocab
        self.max_len = cfg["max_len"]
        self.max_sentences = cfg["max_sentences"]
        self.word_dropout = cfg["word_dropout"]
        self.samples_per_epoch = cfg["samples_per_epoch"]
        self.rng = np.random.default_rng(seed)

    def build_window(self, sentences, start, n_sent):
        ids, prev_role, turns = [], None, 0
        for role, _stamp, sent_ids in sentences[start:start + n_sent]:
            if role != prev_role:
                ids.append(ROLE_TAG[role])
                prev_role, turns = role, turns + 1
            keep = self.rng.random(len(sent_ids)) >= self.word_dropout
            ids.extend(t for t, k in zip(sent_ids, keep) if k)
            ids.append(SEP)
            if len(ids) >= self.max_len:
                break
        return ids[:self.max_len], turns

    def __iter__(self):
        for _ in range(self.samples_per_epoch):
            ep = int(self.rng.integers(len(self.episodes)))
            sentences = parse_transcript(self.episodes[ep], self.vocab)
            n_sent = int(self.rng.integers(3, self.max_sentences + 1))
            start = int(self.rng.integers(0, len(sentences) - n_sent + 1))
            ids, turns = self.build_window(sentences, start, n_sent)
            yield {"input_ids": ids, "label": self.labels[ep], "turns": turns}


def collate(samples):
    longest = max(len(s["input_ids"]) for s in samples)
    input_ids = torch.full((len(samples), longest), PAD, dtype=torch.long)
    for i, s in enumerate(samples):
        input_ids[i, :len(s["input_ids"])] = torch.tensor(s["input_ids"], dtype=torch.long)
    return {
        "input_ids": input_ids,
        "attention_mask": (input_ids != PAD).long(),
        "labels": torch.tensor([s["label"] for s in samples], dtype=torch.long),
        "turns": torch.tensor([s["turns"] for s in samples], dtype=torch.long),
    }


class BagClassifier(nn.Module):
    def __init__(self, vocab_len, dim, n_classes):
        super().__init__()
        self.embed = nn.Embedding(vocab_len, dim, padding_idx=PAD)
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, n_classes))

    def forward(self, input_ids, attention_mask):
        mask = attention_mask.unsqueeze(-1).float()
        pooled = (self.embed(input_ids) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.proj(pooled)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    rng = np.random.default_rng(cfg["seed"])

    dcfg = cfg["data"]
    genres = [int(g) for g in rng.integers(0, 4, dcfg["num_episodes"])]
    episodes = [synth_episode(rng, g, dcfg["turns_per_episode"]) for g in genres]
    # vocabulary: the most frequent words of the corpus, ties broken alphabetically
    counts = {}
    for raw in episodes:
        for tok in TOKEN_RE.findall(raw.lower()):
            counts[tok] = counts.get(tok, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:dcfg["vocab_size"]]
    vocab = Vocabulary([w for w, _ in top], dcfg["oov_buckets"])

    dataset = TranscriptWindows(episodes, genres, vocab, dcfg, cfg["seed"] + 1)
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"],
                        num_workers=cfg["loader"]["num_workers"], collate_fn=collate)
    model = BagClassifier(len(vocab), cfg["model"]["embed_dim"], cfg["model"]["num_classes"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"])
    meter = evalkit.Meter()

    step, epoch, turns_total = 0, 0, 0
    max_steps = cfg["optim"]["max_steps"]
    while step < max_steps and not meter.done():
        epoch += 1
        for batch in loader:  # a fresh iterator each epoch
            meter.batch(batch)
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = nn.functional.cross_entropy(logits, batch["labels"])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            turns_total += int(batch["turns"].sum())
            step += 1
            if step >= max_steps or meter.done():
                break
    meter.report({"epochs": epoch, "turns_total": turns_total, "vocab_len": len(vocab)})


if __name__ == "__main__":
    main()
