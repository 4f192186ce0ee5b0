"""A small byte-pair-encoding word tokenizer (learned merges, GPT-2-style merge loop)."""
import collections

END = "</w>"
SPECIALS = ["<pad>", "<unk>", "<cls>", "<sep>"]


def _pairs(symbols):
    return {(symbols[i], symbols[i + 1]) for i in range(len(symbols) - 1)}


def _merge(symbols, pair):
    out = []
    i = 0
    while i < len(symbols):
        if i < len(symbols) - 1 and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


class BPETokenizer:
    def __init__(self, merges, vocab):
        self.ranks = {pair: r for r, pair in enumerate(merges)}
        self.vocab = vocab
        self.pad_id, self.unk_id, self.cls_id, self.sep_id = (vocab[s] for s in SPECIALS)

    @classmethod
    def train(cls, word_lists, num_merges):
        freqs = collections.Counter(w for words in word_lists for w in words if not w.startswith("<"))
        corpus = {w: list(w[:-1]) + [w[-1] + END] for w in freqs}
        merges = []
        for _ in range(num_merges):
            stats = collections.Counter()
            for w, syms in corpus.items():
                for i in range(len(syms) - 1):
                    stats[syms[i], syms[i + 1]] += freqs[w]
            if not stats:
                break
            best = max(stats, key=lambda p: (stats[p], p))
            if stats[best] < 2:
                break
            merges.append(best)
            corpus = {w: _merge(syms, best) for w, syms in corpus.items()}
        vocab = {s: i for i, s in enumerate(SPECIALS)}
        specials = sorted({w for words in word_lists for w in words if w.startswith("<")})
        symbols = sorted({c for w in freqs for c in w} | {c + END for w in freqs for c in w})
        for tok in specials + symbols + [a + b for a, b in merges]:
            vocab.setdefault(tok, len(vocab))
        return cls(merges, vocab)

    def merge_run(self, symbols):
        """Apply the learned merges, lowest rank first, to a run of words.

        No merge crosses a word boundary: END only ever closes the left side of a word.
        """
        while len(symbols) > 1:
            best = min(_pairs(symbols), key=lambda p: self.ranks.get(p, float("inf")))
            if best not in self.ranks:
                break
            symbols = _merge(symbols, best)
        return symbols

    def encode_words(self, words):
        ids = []
        run = []
        for w in words:
            if w.startswith("<") and len(w) > 1:
                if run:
                    ids.extend(self.vocab.get(s, self.unk_id) for s in self.merge_run(run))
                    run = []
                ids.append(self.vocab.get(w, self.unk_id))
            else:
                run.extend(list(w[:-1]) + [w[-1] + END])
        if run:
            ids.extend(self.vocab.get(s, self.unk_id) for s in self.merge_run(run))
        return ids

    def __len__(self):
        return len(self.vocab)
