"""Multi-label finding extraction from clinical notes with NegEx-style negation and hashed char n-grams.

    python train.py config.json

Notes are split into sections and sentences (abbreviation aware), tokenised, matched against a
finding lexicon, and every finding inside a negation window is marked. Each token (and each matched
finding) becomes hashed character n-grams fed to an EmbeddingBag classifier. The corpus is simulated
from the seed.
"""
import json
import random
import re
import sys
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset

import evalkit

# ----------------------------------------------------------------------------- lexicon

CONCEPTS = ["chest_pain", "dyspnea", "fever", "cough", "nausea", "pneumonia", "edema", "headache",
            "diabetes", "hypertension"]
SURFACE = {
    "chest_pain": ["chest pain", "cp", "chest pressure", "substernal chest pain"],
    "dyspnea": ["shortness of breath", "sob", "dyspnea", "dyspnea on exertion"],
    "fever": ["fever", "fevers", "febrile"],
    "cough": ["cough", "productive cough", "dry cough"],
    "nausea": ["nausea", "n/v", "nausea and vomiting"],
    "pneumonia": ["pneumonia", "pna", "infiltrate"],
    "edema": ["edema", "leg swelling", "pitting edema"],
    "headache": ["headache", "ha", "migraine"],
    "diabetes": ["diabetes", "dm2", "t2dm", "diabetes mellitus"],
    "hypertension": ["hypertension", "htn", "high blood pressure"],
}
PRE_NEG = ["no", "denies", "denied", "without", "negative for", "no evidence of", "no signs of",
           "free of", "absence of", "not"]
POST_NEG = ["was ruled out", "is ruled out", "unlikely", "was negative"]
PSEUDO = ["no increase", "not only", "no change", "not certain if"]
TERMINATORS = {"but", "however", "although", "except", "aside", "which", "secondary"}
ABBREVIATIONS = {"y.o.", "pt.", "dr.", "mr.", "mrs.", "approx.", "e.g.", "i.e.", "hx.", "b.i.d.",
                 "t.i.d.", "q.d.", "vs.", "st.", "no."}
NORMALIZE = [(re.compile(p, re.I), r) for p, r in [
    (r"\bw/o\b", "without"), (r"\bw/", "with "), (r"\bs/p\b", "status post"), (r"\bc/o\b", "complains of"),
    (r"\bpt\.?(?=\s)", "patient"), (r"\bhx\.?(?=\s)", "history"), (r"\bhrs\b", "hours"),
    (r"\bwks?\b", "weeks"), (r"\bapprox\.", "approximately"), (r"\by\.o\.", "year old"),
    (r"\bb\.i\.d\.", "twice daily"), (r"\bt\.i\.d\.", "three times daily"), (r"\bq\.d\.", "daily"),
    (r"\b(\d+)\s*mg\b", r"\1 mg"), (r"\bbp\s+(\d+)/(\d+)", r"blood pressure \1 over \2"),
    (r"\bhr\s+(\d+)", r"heart rate \1"), (r"\bed\b", "emergency department"),
    (r"\bpcp\b", "primary care physician"), (r"\bf/u\b", "follow up"), (r"\bn/v\b", "nausea and vomiting"),
    (r"\bdoe\b", "dyspnea on exertion"), (r"\bdr\.", "doctor"), (r"\s+([,;:])", r"\1"),
    (r"\d", "#"), (r"\s{2,}", " "),
]]
SECTION_RE = re.compile(r"^([A-Z][A-Z /]+):\s*", re.M)
TOKEN_RE = re.compile(r"[a-z0-9]+(?:[/'.-][a-z0-9]+)*\.?|[^\sa-z0-9]")


def _phrase_table(phrases):
    table = {}
    for p in phrases:
        toks = tuple(p.split())
        table[toks] = p
    return table


FINDINGS = {tuple(s.split()): c for c, surf in SURFACE.items() for s in surf}
PRE_TABLE = _phrase_table(PRE_NEG)
POST_TABLE = _phrase_table(POST_NEG)
PSEUDO_TABLE = _phrase_table(PSEUDO)
MAX_PHRASE = max(len(k) for k in list(FINDINGS) + list(PRE_TABLE) + list(POST_TABLE) + list(PSEUDO_TABLE))

# ----------------------------------------------------------------------------- corpus


def simulate_corpus(n_notes, min_s, max_s, seed):
    rng = random.Random(seed)
    notes, labels = [], []
    for _ in range(n_notes):
        age = rng.randint(24, 91)
        sex = rng.choice(["M", "F"])
        present = sorted(rng.sample(CONCEPTS, rng.randint(1, 4)))
        absent = [c for c in CONCEPTS if c not in present]
        surf = lambda c: rng.choice(SURFACE[c])  # noqa: E731
        hpi = [f"Pt. is a {age} y.o. {sex} w/ hx. of {surf(rng.choice(CONCEPTS))} who presents to the ED."]
        for c in present:
            hpi.append(rng.choice([
                f"Reports {surf(c)} for {rng.randint(1, 9)} days.",
                f"Complains of worsening {surf(c)} since yesterday.",
                f"Pt. endorses {surf(c)}, worse at night.",
                f"Noted to have {surf(c)} on arrival, approx. {rng.randint(2, 6)} hrs ago.",
            ]))
        for _ in range(rng.randint(min_s, max_s) - len(hpi)):
            a, b = rng.sample(absent, 2) if len(absent) >= 2 else (absent[0], absent[0])
            hpi.append(rng.choice([
                f"Denies {surf(a)} or {surf(b)}.",
                f"No evidence of {surf(a)} on exam.",
                f"Negative for {surf(a)}.",
                f"{surf(a).capitalize()} was ruled out by Dr. Smith.",
                f"Has {surf(rng.choice(present))} but no {surf(a)}.",
                f"No change in {surf(rng.choice(present))} per pt.",
                f"Vitals stable, BP {rng.randint(100, 170)}/{rng.randint(60, 100)}, HR {rng.randint(55, 120)}.",
                f"Takes metformin 500 mg b.i.d. and lisinopril q.d. as prescribed.",
            ]))
        rng.shuffle(hpi)
        fh = [f"Mother with {surf(rng.choice(CONCEPTS))}.", f"Father had {surf(rng.choice(CONCEPTS))}."]
        if rng.random() < 0.5:
            fh.append(f"Negative for {surf(rng.choice(CONCEPTS))}.")
        plan = [f"Will monitor {surf(c)} and reassess." for c in present[:2]] + ["F/u with PCP in 2 wks."]
        text = ("HPI: " + " ".join(hpi) + "\nFAMILY HISTORY: " + " ".join(fh)
                + "\nASSESSMENT / PLAN: " + " ".join(plan) + "\n")
        notes.append(text)
        labels.append([1.0 if c in present else 0.0 for c in CONCEPTS])
    return notes, labels

# ----------------------------------------------------------------------------- text processing


def split_sections(note):
    """[(section name, body)] in order; text before the first header is 'PREAMBLE'."""
    out = []
    matches = list(SECTION_RE.finditer(note))
    if not matches or matches[0].start() > 0:
        out.append(("PREAMBLE", note[:matches[0].start()] if matches else note))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(note)
        out.append((m.group(1).strip(), note[m.end():end]))
    return out


def split_sentences(body):
    """Split on '.', '?', '!' followed by whitespace, unless the word ending there is an abbreviation
    or a decimal number."""
    sentences, start, i = [], 0, 0
    n = len(body)
    while i < n:
        ch = body[i]
        if ch in ".?!" and (i + 1 == n or body[i + 1].isspace()):
            j = i
            while j > start and not body[j - 1].isspace():
                j -= 1
            word = body[j:i + 1].lower()
            if word not in ABBREVIATIONS:
                sent = body[start:i + 1].strip()
                if sent:
                    sentences.append(sent)
                start = i + 1
        i += 1
    tail = body[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def normalize(sentence):
    """Expand the usual charting shorthand and mask digits (rules applied in order)."""
    for pattern, repl in NORMALIZE:
        sentence = pattern.sub(repl, sentence)
    return sentence.strip()


def tokenize(sentence):
    return [t.rstrip(".") if t not in ABBREVIATIONS else t for t in TOKEN_RE.findall(sentence.lower())]


def match_phrases(tokens, table):
    """Greedy longest match: [(start, end, value)] without overlaps, left to right."""
    spans, i = [], 0
    while i < len(tokens):
        for L in range(min(MAX_PHRASE, len(tokens) - i), 0, -1):
            key = tuple(tokens[i:i + L])
            if key in table:
                spans.append((i, i + L, table[key]))
                i += L
                break
        else:
            i += 1
    return spans


def negex(tokens, window):
    """NegEx-like: a finding is negated if a pre-negation trigger precedes it within `window` tokens
    (no terminator in between) or a post-negation trigger follows it within `window` tokens.
    Pseudo-triggers are removed first. Returns [(start, end, concept, negated)]."""
    pseudo = match_phrases(tokens, PSEUDO_TABLE)
    masked = list(tokens)
    for s, e, _ in pseudo:
        for k in range(s, e):
            masked[k] = "<pseudo>"
    findings = match_phrases(masked, FINDINGS)
    pre = match_phrases(masked, PRE_TABLE)
    post = match_phrases(masked, POST_TABLE)
    out = []
    for s, e, concept in findings:
        negated = False
        for ts, te, _ in pre:
            if te <= s and s - te <= window and not any(t in TERMINATORS for t in masked[te:s]):
                negated = True
                break
        if not negated:
            for ts, te, _ in post:
                if ts >= e and ts - e <= window and not any(t in TERMINATORS for t in masked[e:ts]):
                    negated = True
                    break
        out.append((s, e, concept, negated))
    return out


class CharNgramHasher:
    """Hashing-trick featuriser: each token -> ids of its character n-grams (with < > boundaries)."""

    def __init__(self, n_min, n_max, num_buckets):
        self.n_min, self.n_max, self.num_buckets = n_min, n_max, num_buckets

    def token_ids(self, token):
        word = f"<{token}>"
        ids = []
        for n in range(self.n_min, self.n_max + 1):
            for i in range(len(word) - n + 1):
                ids.append(zlib.crc32(word[i:i + n].encode("utf-8")) % self.num_buckets)
        return ids

    def feature_id(self, name):
        return zlib.crc32(name.encode("utf-8")) % self.num_buckets


def featurize_sentence(sentence, section, hasher, window):
    """Hashed ids for one sentence: char n-grams of every token (negated finding tokens are marked
    with '!', family-history tokens with '^'), then one id per matched finding."""
    tokens = tokenize(normalize(sentence))
    spans = negex(tokens, window)
    marks = [""] * len(tokens)
    for s, e, _, negated in spans:
        if negated:
            for k in range(s, e):
                marks[k] = "!"
    fh = section == "FAMILY HISTORY"
    ids = []
    for tok, mark in zip(tokens, marks):
        ids.extend(hasher.token_ids(("^" if fh else "") + mark + tok))
    for _, _, concept, negated in spans:
        ids.append(hasher.feature_id(f"concept={concept}|neg={int(negated)}|fh={int(fh)}"))
    return ids

# ----------------------------------------------------------------------------- data


class NoteStream(IterableDataset):
    """Streams (ids, labels) examples: a shuffle buffer over the notes, sentence dropout per pass."""

    def __init__(self, notes, labels, cfg, seed):
        self.notes, self.labels = notes, labels
        f = cfg["features"]
        self.hasher = CharNgramHasher(f["ngram_min"], f["ngram_max"], f["num_buckets"])
        self.window = f["neg_window"]
        self.max_features = f["max_features"]
        self.dropout = f["sentence_dropout"]
        self.buffer_size = cfg["loader"]["shuffle_buffer"]
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def encode(self, idx, rng):
        ids = []
        for section, body in split_sections(self.notes[idx]):
            for sentence in split_sentences(body):
                if rng.random() < self.dropout:
                    continue
                ids.extend(featurize_sentence(sentence, section, self.hasher, self.window))
        return ids[:self.max_features]

    def _examples(self, rng):
        order = list(range(len(self.notes)))
        rng.shuffle(order)
        for idx in order:
            yield idx, self.encode(idx, rng)

    def __iter__(self):
        rng = random.Random(self.seed * 1000 + self.epoch)
        buffer = []
        for example in self._examples(rng):
            if len(buffer) < self.buffer_size:
                buffer.append(example)
                continue
            k = rng.randrange(self.buffer_size)
            out, buffer[k] = buffer[k], example
            yield self._emit(out)
        rng.shuffle(buffer)
        for example in buffer:
            yield self._emit(example)

    def _emit(self, example):
        idx, ids = example
        return torch.tensor(ids, dtype=torch.long), torch.tensor(self.labels[idx])


def collate_bags(examples):
    """[targets, ids, offsets] for nn.EmbeddingBag."""
    lengths = [len(ids) for ids, _ in examples]
    offsets = torch.tensor([0] + lengths[:-1], dtype=torch.long).cumsum(0)
    flat = torch.cat([ids for ids, _ in examples])
    targets = torch.stack([y for _, y in examples])
    return [targets, flat, offsets]


class BagClassifier(nn.Module):
    def __init__(self, num_buckets, dim, num_labels):
        super().__init__()
        self.embed = nn.EmbeddingBag(num_buckets, dim, mode="mean")
        self.hidden = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, num_labels)

    def forward(self, ids, offsets):
        h = self.embed(ids, offsets)
        return self.out(F.gelu(self.hidden(h)))


def main():
    with open(sys.argv[1] if len(sys.argv) > 1 else "config.json") as fh:
        cfg = json.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    c = cfg["corpus"]
    notes, labels = simulate_corpus(c["num_notes"], c["min_sentences"], c["max_sentences"], seed)
    stream = NoteStream(notes, labels, cfg, seed)
    loader = DataLoader(stream, batch_size=cfg["loader"]["batch_size"], collate_fn=collate_bags,
                        num_workers=cfg["loader"]["num_workers"], drop_last=True)
    model = BagClassifier(cfg["features"]["num_buckets"], cfg["model"]["embed_dim"], len(CONCEPTS))
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    meter = evalkit.Meter()

    max_steps = cfg["train"]["max_steps"]
    step, epoch = 0, 0
    tp = fp = fn = 0
    while step < max_steps and not meter.done():
        stream.set_epoch(epoch)
        for batch in loader:
            meter.batch(batch)
            targets, ids, offsets = batch
            logits = model(ids, offsets)
            loss = F.binary_cross_entropy_with_logits(logits, targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            with torch.no_grad():
                pred = logits > 0
                gold = targets > 0.5
                tp += int((pred & gold).sum())
                fp += int((pred & ~gold).sum())
                fn += int((~pred & gold).sum())
            if step % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            if step >= max_steps or meter.done():
                break
        epoch += 1
    f1 = 2 * tp / max(2 * tp + fp + fn, 1)
    meter.report(extra={"micro_f1": f1, "epochs_started": epoch, "tp": tp, "fp": fp, "fn": fn})


if __name__ == "__main__":
    main()
