"""Contract clause classification from hashed word bigrams (fastText-style bag of bigrams).

    python train.py --config clause_config.json
"""
import argparse
import json
import random
import re
import zlib
from collections import Counter

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit

CLAUSE_TYPES = ["indemnification", "termination", "confidentiality", "governing_law",
                "limitation_of_liability", "assignment", "force_majeure", "payment"]

# --------------------------------------------------------------------------------------------
# Synthetic contract corpus
# --------------------------------------------------------------------------------------------
PARTIES = ["Acme Holdings Inc.", "Northwind Corp.", "Globex Ltd.", "Initech LLC", "Umbrella Co.",
           "Stark Industries Inc.", "Wayne Enterprises Corp.", "Hooli N.V.", "Vandelay Industries Ltd."]
REFS = ["Sec. 4.2(b)", "Section 12.1", "Art. 7", "para. 3(a)", "Schedule B", "Exhibit C", "Sec. 9.4"]
STATUTES = ["15 U.S.C. 78j", "Cal. Civ. Code 1542", "N.Y. Gen. Oblig. Law 5-1401", "Del. Code Ann. tit. 6"]
TOPIC_SENTENCES = {
    "indemnification": [
        "{p1} shall indemnify, defend and hold harmless {p2} from and against any and all losses, damages, liabilities and claims arising out of {ref}.",
        "The indemnifying party shall promptly reimburse reasonable attorneys' fees incurred in connection with third-party claims, e.g. claims of infringement.",
        "No indemnification obligation arises where the losses result from the gross negligence or wilful misconduct of the indemnified party.",
        "{p2} shall give written notice of any claim within thirty (30) days, provided that failure to notify relieves {p1} only to the extent prejudiced.",
    ],
    "termination": [
        "Either party may terminate this Agreement upon sixty (60) days' prior written notice to the other party.",
        "{p1} may terminate immediately if {p2} materially breaches {ref} and fails to cure such breach within thirty days.",
        "Upon termination, all licenses granted hereunder shall cease and each party shall return the confidential materials of the other.",
        "Termination shall not affect any rights or obligations accrued prior to the effective date of termination, i.e. accrued payment obligations.",
    ],
    "confidentiality": [
        "The receiving party shall hold all confidential information in strict confidence and shall not disclose it to any third party.",
        "Confidential information excludes information that is or becomes publicly available through no fault of the receiving party.",
        "{p2} may disclose confidential information to the extent required by law, including under {statute}, after notifying {p1}.",
        "The obligations of confidentiality shall survive for a period of five (5) years following the expiration of this Agreement.",
    ],
    "governing_law": [
        "This Agreement shall be governed by and construed in accordance with the laws of the State of New York, without regard to conflicts principles.",
        "Each party irrevocably submits to the exclusive jurisdiction of the state and federal courts located in New York County.",
        "The parties waive any objection to venue and any claim that such courts are an inconvenient forum, cf. {statute}.",
        "The United Nations Convention on Contracts for the International Sale of Goods shall not apply to this Agreement.",
    ],
    "limitation_of_liability": [
        "In no event shall either party be liable for any indirect, incidental, consequential, special or punitive damages.",
        "The aggregate liability of {p1} under this Agreement shall not exceed the fees paid by {p2} in the twelve months preceding the claim.",
        "The foregoing limitations shall not apply to breaches of {ref} or to a party's indemnification obligations.",
        "Some jurisdictions do not allow the exclusion of certain damages, so the above limitations may not apply, e.g. under {statute}.",
    ],
    "assignment": [
        "Neither party may assign or transfer this Agreement without the prior written consent of the other party.",
        "{p1} may assign this Agreement to an affiliate or to a successor in connection with a merger, acquisition or sale of assets.",
        "Any purported assignment in violation of {ref} shall be null and void.",
        "This Agreement shall be binding upon and inure to the benefit of the parties and their respective successors and permitted assigns.",
    ],
    "force_majeure": [
        "Neither party shall be liable for any failure or delay in performance caused by events beyond its reasonable control.",
        "Such events include acts of God, flood, fire, earthquake, epidemics, war, terrorism, strikes and governmental actions.",
        "The affected party shall notify the other party promptly and use commercially reasonable efforts to resume performance.",
        "If a force majeure event continues for more than ninety (90) days, {p2} may terminate this Agreement under {ref}.",
    ],
    "payment": [
        "{p2} shall pay all undisputed invoices within thirty (30) days of receipt, in U.S. dollars, by wire transfer.",
        "Late payments shall accrue interest at the rate of one and one-half percent per month or the maximum rate permitted by law.",
        "All fees are exclusive of taxes, and {p2} shall be responsible for all sales, use and value-added taxes, excluding taxes on {p1}'s income.",
        "{p1} may suspend the services if any amount remains unpaid for more than fifteen days after written notice under {ref}.",
    ],
}
BOILERPLATE = [
    "Capitalized terms used but not defined herein have the meanings given in the Master Agreement dated Jan. 5, 2021.",
    "For the avoidance of doubt, nothing in this clause limits the rights of {p1} under {ref}.",
    "Notices shall be sent to Attn. General Counsel, {p2}, 1200 Market St., Ste. 400, Wilmington, DE.",
    "Headings are for convenience only and shall not affect interpretation, cf. Mr. Smith's memorandum of Feb. 2, 2022.",
    "The parties acknowledge that they have reviewed this provision with counsel, incl. outside counsel where appropriate.",
]


def synthesize_corpus(n, min_sent, max_sent, seed):
    rng = random.Random(seed)
    texts, labels = [], []
    for _ in range(n):
        label = rng.randrange(len(CLAUSE_TYPES))
        pool = TOPIC_SENTENCES[CLAUSE_TYPES[label]]
        k = rng.randint(min_sent, max_sent)
        sents = []
        for _ in range(k):
            src = rng.choice(BOILERPLATE) if rng.random() < 0.25 else rng.choice(pool)
            p1, p2 = rng.sample(PARTIES, 2)
            sents.append(src.format(p1=p1, p2=p2, ref=rng.choice(REFS), statute=rng.choice(STATUTES)))
        head = f"{rng.randint(1, 20)}.{rng.randint(1, 9)} {CLAUSE_TYPES[label].replace('_', ' ').title()}. "
        texts.append(head + "  ".join(sents) if rng.random() < 0.3 else head + " ".join(sents))
        labels.append(label)
    return texts, labels


# --------------------------------------------------------------------------------------------
# Text processing: abbreviation-aware sentence splitter, Porter-style stemmer, bigram vocabulary
# --------------------------------------------------------------------------------------------
ABBREVIATIONS = {"inc", "corp", "ltd", "co", "llc", "n.v", "u.s", "u.s.c", "e.g", "i.e", "cf", "sec", "art",
                 "para", "no", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
                 "dec", "mr", "mrs", "ms", "dr", "st", "ste", "attn", "incl", "cal", "civ", "gen", "oblig",
                 "del", "ann", "tit", "n.y", "et al", "al", "vs", "v"}
WORD_RE = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:\.\d+)*")


def split_sentences(text):
    """Split on . ! ? followed by whitespace and an upper-case letter, a digit or a quote, unless the
    period ends a known abbreviation, a single-letter initial or a section number such as `4.2.`"""
    sentences, start, i, n = [], 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch in ".!?":
            j = i + 1
            while j < n and text[j] in ".!?\"')":
                j += 1
            if j < n and not text[j].isspace():
                i = j
                continue
            k = j
            while k < n and text[k].isspace():
                k += 1
            if k < n and not (text[k].isupper() or text[k].isdigit() or text[k] in "\"'("):
                i = j
                continue
            if ch == ".":
                w = i
                while w > start and not text[w - 1].isspace():
                    w -= 1
                token = text[w:i].lower().strip("(\"'")
                if token in ABBREVIATIONS or (len(token) == 1 and token.isalpha()):
                    i = j
                    continue
                if token and token.replace(".", "").isdigit() and w == start:
                    i = j  # a leading clause number like "12.3."
                    continue
            sent = text[start:j].strip()
            if sent:
                sentences.append(sent)
            start = i = k
            continue
        i += 1
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


VOWELS = set("aeiou")


def _is_consonant(word, i):
    ch = word[i]
    if ch in VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def _measure(stem):
    """Porter's m: the number of VC sequences in [C](VC){m}[V]."""
    m, i, n = 0, 0, len(stem)
    while i < n and _is_consonant(stem, i):
        i += 1
    while i < n:
        while i < n and not _is_consonant(stem, i):
            i += 1
        if i >= n:
            break
        while i < n and _is_consonant(stem, i):
            i += 1
        m += 1
    return m


def _has_vowel(stem):
    return any(not _is_consonant(stem, i) for i in range(len(stem)))


def _ends_cvc(word):
    if len(word) < 3:
        return False
    return (_is_consonant(word, -3 + len(word)) and not _is_consonant(word, len(word) - 2)
            and _is_consonant(word, len(word) - 1) and word[-1] not in "wxy")


STEP2 = [("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
         ("abli", "able"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"),
         ("ization", "ize"), ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"),
         ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")]
STEP3 = [("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""),
         ("ness", "")]
STEP4 = ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou",
         "ism", "ate", "iti", "ous", "ive", "ize"]


def porter_stem(word):
    if len(word) <= 2 or not word.isalpha():
        return word
    # step 1a
    if word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    # step 1b
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
    else:
        for suf in ("ed", "ing"):
            if word.endswith(suf) and _has_vowel(word[:-len(suf)]):
                word = word[:-len(suf)]
                if word.endswith(("at", "bl", "iz")):
                    word += "e"
                elif len(word) > 1 and word[-1] == word[-2] and word[-1] not in "lsz":
                    word = word[:-1]
                elif _measure(word) == 1 and _ends_cvc(word):
                    word += "e"
                break
    # step 1c
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    # step 2 and 3: longest listed suffix wins
    for table in (STEP2, STEP3):
        for suf, rep in sorted(table, key=lambda sr: -len(sr[0])):
            if word.endswith(suf):
                if _measure(word[:-len(suf)]) > 0:
                    word = word[:-len(suf)] + rep
                break
    # step 4
    for suf in sorted(STEP4, key=len, reverse=True):
        if word.endswith(suf):
            stem = word[:-len(suf)]
            if _measure(stem) > 1 and (suf != "ion" or stem.endswith(("s", "t"))):
                word = stem
            break
    # step 5
    if word.endswith("e"):
        m = _measure(word[:-1])
        if m > 1 or (m == 1 and not _ends_cvc(word[:-1])):
            word = word[:-1]
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word


class BigramVocab:
    """Word-bigram vocabulary over stemmed sentences; unseen bigrams go to hashed OOV buckets."""
    PAD, BOS, EOS = 0, "<s>", "</s>"

    def __init__(self, min_count=2, max_vocab=6000, oov_buckets=2048):
        self.min_count, self.max_vocab, self.oov_buckets = min_count, max_vocab, oov_buckets
        self.index = {}

    @staticmethod
    def sentence_bigrams(sentence):
        stems = [porter_stem(w) for w in WORD_RE.findall(sentence.lower())]
        seq = [BigramVocab.BOS] + stems + [BigramVocab.EOS]
        return list(zip(seq, seq[1:]))

    def fit(self, texts):
        counts = Counter()
        for text in texts:
            for sent in split_sentences(text):
                counts.update(self.sentence_bigrams(sent))
        kept = sorted((bg for bg, c in counts.items() if c >= self.min_count), key=lambda bg: (-counts[bg], bg))
        self.index = {bg: i + 1 for i, bg in enumerate(kept[:self.max_vocab])}
        return self

    @property
    def size(self):
        return 1 + len(self.index) + self.oov_buckets

    def encode_sentence(self, sentence):
        base = 1 + len(self.index)
        ids = []
        for bg in self.sentence_bigrams(sentence):
            idx = self.index.get(bg)
            if idx is None:
                idx = base + zlib.crc32(f"{bg[0]} {bg[1]}".encode()) % self.oov_buckets
            ids.append(idx)
        return ids


class ClauseDataset(Dataset):
    def __init__(self, texts, labels, vocab, max_length, sentence_dropout, seed):
        self.texts, self.labels, self.vocab = texts, labels, vocab
        self.max_length, self.sentence_dropout = max_length, sentence_dropout
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, idx):
        sentences = split_sentences(self.texts[idx])
        ids = []
        for pos, sent in enumerate(sentences):
            # the heading sentence is always kept; body sentences are dropped at random
            if pos > 0 and self.rng.random() < self.sentence_dropout:
                continue
            ids.extend(self.vocab.encode_sentence(sent))
        if len(ids) > self.max_length:
            start = self.rng.randrange(len(ids) - self.max_length + 1)
            ids = ids[start:start + self.max_length]
        return {"input_ids": ids, "label": self.labels[idx], "n_sentences": len(sentences)}


class DataCollatorWithPadding:
    def __init__(self, pad_id=0):
        self.pad_id = pad_id

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        input_ids = torch.full((len(features), longest), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(features), longest), dtype=torch.bool)
        for row, f in enumerate(features):
            n = len(f["input_ids"])
            input_ids[row, :n] = torch.tensor(f["input_ids"], dtype=torch.long)
            mask[row, :n] = True
        return {"input_ids": input_ids, "attention_mask": mask,
                "labels": torch.tensor([f["label"] for f in features], dtype=torch.long),
                "n_sentences": torch.tensor([f["n_sentences"] for f in features], dtype=torch.long)}


class BagOfBigrams(nn.Module):
    def __init__(self, vocab_size, dim, n_classes):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, n_classes)

    def forward(self, input_ids, attention_mask):
        e = self.embed(input_ids) * attention_mask.unsqueeze(-1)
        pooled = e.sum(1) / attention_mask.sum(1, keepdim=True).clamp_min(1)
        return self.out(torch.tanh(self.proj(pooled)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="clause_config.json")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)

    torch.set_num_threads(1)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)

    c = cfg["corpus"]
    texts, labels = synthesize_corpus(c["n_clauses"], c["min_sentences"], c["max_sentences"], seed)
    t = cfg["tokenizer"]
    vocab = BigramVocab(t["min_count"], t["max_vocab"], t["oov_buckets"]).fit(texts)
    ds = ClauseDataset(texts, labels, vocab, t["max_length"], cfg["augment"]["sentence_dropout"], seed + 1)
    dl = cfg["dataloader"]
    tr = cfg["train"]
    loader = DataLoader(ds, batch_size=tr["batch_size"], shuffle=dl["shuffle"], num_workers=dl["num_workers"],
                        drop_last=dl["drop_last"], collate_fn=DataCollatorWithPadding(pad_id=0),
                        generator=torch.Generator().manual_seed(seed + 2))

    model = BagOfBigrams(vocab.size, cfg["model"]["embed_dim"], len(CLAUSE_TYPES))
    opt = torch.optim.Adam(model.parameters(), lr=tr["lr"])
    meter = evalkit.Meter()
    step, epoch, tokens = 0, 0, 0
    it = iter(loader)
    while step < tr["max_steps"]:
        try:
            batch = next(it)
        except StopIteration:
            epoch += 1
            it = iter(loader)
            continue
        meter.batch(batch)
        logits = model(batch["input_ids"], batch["attention_mask"])
        loss = F.cross_entropy(logits, batch["labels"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        step += 1
        tokens += int(batch["attention_mask"].sum())
        if step % tr["log_every"] == 0:
            print(f"step {step} epoch {epoch} loss {loss.item():.4f}", flush=True)
        if meter.done():
            break
    meter.report(extra={"vocab_size": vocab.size, "tokens": tokens, "epochs_started": epoch + 1})


if __name__ == "__main__":
    main()
