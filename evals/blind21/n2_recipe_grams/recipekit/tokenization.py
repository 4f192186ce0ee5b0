"""A small byte-pair-encoding tokenizer in the style of the original GPT-2 encoder.py."""
import re
from collections import Counter

PRETOKENIZE = re.compile(r"[a-z]+|\d+|[^\sa-z\d]")
SPECIALS = ["<pad>", "<unk>", "<line>"]


def get_pairs(word):
    pairs = set()
    prev = word[0]
    for ch in word[1:]:
        pairs.add((prev, ch))
        prev = ch
    return pairs


class RecipeBPETokenizer:
    def __init__(self, merges):
        self.bpe_ranks = {pair: i for i, pair in enumerate(merges)}
        symbols = set()
        for a, b in merges:
            symbols.update((a, b, a + b))
        for ch in "abcdefghijklmnopqrstuvwxyz0123456789-;.,()/'":
            symbols.update((ch, ch + "</w>"))
        self.vocab = {tok: i for i, tok in enumerate(SPECIALS + sorted(symbols))}
        self.pad_id, self.unk_id, self.line_id = 0, 1, 2

    @classmethod
    def train(cls, texts, num_merges):
        freqs = Counter(w for t in texts for w in PRETOKENIZE.findall(t.lower()))
        words = {tuple(w[:-1]) + (w[-1] + "</w>",): f for w, f in freqs.items()}
        merges = []
        for _ in range(num_merges):
            stats = Counter()
            for word, f in words.items():
                for pair in zip(word, word[1:]):
                    stats[pair] += f
            if not stats:
                break
            best = max(stats, key=lambda p: (stats[p], p))
            merges.append(best)
            new_words = {}
            for word, f in words.items():
                out, i = [], 0
                while i < len(word):
                    if i < len(word) - 1 and (word[i], word[i + 1]) == best:
                        out.append(word[i] + word[i + 1])
                        i += 2
                    else:
                        out.append(word[i])
                        i += 1
                new_words[tuple(out)] = f
            words = new_words
        return cls(merges)

    def bpe(self, token):
        word = tuple(token[:-1]) + (token[-1] + "</w>",)
        pairs = get_pairs(word)
        if not pairs:
            return word
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
                else:
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
        return word

    def encode(self, text):
        ids = []
        for token in PRETOKENIZE.findall(text.lower()):
            ids.extend(self.vocab.get(piece, self.unk_id) for piece in self.bpe(token))
        return ids

    def __len__(self):
        return len(self.vocab)
