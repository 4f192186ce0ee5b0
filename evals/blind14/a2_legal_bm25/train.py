"""Clause-type classifier for commercial contracts over BM25-weighted hashed bags of words.

Contracts come in as plain text. Each one is segmented into clauses on its numbered headings
("7.", "7.2", "(b)"), its defined terms are pulled from the definitions section ('"Supplier"
means ...'), and every clause becomes a hashed bag of stemmed words weighted by BM25 against
the corpus, plus a few hashed defined-term features.

    python train.py --config config.json
"""
import argparse
import json
import math
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

# ----------------------------------------------------------------------------- synthetic corpus

SECTIONS = {
    "DEFINITIONS": ["means", "includes", "refers", "construed", "meaning", "singular", "plural", "herein"],
    "TERM": ["commence", "effective", "renewal", "expire", "period", "initial", "successive", "anniversary"],
    "PAYMENT": ["invoice", "fees", "payable", "currency", "interest", "overdue", "tax", "remit", "days"],
    "CONFIDENTIALITY": ["disclose", "confidential", "recipient", "discloser", "protect", "secret", "unauthorised"],
    "INTELLECTUAL PROPERTY": ["license", "patent", "copyright", "ownership", "royalty", "derivative", "trademark"],
    "WARRANTIES": ["warrant", "represent", "merchantability", "fitness", "defect", "conform", "disclaim"],
    "LIABILITY": ["liable", "indirect", "consequential", "cap", "damages", "loss", "aggregate", "exceed"],
    "INDEMNIFICATION": ["indemnify", "defend", "hold", "harmless", "claims", "third", "costs", "settlement"],
    "TERMINATION": ["terminate", "breach", "notice", "cure", "insolvency", "convenience", "survive"],
    "FORCE MAJEURE": ["flood", "war", "epidemic", "strike", "beyond", "control", "suspend", "prevented"],
    "GOVERNING LAW": ["governed", "laws", "jurisdiction", "courts", "exclusive", "venue", "arbitration"],
    "NOTICES": ["writing", "delivered", "address", "courier", "email", "receipt", "deemed", "registered"],
}
COMMON = ("the party shall any other such agreement under this with respect to in accordance provided that "
          "each all its by for of or and be may not without prior written consent reasonable").split()
TERMS = ["Agreement", "Affiliate", "Business Day", "Confidential Information", "Customer", "Deliverables",
         "Effective Date", "Fees", "Intellectual Property Rights", "Losses", "Services", "Supplier",
         "Term", "Territory", "Change of Control", "Personal Data", "Specification", "Order Form"]


def _sentence(rng, words, terms, n):
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.35:
            out.append(rng.choice(words))
        elif r < 0.45 and terms:
            out.append(rng.choice(terms))
        else:
            out.append(rng.choice(COMMON))
    s = " ".join(out)
    return s[0].upper() + s[1:] + "."


def make_contract(rng, n_sections):
    names = ["DEFINITIONS"] + rng.sample([k for k in SECTIONS if k != "DEFINITIONS"], n_sections - 1)
    terms = rng.sample(TERMS, rng.randint(8, 14))
    lines = [f"MASTER SERVICES AGREEMENT No. {rng.randint(1000, 9999)}",
             f'This Agreement is entered into by the parties listed in the {rng.choice(["Order Form", "Schedule 1"])}.',
             ""]
    for s_no, name in enumerate(names, 1):
        lines.append(f"{s_no}. {name}")
        if name == "DEFINITIONS":
            for c_no, term in enumerate(terms, 1):
                verb = rng.choice(["means", "shall mean", "has the meaning given in", "includes"])
                body = _sentence(rng, SECTIONS[name], [], rng.randint(6, 14))
                lines.append(f'{s_no}.{c_no} "{term}" {verb} {body[0].lower()}{body[1:]}')
            continue
        for c_no in range(1, rng.randint(3, 6) + 1):
            lines.append(f"{s_no}.{c_no} " + _sentence(rng, SECTIONS[name], terms, rng.randint(14, 32)))
            if rng.random() < 0.4:
                for sub in "abcd"[:rng.randint(2, 4)]:
                    lines.append(f"({sub}) " + _sentence(rng, SECTIONS[name], terms, rng.randint(8, 18)))
        lines.append("")
    lines.append("IN WITNESS WHEREOF the parties have executed this Agreement.")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- text processing

HEADING = re.compile(r"^(\d+)\.\s+([A-Z][A-Z ]+)$")
CLAUSE = re.compile(r"^(\d+)\.(\d+)\s+(.*)$")
SUBCLAUSE = re.compile(r"^\(([a-z])\)\s+(.*)$")
DEFINED = re.compile(r'"([A-Z][A-Za-z ]+)"\s+(?:shall mean|means|has the meaning|includes)')
TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?")
STOP = frozenset("the a an of to in and or by for be any such this that with under its may not all each".split())
SUFFIXES = ("ational", "ization", "fulness", "ousness", "iveness", "ingly", "ments", "ment", "ness", "ions",
            "ion", "ing", "ies", "ied", "ed", "es", "ly", "s")


def stem(word):
    """A small suffix stripper in the spirit of Porter step 1/2 (keeps stems of 3+ letters)."""
    for suf in SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            word = word[: -len(suf)]
            if suf == "ies" or suf == "ied":
                word += "y"
            break
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    return word


def segment(text):
    """Split a contract into clauses: [(section_name, clause_id, clause_text)]."""
    clauses, section, current = [], None, None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        m = HEADING.match(line)
        if m:
            section = m.group(2).strip()
            current = None
            continue
        m = CLAUSE.match(line)
        if m and section is not None:
            current = [section, f"{m.group(1)}.{m.group(2)}", m.group(3)]
            clauses.append(current)
            continue
        m = SUBCLAUSE.match(line)
        if m and current is not None:
            current[2] += " " + m.group(2)
    return [tuple(c) for c in clauses]


def defined_terms(clauses):
    terms = []
    for section, _, text in clauses:
        if section == "DEFINITIONS":
            terms.extend(m.group(1) for m in DEFINED.finditer(text))
    return sorted(set(terms), key=lambda t: (-len(t), t))


def tokenize(text):
    return [stem(w) for w in TOKEN.findall(text.lower()) if w not in STOP]


def term_mentions(text, terms):
    counts = {}
    for term in terms:
        n = len(re.findall(r"\b" + re.escape(term) + r"\b", text))
        if n:
            counts[term] = n
    return counts


class ContractFeaturizer:
    """sklearn-like: fit() learns BM25 document frequencies over clauses, transform() featurises a contract."""

    def __init__(self, dim=4096, k1=1.2, b=0.75):
        self.dim, self.k1, self.b = dim, k1, b
        self.idf = {}
        self.avgdl = 1.0

    def analyse(self, text):
        clauses = segment(text)
        terms = defined_terms(clauses)
        return [(section, cid, tokenize(body), term_mentions(body, terms)) for section, cid, body in clauses]

    def fit(self, texts):
        df, n_docs, total = Counter(), 0, 0
        for text in texts:
            for _, _, tokens, _ in self.analyse(text):
                df.update(set(tokens))
                n_docs += 1
                total += len(tokens)
        self.idf = {t: math.log(1.0 + (n_docs - n + 0.5) / (n + 0.5)) for t, n in sorted(df.items())}
        self.avgdl = total / n_docs
        self.default_idf = math.log(1.0 + (n_docs + 0.5) / 0.5)
        return self

    def transform(self, text):
        return self.analyse(text)

    def bm25_vector(self, tokens, mentions):
        vec = np.zeros(self.dim, dtype=np.float32)
        dl = len(tokens)
        k1, b = self.k1, self.b
        norm = k1 * (1 - b + b * dl / self.avgdl)
        acc = {}
        for tok, tf in Counter(tokens).items():
            w = self.idf.get(tok, self.default_idf) * tf * (k1 + 1) / (tf + norm)
            h = zlib.crc32(tok.encode()) % self.dim
            acc[h] = acc.get(h, 0.0) + w
        for term, n in mentions.items():
            h = zlib.crc32(("TERM::" + term).encode()) % self.dim
            acc[h] = acc.get(h, 0.0) + math.log1p(n)
        for h, w in acc.items():
            vec[h] = w
        return vec


# ----------------------------------------------------------------------------- dataset / collate

class ContractDataset(Dataset):
    def __init__(self, texts, featurizer, label_of, clauses_per_doc, token_dropout):
        self.texts = texts
        self.featurizer = featurizer
        self.label_of = label_of
        self.k = clauses_per_doc
        self.p = token_dropout

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, idx):
        return self.__getitems__([idx])[0]

    def __getitems__(self, indices):
        out = []
        for idx in indices:
            clauses = self.featurizer.transform(self.texts[idx])
            order = torch.randperm(len(clauses))[: self.k].tolist()
            feats, labels, positions = [], [], []
            for j in order:
                section, cid, tokens, mentions = clauses[j]
                keep = (torch.rand(len(tokens)) >= self.p).tolist()
                kept = [t for t, k in zip(tokens, keep) if k]
                feats.append(self.featurizer.bm25_vector(kept, mentions))
                labels.append(self.label_of[section])
                positions.append(j / len(clauses))
            out.append({"features": np.stack(feats), "labels": labels, "positions": positions, "doc": idx})
        return out


class ClauseCollator:
    """Pads every contract to the same number of clauses and builds the attention mask."""

    def __init__(self, max_clauses):
        self.max_clauses = max_clauses

    def __call__(self, samples):
        n, dim = len(samples), samples[0]["features"].shape[1]
        feats = torch.zeros(n, self.max_clauses, dim)
        labels = torch.full((n, self.max_clauses), -100, dtype=torch.long)
        pos = torch.zeros(n, self.max_clauses)
        mask = torch.zeros(n, self.max_clauses, dtype=torch.bool)
        for i, s in enumerate(samples):
            k = len(s["labels"])
            feats[i, :k] = torch.from_numpy(s["features"])
            labels[i, :k] = torch.tensor(s["labels"])
            pos[i, :k] = torch.tensor(s["positions"], dtype=torch.float32)
            mask[i, :k] = True
        return {"features": feats, "labels": labels, "positions": pos, "mask": mask,
                "doc_ids": torch.tensor([s["doc"] for s in samples])}


class ClauseClassifier(nn.Module):
    def __init__(self, dim, hidden, n_classes):
        super().__init__()
        self.proj = nn.Linear(dim, hidden)
        self.ctx = nn.Linear(hidden + 1, hidden)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, features, positions, mask):
        h = F.relu(self.proj(F.normalize(features, dim=-1)))
        m = mask.unsqueeze(-1).float()
        doc = (h * m).sum(1, keepdim=True) / m.sum(1, keepdim=True).clamp(min=1.0)
        h = F.relu(self.ctx(torch.cat([h + 0.5 * doc, positions.unsqueeze(-1)], dim=-1)))
        return self.out(h)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    rng = random.Random(seed)
    texts = [make_contract(rng, rng.randint(cfg["data"]["min_sections"], len(SECTIONS)))
             for _ in range(cfg["data"]["n_contracts"])]
    label_of = {name: i for i, name in enumerate(sorted(SECTIONS))}
    feat_cfg = cfg["features"]
    featurizer = ContractFeaturizer(feat_cfg["dim"], feat_cfg["k1"], feat_cfg["b"]).fit(texts)
    dataset = ContractDataset(texts, featurizer, label_of, feat_cfg["clauses_per_doc"], feat_cfg["token_dropout"])

    tr = cfg["training"]
    loader = DataLoader(dataset, batch_size=tr["batch_size"], shuffle=True, drop_last=True,
                        num_workers=tr["num_workers"], collate_fn=ClauseCollator(feat_cfg["clauses_per_doc"]),
                        generator=torch.Generator().manual_seed(seed))
    model = ClauseClassifier(feat_cfg["dim"], cfg["model"]["hidden"], len(label_of))
    opt = torch.optim.Adam(model.parameters(), lr=tr["lr"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=tr["max_steps"])
    meter = evalkit.Meter()

    step, epoch, hits, total = 0, 0, 0, 0
    while step < tr["max_steps"] and not meter.done():
        it = iter(loader)
        epoch += 1
        for batch in it:
            meter.batch(batch)
            logits = model(batch["features"], batch["positions"], batch["mask"])
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch["labels"].reshape(-1),
                                   ignore_index=-100)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            meter.step(loss)
            with torch.no_grad():
                pred = logits.argmax(-1)
                hits += int((pred == batch["labels"])[batch["mask"]].sum())
                total += int(batch["mask"].sum())
            step += 1
            if step >= tr["max_steps"] or meter.done():
                break
    meter.report({"epochs": epoch, "clause_acc": round(hits / max(total, 1), 6),
                  "vocab": len(featurizer.idf), "avgdl": featurizer.avgdl})


if __name__ == "__main__":
    main()
