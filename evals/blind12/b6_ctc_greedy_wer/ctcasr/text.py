"""Output units: a word-piece vocabulary learned from the transcripts (sentencepiece-style '\u2581'
marks a word start), greedy longest-match encoding, CTC blank at index 0."""
from collections import Counter

BLANK = 0
WORD_START = "\u2581"
# Cased, punctuated transcripts (digits and times spelled as written).
ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.,?!-:"


class PieceTokenizer:
    def __init__(self, pieces):
        self.itos = ["<blank>"] + list(pieces)
        self.stoi = {p: i for i, p in enumerate(self.itos) if i}
        self.max_len = max(len(p) for p in pieces)

    @classmethod
    def train(cls, texts, num_pieces, max_len=4):
        base = [WORD_START] + list(ALPHABET)
        counts = Counter()
        for text in texts:
            for word in text.split():
                s = WORD_START + word
                for i in range(len(s)):
                    for j in range(i + 2, min(len(s), i + max_len) + 1):
                        counts[s[i:j]] += 1
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1] * (len(kv[0]) - 1), kv[0]))
        merged = [p for p, _ in ranked[: num_pieces - len(base)]]
        return cls(base + merged)

    def __len__(self):
        return len(self.itos)

    def encode(self, text):
        ids = []
        for word in text.split():
            s = WORD_START + word
            i = 0
            while i < len(s):
                for j in range(min(len(s), i + self.max_len), i, -1):
                    pid = self.stoi.get(s[i:j])
                    if pid is not None:
                        ids.append(pid)
                        i = j
                        break
                else:
                    raise KeyError(s[i])
        return ids

    def decode(self, ids):
        return "".join(self.itos[i] for i in ids if i != BLANK).replace(WORD_START, " ").strip()
