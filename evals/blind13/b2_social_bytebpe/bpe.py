"""Byte-level BPE (GPT-2 style): a learned merge table over byte symbols, so any string encodes
(unknown characters fall back to their UTF-8 bytes)."""
import collections
import re

PRETOKEN_RE = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+""")


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) \
        + list(range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def get_pairs(word):
    return {(a, b) for a, b in zip(word, word[1:])}


class ByteBPETokenizer:
    special_tokens = ["<pad>", "<s>", "</s>", "HTTPURL", "@USER"]

    def __init__(self, merges):
        self.byte_encoder = bytes_to_unicode()
        self.bpe_ranks = {pair: i for i, pair in enumerate(merges)}
        vocab = list(self.special_tokens) + [self.byte_encoder[b] for b in range(256)]
        vocab += [a + b for a, b in merges]
        self.encoder = {}
        for tok in vocab:
            self.encoder.setdefault(tok, len(self.encoder))
        self.pad_id = self.encoder["<pad>"]

    @classmethod
    def train(cls, texts, num_merges, normalizer=None):
        """Learn merges from word counts (the classic Sennrich loop)."""
        be = bytes_to_unicode()
        counts = collections.Counter()
        for text in texts:
            if normalizer is not None:
                text = normalizer(text)
            for piece in PRETOKEN_RE.findall(text):
                if piece.strip() in cls.special_tokens:
                    continue
                counts["".join(be[b] for b in piece.encode("utf-8"))] += 1
        words = {tuple(w): c for w, c in counts.items() if c >= 2}
        merges = []
        for _ in range(num_merges):
            stats = collections.Counter()
            for sym, c in words.items():
                for pair in zip(sym, sym[1:]):
                    stats[pair] += c
            if not stats:
                break
            best = max(stats, key=lambda p: (stats[p], p))
            merges.append(best)
            joined = best[0] + best[1]
            new_words = {}
            for sym, c in words.items():
                if best[0] not in sym or best[1] not in sym:
                    new_words[sym] = c
                    continue
                out, i = [], 0
                while i < len(sym):
                    if i < len(sym) - 1 and sym[i] == best[0] and sym[i + 1] == best[1]:
                        out.append(joined)
                        i += 2
                    else:
                        out.append(sym[i])
                        i += 1
                new_words[tuple(out)] = c
            words = new_words
        return cls(merges)

    def __len__(self):
        return len(self.encoder)

    def bpe(self, token):
        word = tuple(token)
        pairs = get_pairs(word)
        if not pairs:
            return [token]
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
        return list(word)

    def tokenize(self, text):
        tokens = []
        for piece in PRETOKEN_RE.findall(text):
            stripped = piece.strip()
            if stripped in self.special_tokens:
                tokens.append(stripped)
                continue
            mapped = "".join(self.byte_encoder[b] for b in piece.encode("utf-8"))
            tokens.extend(self.bpe(mapped))
        return tokens

    def encode(self, text, add_special_tokens=True):
        ids = [self.encoder[t] for t in self.tokenize(text)]
        if add_special_tokens:
            ids = [self.encoder["<s>"]] + ids + [self.encoder["</s>"]]
        return ids
