#!/usr/bin/env python
"""Masked-subtoken pretraining on source-code snippets.

Snippets are lexed (comments dropped, keywords and literals mapped to class tokens), identifiers are
split into camelCase / snake_case subtokens, and every subtoken is encoded with a BPE merge table
learned on the corpus. A tiny Transformer encoder predicts masked identifier pieces.
"""
import argparse
import collections
import json
import keyword
import random
import re

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset

import evalkit

# --------------------------------------------------------------------------------------------- corpus
WORDS = ("user id count max buffer index parse http request total value node tree left right config path "
         "file name size token stream cache key item list map data batch loader model layer weight grad "
         "step time start end offset length result error handler event queue worker thread lock socket "
         "port host url json xml html query row col matrix vector sum mean norm scale shift mask flag mode "
         "state init update reset load save read write open close send recv encode decode split merge sort "
         "filter find get set add remove check is has valid enabled default utf8 tmp ptr num").split()
SYLLABLES = ("ka lo mi tr str an er in on ex pre con ter al is ul ob ject ment tion ing ed ly vi ra po de re un "
             "ma se ce at or ic qu ph sh ch gr bl ou ea ix yz").split()
ACRONYMS = ("HTTP", "JSON", "XML", "URL", "ID", "IO", "UTF8", "API")
BASES = ("object", "Exception", "dict", "BaseModel", "Module")


class SnippetFactory:
    """Generates plausible Python functions and classes with mixed identifier conventions."""

    def __init__(self, rng):
        self.rng = rng
        # project-specific vocabulary: domain terms and abbreviations next to the common words
        jargon = {"".join(rng.choices(SYLLABLES, k=rng.randint(2, 4))) for _ in range(900)}
        self.words = list(WORDS) + sorted(jargon - set(WORDS))
        rng.shuffle(self.words)
        weights = [1.0 / (r + 1) ** 0.9 for r in range(len(self.words))]
        self.weights = weights

    def _parts(self, lo=1, hi=3):
        return self.rng.choices(self.words, self.weights, k=self.rng.randint(lo, hi))

    def ident(self):
        style = self.rng.random()
        parts = self._parts()
        if style < 0.45:
            return "_".join(parts)
        if style < 0.8:
            if self.rng.random() < 0.2:
                parts.insert(self.rng.randint(1, len(parts)), self.rng.choice(ACRONYMS))
            return parts[0] + "".join(p if p.isupper() else p.capitalize() for p in parts[1:])
        if style < 0.9:
            return "_".join(p.upper() for p in parts)
        return parts[0] + str(self.rng.randint(0, 9))

    def cls(self):
        return "".join(p.capitalize() for p in self._parts(1, 3))

    def literal(self):
        r = self.rng.random()
        if r < 0.4:
            return str(self.rng.randint(0, 4096))
        if r < 0.55:
            return f"{self.rng.uniform(0, 100):.{self.rng.randint(1, 4)}f}"
        if r < 0.65:
            return hex(self.rng.randint(0, 65535))
        words = " ".join(self._parts(1, 4))
        return repr(words) if self.rng.random() < 0.5 else f'"{words}: %s"'

    def line(self, indent):
        r = self.rng.random()
        pad = "    " * indent
        a, b = self.ident(), self.ident()
        if r < 0.18:
            return f"{pad}{a} = {self.ident()}({b}, {self.literal()})"
        if r < 0.30:
            return f"{pad}if {a} {self.rng.choice(['==', '!=', '<=', '>', 'is', 'in'])} {self.literal()}:"
        if r < 0.40:
            return f"{pad}for {a} in range(len({b})):"
        if r < 0.50:
            return f"{pad}self.{a} += {b} * {self.literal()}"
        if r < 0.60:
            return f"{pad}# {' '.join(self._parts(2, 6))}"
        if r < 0.70:
            return f"{pad}return {a}.{self.ident()}({b}) or None"
        if r < 0.80:
            return f"{pad}{a}[{b}] = {{{self.literal()}: {self.ident()}}}"
        if r < 0.88:
            return f"{pad}while not {a} and {b} < {self.literal()}:"
        return f"{pad}raise {self.cls()}Error(f\"{' '.join(self._parts(1, 3))}\")"

    def snippet(self, n_lines):
        if self.rng.random() < 0.3:
            lines = [f"class {self.cls()}({self.rng.choice(BASES)}):",
                     f"    def {self.ident()}(self, {self.ident()}={self.literal()}):"]
            depth = 2
        else:
            lines = [f"def {self.ident()}({self.ident()}, {self.ident()}=None):"]
            depth = 1
        while len(lines) < n_lines:
            text = self.line(depth)
            lines.append(text)
            if text.endswith(":"):
                depth += 1
            elif depth > 1 and self.rng.random() < 0.3:
                depth -= 1
        return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------ tokenizer
TOKEN_RE = re.compile(r"""
    (?P<comment>\#[^\n]*)
  | (?P<string>[rbf]?"(?:\\.|[^"\\\n])*"|[rbf]?'(?:\\.|[^'\\\n])*')
  | (?P<number>0[xX][0-9a-fA-F]+|\d+\.\d*(?:[eE][-+]?\d+)?|\d+)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\*\*=?|//=?|->|[-+*/%&|^<>=!]=|[-+*/%=<>()\[\]{}:,.@~])
  | (?P<newline>\n[ ]*)
  | (?P<space>[ \t]+)
""", re.VERBOSE)
CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
SPECIALS = ["<pad>", "<unk>", "<mask>", "<str>", "<fstr>", "<int>", "<float>", "<hex>", "<nl>", "<indent>",
            "<dedent>", "<id>"]
KEYWORDS = sorted(set(keyword.kwlist) | {"self", "range", "len", "None"})
EOW = "</w>"


def split_identifier(name):
    """`parseHTTPRequest_v2` -> ['parse', 'http', 'request', 'v', '2']"""
    pieces = []
    for chunk in name.split("_"):
        if chunk:
            pieces.extend(m.group(0).lower() for m in CAMEL_RE.finditer(chunk))
    return pieces


def lex(source):
    """Yield (kind, text) pairs; comments and intra-line spaces are dropped, indentation is tracked."""
    depth_stack = [0]
    for m in TOKEN_RE.finditer(source):
        kind, text = m.lastgroup, m.group(0)
        if kind in ("comment", "space"):
            continue
        if kind == "newline":
            yield "special", "<nl>"
            width = len(text) - 1
            if width > depth_stack[-1]:
                depth_stack.append(width)
                yield "special", "<indent>"
            while width < depth_stack[-1]:
                depth_stack.pop()
                yield "special", "<dedent>"
            continue
        if kind == "string":
            yield "special", "<fstr>" if text[0] == "f" else "<str>"
        elif kind == "number":
            low = text.lower()
            yield "special", "<hex>" if low.startswith("0x") else "<float>" if "." in low else "<int>"
        elif kind == "name":
            if text in KEYWORDS:
                yield "keyword", text
            else:
                yield "special", "<id>"
                for piece in split_identifier(text):
                    yield "subtoken", piece
        else:
            yield "op", text


class SubtokenBPE:
    """BPE over identifier subtokens (character level with an end-of-word marker), learned like
    Sennrich et al.: repeatedly merge the most frequent adjacent pair (ties: lexicographically smallest)."""

    def __init__(self, merges):
        self.merges = list(merges)
        self.ranks = {pair: i for i, pair in enumerate(self.merges)}

    @classmethod
    def train(cls, word_counts, num_merges, min_count):
        vocab = {tuple(w) + (EOW,): c for w, c in word_counts.items()}
        merges = []
        for _ in range(num_merges):
            pairs = collections.Counter()
            for word, count in vocab.items():
                for a, b in zip(word, word[1:]):
                    pairs[a, b] += count
            if not pairs:
                break
            best = min(pairs, key=lambda p: (-pairs[p], p))
            if pairs[best] < min_count:
                break
            merges.append(best)
            merged = {}
            for word, count in vocab.items():
                merged[cls._merge_pair(word, best)] = count
            vocab = merged
        return cls(merges)

    @staticmethod
    def _merge_pair(word, pair):
        out, i = [], 0
        while i < len(word):
            if i < len(word) - 1 and (word[i], word[i + 1]) == pair:
                out.append(word[i] + word[i + 1])
                i += 2
            else:
                out.append(word[i])
                i += 1
        return tuple(out)

    def encode_word(self, word):
        symbols = tuple(word) + (EOW,)
        while len(symbols) > 1:
            pairs = set(zip(symbols, symbols[1:]))
            best = min(pairs, key=lambda p: self.ranks.get(p, float("inf")))
            if best not in self.ranks:
                break
            symbols = self._merge_pair(symbols, best)
        return list(symbols)

    def symbols(self):
        seen = {}
        for a, b in self.merges:
            for s in (a, b, a + b):
                seen.setdefault(s, None)
        return list(seen)


class CodeTokenizer:
    def __init__(self, bpe):
        self.bpe = bpe
        alphabet = [c for c in "abcdefghijklmnopqrstuvwxyz0123456789"] + [EOW]
        ops = ["**", "**=", "//", "//=", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<=", ">=",
               "==", "!=", "-", "+", "*", "/", "%", "=", "<", ">", "(", ")", "[", "]", "{", "}", ":", ",",
               ".", "@", "~"]
        vocab = SPECIALS + [f"kw:{k}" for k in KEYWORDS] + ops + alphabet + bpe.symbols()
        self.vocab = {}
        for tok in vocab:
            self.vocab.setdefault(tok, len(self.vocab))
        self.pad_id, self.unk_id, self.mask_id = (self.vocab[t] for t in ("<pad>", "<unk>", "<mask>"))

    def encode(self, source):
        """Return (ids, is_piece) lists: is_piece marks BPE pieces of identifiers (the masking targets)."""
        ids, is_piece = [], []
        for kind, text in lex(source):
            if kind == "subtoken":
                for sym in self.bpe.encode_word(text):
                    ids.append(self.vocab.get(sym, self.unk_id))
                    is_piece.append(True)
                continue
            key = f"kw:{text}" if kind == "keyword" else text
            ids.append(self.vocab.get(key, self.unk_id))
            is_piece.append(False)
        return ids, is_piece


# -------------------------------------------------------------------------------------------- dataset
class SnippetStream(IterableDataset):
    """Iterable over the corpus: reshuffled every pass, long snippets cropped to a random window,
    identifier pieces masked BERT-style."""

    def __init__(self, snippets, tokenizer, max_length, mask_prob, seed):
        self.snippets = snippets
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.mask_prob = mask_prob
        self.generator = torch.Generator().manual_seed(seed)
        self.epoch = 0

    def __iter__(self):
        order = torch.randperm(len(self.snippets), generator=self.generator).tolist()
        self.epoch += 1
        for idx in order:
            ids, is_piece = self.tokenizer.encode(self.snippets[idx])
            if len(ids) > self.max_length:
                start = int(torch.randint(0, len(ids) - self.max_length + 1, (1,), generator=self.generator))
                ids, is_piece = ids[start:start + self.max_length], is_piece[start:start + self.max_length]
            draws = torch.rand(len(ids), generator=self.generator).tolist()
            inputs, labels = [], []
            for tok, piece, u in zip(ids, is_piece, draws):
                if piece and u < self.mask_prob:
                    inputs.append(self.tokenizer.mask_id)
                    labels.append(tok)
                else:
                    inputs.append(tok)
                    labels.append(-100)
            yield {"input_ids": inputs, "labels": labels}


class PadCollator:
    def __init__(self, pad_id):
        self.pad_id = pad_id

    def __call__(self, features):
        width = max(len(f["input_ids"]) for f in features)
        input_ids = torch.full((len(features), width), self.pad_id, dtype=torch.long)
        labels = torch.full((len(features), width), -100, dtype=torch.long)
        for row, f in enumerate(features):
            n = len(f["input_ids"])
            input_ids[row, :n] = torch.tensor(f["input_ids"])
            labels[row, :n] = torch.tensor(f["labels"])
        return {"input_ids": input_ids, "attention_mask": input_ids != self.pad_id, "labels": labels}


# ---------------------------------------------------------------------------------------------- model
class TinyCodeEncoder(nn.Module):
    def __init__(self, vocab_size, d_model, nhead, dim_feedforward, max_len=512):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout=0.0, batch_first=True)
        self.out = nn.Linear(d_model, vocab_size)

    def forward(self, input_ids, attention_mask, labels):
        """Logits at the masked positions only (the only ones the loss reads)."""
        pos = torch.arange(input_ids.shape[1]).unsqueeze(0)
        h = self.tok(input_ids) + self.pos(pos)
        h = self.layer(h, src_key_padding_mask=~attention_mask)
        return self.out(h[labels != -100])


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

    factory = SnippetFactory(random.Random(cfg["seed"]))
    ccfg = cfg["corpus"]
    snippets = [factory.snippet(factory.rng.randint(ccfg["min_lines"], ccfg["max_lines"]))
                for _ in range(ccfg["n_snippets"])]
    word_counts = collections.Counter(text for s in snippets for kind, text in lex(s) if kind == "subtoken")
    tcfg = cfg["tokenizer"]
    bpe = SubtokenBPE.train(word_counts, tcfg["num_merges"], tcfg["min_pair_count"])
    tokenizer = CodeTokenizer(bpe)
    print(f"{len(snippets)} snippets, {len(word_counts)} distinct subtokens, {len(bpe.merges)} merges, "
          f"vocab {len(tokenizer.vocab)}")

    dataset = SnippetStream(snippets, tokenizer, tcfg["max_length"], tcfg["mask_prob"], cfg["seed"] + 1)
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"], num_workers=cfg["loader"]["num_workers"],
                        collate_fn=PadCollator(tokenizer.pad_id))
    model = TinyCodeEncoder(len(tokenizer.vocab), **cfg["model"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], betas=tuple(cfg["optim"]["betas"]))
    meter = evalkit.Meter()

    step, masked_total, hits = 0, 0, 0
    max_steps = cfg["max_steps"]
    while step < max_steps and not meter.done():
        for batch in loader:
            meter.batch(batch)
            targets = batch["labels"][batch["labels"] != -100]
            logits = model(batch["input_ids"], batch["attention_mask"], batch["labels"])
            loss = nn.functional.cross_entropy(logits, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            with torch.no_grad():
                masked_total += len(targets)
                hits += int((logits.argmax(-1) == targets).sum())
            step += 1
            if step % cfg["log_every"] == 0:
                print(f"step {step} epoch {dataset.epoch} loss {loss.item():.4f} acc {hits / max(masked_total, 1):.3f}")
            if step >= max_steps or meter.done():
                break
    meter.report(extra={"masked_tokens": masked_total, "masked_acc": round(hits / max(masked_total, 1), 6),
                        "epochs_started": dataset.epoch})


if __name__ == "__main__":
    main()
