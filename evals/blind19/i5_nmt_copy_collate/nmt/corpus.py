"""A synthetic parallel corpus: a word-for-word 'language' with local reordering, plus copyable
spans (names, numbers, codes) that appear verbatim, or with different casing/punctuation, on both sides."""
import random

from torch.utils.data import Dataset

_SYL = "ka lo mi ne ru ta si po be da fu gi ho ja ke li mo nu pa re so tu va we yo zi".split()
_ACCENTED = str.maketrans("aeiouAEIOU", "áéíóúÁÉÍÓÚ")
_NAMES = ("Berlin Lisbon Oslo Quito Nairobi Kyoto Dakar Lima Perth Tallinn Bergen Porto Ghent Turku "
          "Ada Linus Grace Alan Edsger Barbara Ken Dennis Guido Bjarne Margaret Donald").split()


def _word(rng, n_syl):
    return "".join(rng.choice(_SYL) for _ in range(n_syl))


def _copy_token(rng):
    r = rng.random()
    if r < 0.5:
        return rng.choice(_NAMES)
    if r < 0.8:
        return str(rng.randint(1, 120))
    return f"{rng.choice('ABCDEFGH')}{rng.randint(10, 99)}-{rng.randint(100, 999)}"


def _surface(rng, tok):
    """How a copyable token is written on the source side: as is, upper-cased, accented, or with punctuation."""
    r = rng.random()
    if r < 0.55:
        return tok
    if r < 0.7:
        return tok.upper()
    if r < 0.85:
        return tok.translate(_ACCENTED)
    return tok + rng.choice([",", ".", ";", ":"])


def make_parallel_corpus(num_pairs, src_vocab_words, min_len, max_len, copy_rate, seed=0):
    rng = random.Random(seed)
    src_words = sorted({_word(rng, rng.randint(1, 3)) for _ in range(src_vocab_words * 2)})[:src_vocab_words]
    tgt_words = {w: _word(rng, rng.randint(1, 3)) + "e" for w in src_words}
    pairs = []
    for _ in range(num_pairs):
        n = rng.randint(min_len, max_len)
        src, tgt = [], []
        for _ in range(n):
            if rng.random() < copy_rate:
                tok = _copy_token(rng)
                src.append(_surface(rng, tok))
                tgt.append(tok)
            else:
                w = rng.choice(src_words)
                src.append(w)
                tgt.append(tgt_words[w])
        # target-side local reordering (adjacent swaps, like adjective/noun order)
        for i in range(0, len(tgt) - 1, 3):
            if rng.random() < 0.5:
                tgt[i], tgt[i + 1] = tgt[i + 1], tgt[i]
        pairs.append((src, tgt))
    return pairs


class ParallelCorpus(Dataset):
    def __init__(self, pairs, src_vocab, tgt_vocab):
        self.pairs = pairs
        self.src_vocab = src_vocab
        self.tgt_vocab = tgt_vocab

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, idx):
        src, tgt = self.pairs[idx]
        return {
            "src_tokens": src,
            "tgt_tokens": tgt,
            "src_ids": self.src_vocab.encode(src),
            "tgt_ids": self.tgt_vocab.encode(tgt),
        }
