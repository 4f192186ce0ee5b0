"""Byte-pair-encoding tokenizer trained on the corpus (GPT-2 style merge ranks, '</w>' word ends)."""
import re
from collections import Counter

PAD, UNK, CLS, SEP = "<pad>", "<unk>", "<s>", "</s>"
_PRE = re.compile(r"[a-z]+|[0-9]+|[^\sa-z0-9]")
_INF = float("inf")


def pre_tokenize(text):
    return _PRE.findall(text.lower())


class BPE:
    def __init__(self, merges, vocab):
        self.ranks = {pair: r for r, pair in enumerate(merges)}
        self.vocab = {tok: i for i, tok in enumerate(vocab)}
        self.unk = self.vocab[UNK]

    @classmethod
    def train(cls, texts, num_merges, max_words):
        counts = Counter(w for t in texts for w in pre_tokenize(t))
        top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:max_words]
        words = [(list(w[:-1]) + [w[-1] + "</w>"], n) for w, n in top]
        symbols = sorted({s for parts, _ in words for s in parts})
        merges = []
        for _ in range(num_merges):
            pairs = Counter()
            for parts, n in words:
                for a, b in zip(parts, parts[1:]):
                    pairs[(a, b)] += n
            if not pairs:
                break
            best = min(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[0]
            merges.append(best)
            merged = best[0] + best[1]
            for parts, _ in words:
                i = 0
                while i < len(parts) - 1:
                    if parts[i] == best[0] and parts[i + 1] == best[1]:
                        parts[i:i + 2] = [merged]
                    i += 1
        vocab = [PAD, UNK, CLS, SEP] + symbols + [a + b for a, b in merges]
        return cls(merges, list(dict.fromkeys(vocab)))

    def bpe(self, word):
        parts = list(word[:-1]) + [word[-1] + "</w>"]
        while len(parts) > 1:
            rank, i = min((self.ranks.get(pair, _INF), k) for k, pair in enumerate(zip(parts, parts[1:])))
            if rank == _INF:
                break
            parts = parts[:i] + [parts[i] + parts[i + 1]] + parts[i + 2:]
        return parts

    def encode(self, text, max_len):
        ids = [self.vocab[CLS]]
        for w in pre_tokenize(text):
            ids.extend(self.vocab.get(p, self.unk) for p in self.bpe(w))
        return ids[: max_len - 1] + [self.vocab[SEP]]
