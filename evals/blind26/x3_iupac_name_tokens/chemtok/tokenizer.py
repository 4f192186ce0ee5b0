"""Morpheme-aware BPE for chemical nomenclature.

Merges are derived from a morpheme inventory (each morpheme is assembled left to right),
so frequent nomenclature units come out as single tokens and the rest falls back to characters.
"""
import re
import unicodedata

from .names import CLASSES, PARENTS, SUBSTITUENTS

MORPHEMES = sorted(set(
    PARENTS + SUBSTITUENTS + ["di", "tri", "tetra", "an", "en", "yn", "ol", "al", "one", "oic", "acid",
                              "amine", "nitrile", "oate", "ene", "yl", "cyclo", "tert", "iso", "oxy"]
    + [s for s, _ in CLASSES.values() if " " not in s]
), key=lambda m: (len(m), m))

PRE_TOKEN = re.compile(r"\S+|\s+")
SPECIALS = ["<pad>", "<unk>", "<bos>", "<eos>"]


class MorphemeBPE:
    def __init__(self, lowercase=True):
        self.lowercase = lowercase
        self.merges = {}
        vocab = list(SPECIALS) + [chr(c) for c in range(32, 127)]
        for m in MORPHEMES:
            for k in range(2, len(m) + 1):
                pair = (m[:k - 1], m[k - 1])
                if pair not in self.merges:
                    self.merges[pair] = len(self.merges)
                    vocab.append(m[:k])
        self.vocab = {tok: i for i, tok in enumerate(dict.fromkeys(vocab))}
        self.pad_id, self.unk_id = self.vocab["<pad>"], self.vocab["<unk>"]
        self.bos_id, self.eos_id = self.vocab["<bos>"], self.vocab["<eos>"]

    def normalize(self, text):
        text = unicodedata.normalize("NFKC", text)
        text = text.replace("\u2010", "-").replace("\u2013", "-").replace("\u2032", "'")
        return text.lower() if self.lowercase else text

    def _bpe(self, word):
        parts = list(word)
        while len(parts) > 1:
            best, best_rank = None, None
            for pair in zip(parts, parts[1:]):
                rank = self.merges.get(pair)
                if rank is not None and (best_rank is None or rank < best_rank):
                    best, best_rank = pair, rank
            if best is None:
                break
            merged, i = [], 0
            while i < len(parts):
                if i < len(parts) - 1 and (parts[i], parts[i + 1]) == best:
                    merged.append(parts[i] + parts[i + 1])
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        return parts

    def tokenize(self, text):
        out = []
        for word in PRE_TOKEN.findall(self.normalize(text)):
            out.extend(self._bpe(word))
        return out

    def encode(self, text, max_len):
        ids = [self.bos_id] + [self.vocab.get(t, self.unk_id) for t in self.tokenize(text)] + [self.eos_id]
        ids = ids[:max_len]
        return ids + [self.pad_id] * (max_len - len(ids))
