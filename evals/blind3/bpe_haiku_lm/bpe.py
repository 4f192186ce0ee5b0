"""A tiny character-level BPE (Sennrich et al. 2016 style), learned on the corpus words."""
import collections

EOW = "</w>"
SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]


def get_pairs(symbols):
    pairs = set()
    prev = symbols[0]
    for s in symbols[1:]:
        pairs.add((prev, s))
        prev = s
    return pairs


def merge_word(symbols, pair):
    first, second = pair
    out = []
    i = 0
    while i < len(symbols):
        if i < len(symbols) - 1 and symbols[i] == first and symbols[i + 1] == second:
            out.append(first + second)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def learn_bpe(lines, num_merges):
    vocab = collections.Counter()
    for line in lines:
        for w in line.split():
            vocab[tuple(w) + (EOW,)] += 1
    merges = []
    for _ in range(num_merges):
        stats = collections.Counter()
        for word, freq in vocab.items():
            for i in range(len(word) - 1):
                stats[word[i], word[i + 1]] += freq
        if not stats:
            break
        best = max(sorted(stats), key=lambda p: stats[p])
        merges.append(best)
        new_vocab = collections.Counter()
        for word, freq in vocab.items():
            new_vocab[tuple(merge_word(list(word), best))] += freq
        vocab = new_vocab
    return merges


class BPETokenizer:
    def __init__(self, merges):
        self.bpe_ranks = {pair: i for i, pair in enumerate(merges)}
        symbols = set()
        for a, b in merges:
            symbols.update([a, b, a + b])
        for c in "abcdefghijklmnopqrstuvwxyz":
            symbols.update([c, c + EOW])
        symbols.add(EOW)
        self.itos = SPECIALS + sorted(symbols)
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        self.pad_id, self.bos_id, self.eos_id, self.unk_id = 0, 1, 2, 3

    def __len__(self):
        return len(self.itos)

    def bpe(self, token):
        word = list(token[:-1]) + [token[-1] + EOW]
        pairs = get_pairs(word)
        if not pairs:
            return word
        while True:
            bigram = min(pairs, key=lambda pair: self.bpe_ranks.get(pair, float("inf")))
            if bigram not in self.bpe_ranks:
                break
            word = merge_word(word, bigram)
            if len(word) == 1:
                break
            pairs = get_pairs(word)
        return word

    def encode(self, text):
        ids = []
        for token in text.lower().strip().split():
            for piece in self.bpe(token):
                ids.append(self.stoi.get(piece, self.unk_id))
        return ids
