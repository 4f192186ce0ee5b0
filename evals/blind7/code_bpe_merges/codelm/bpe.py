"""A small byte-pair-encoding tokenizer for source code (GPT-2 style, on characters)."""
import re
from collections import Counter

# pre-tokenizer: words with their leading space, numbers, punctuation runs, whitespace
PRETOKEN = re.compile(r" ?[A-Za-z_]+| ?[0-9]+| ?[^\sA-Za-z_0-9]+|\s+(?!\S)|\s+")


def get_pairs(word):
    """Set of adjacent symbol pairs in a word (a tuple of symbols)."""
    pairs = set()
    prev = word[0]
    for ch in word[1:]:
        pairs.add((prev, ch))
        prev = ch
    return pairs


def learn_merges(texts, num_merges):
    """Plain BPE training: repeatedly merge the most frequent adjacent pair."""
    counts = Counter()
    for text in texts:
        counts.update(PRETOKEN.findall(text))
    words = {w: tuple(w) for w in counts}
    merges = []
    for _ in range(num_merges):
        pair_counts = Counter()
        for w, syms in words.items():
            c = counts[w]
            for a, b in zip(syms, syms[1:]):
                pair_counts[(a, b)] += c
        if not pair_counts:
            break
        best = max(pair_counts, key=pair_counts.get)
        merges.append(best)
        a, b = best
        for w, syms in words.items():
            if len(syms) < 2:
                continue
            out = []
            i = 0
            while i < len(syms):
                if i < len(syms) - 1 and syms[i] == a and syms[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(syms[i])
                    i += 1
            words[w] = tuple(out)
    return merges


class CodeBPE:
    pad_token = "<pad>"
    unk_token = "<unk>"

    def __init__(self, merges, alphabet):
        # merges in priority order, as read from merges.txt
        self.merges = [tuple(m) for m in merges]
        vocab = [self.pad_token, self.unk_token] + list(alphabet) + ["".join(m) for m in self.merges]
        self.encoder = {tok: i for i, tok in enumerate(vocab)}
        self.vocab_size = len(vocab)
        self.pad_id = self.encoder[self.pad_token]
        self.unk_id = self.encoder[self.unk_token]

    def bpe(self, token):
        word = tuple(token)
        if len(word) < 2:
            return [token]
        pairs = get_pairs(word)

        while True:
            # lowest-priority-index merge first
            bigram = min(pairs, key=lambda pair: self.merges.index(pair) if pair in self.merges else float("inf"))
            if bigram not in self.merges:
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
        return list(word)

    def tokenize(self, text):
        pieces = []
        for chunk in PRETOKEN.findall(text):
            pieces.extend(self.bpe(chunk))
        return pieces

    def encode(self, text):
        return [self.encoder.get(p, self.unk_id) for p in self.tokenize(text)]
