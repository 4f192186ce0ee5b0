"""A byte-pair-encoding tokenizer in the style of GPT-2's encoder.py (trained in-process).

Words are pre-split with a regex; a leading space is kept as "Ġ" on the following word.
"""
import re
from collections import Counter

PAT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")
SPECIALS = ["<pad>", "<unk>", "<cls>", "<sep>"]


def get_pairs(word):
    """Set of adjacent symbol pairs in a word (tuple of symbols)."""
    pairs = set()
    prev = word[0]
    for ch in word[1:]:
        pairs.add((prev, ch))
        prev = ch
    return pairs


def _pretokenize(text, lowercase):
    if lowercase:
        text = text.lower()
    return [tok.replace(" ", "\u0120") for tok in PAT.findall(text)]


def train_bpe(texts, num_merges, lowercase=True):
    counts = Counter()
    for t in texts:
        counts.update(_pretokenize(t, lowercase))
    words = {tuple(w): c for w, c in counts.items()}
    merges = []
    for _ in range(num_merges):
        pair_counts = Counter()
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pair_counts[(a, b)] += c
        if not pair_counts:
            break
        best = max(pair_counts.items(), key=lambda kv: (kv[1], kv[0]))[0]
        merges.append(best)
        new_words = {}
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i < len(w) - 1 and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            new_words[tuple(out)] = new_words.get(tuple(out), 0) + c
        words = new_words
    symbols = sorted({ch for w in counts for ch in w})
    vocab = SPECIALS + symbols + ["".join(m) for m in merges]
    return merges, {tok: i for i, tok in enumerate(dict.fromkeys(vocab))}


class BPETokenizer:
    def __init__(self, merges, encoder, lowercase=True):
        self.bpe_ranks = dict(zip(merges, range(len(merges))))
        self.encoder = encoder
        self.lowercase = lowercase
        self.pad_id = encoder["<pad>"]
        self.unk_id = encoder["<unk>"]
        self.cls_id = encoder["<cls>"]
        self.sep_id = encoder["<sep>"]

    @property
    def vocab_size(self):
        return len(self.encoder)

    def pretokenize(self, text):
        return _pretokenize(text, self.lowercase)

    def bpe(self, token):
        word = tuple(token)
        pairs = get_pairs(word)
        if not pairs:
            return token
        while True:
            bigram = min(pairs, key=lambda pair: self.bpe_ranks.get(pair, float("inf")))
            if bigram not in self.bpe_ranks:
                break
            first, second = bigram
            new_word = []
            i = 0
            while i < len(word):
                try:
                    j = word.index(first, i)
                except ValueError:
                    new_word.extend(word[i:])
                    break
                new_word.extend(word[i:j])
                i = j
                if word[i] == first and i < len(word) - 1 and word[i + 1] == second:
                    new_word.append(first + second)
                    i += 2
                else:
                    new_word.append(word[i])
                    i += 1
            word = tuple(new_word)
            if len(word) == 1:
                break
            pairs = get_pairs(word)
        return " ".join(word)

    def tokens_to_ids(self, pieces):
        return [self.encoder.get(p, self.unk_id) for p in pieces]

    def encode_words(self, words):
        ids = [self.cls_id]
        for w in words:
            ids.extend(self.tokens_to_ids(self.bpe(w).split(" ")))
        ids.append(self.sep_id)
        return ids
