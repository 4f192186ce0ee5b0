"""A small SentencePiece-style unigram tokenizer: Viterbi segmentation over a scored piece table."""
import math
import unicodedata
from collections import Counter

SPACE = "\u2581"
PAD, UNK = 0, 1


class UnigramTokenizer:
    def __init__(self, pieces, max_piece):
        # pieces: {piece: log_prob}; ids 0/1 are reserved
        self.scores = dict(pieces)
        self.vocab = {p: i + 2 for i, p in enumerate(sorted(pieces))}
        self.max_piece = max_piece
        self.unk_score = min(pieces.values()) - 10.0

    @classmethod
    def train(cls, texts, max_piece=8, min_count=40):
        counts = Counter()
        for text in texts:
            s = cls.normalize(text)
            for i in range(len(s)):
                for j in range(i + 1, min(len(s), i + max_piece) + 1):
                    counts[s[i:j]] += 1
        kept = {p: c for p, c in counts.items() if c >= min_count or len(p) == 1}
        total = sum(kept.values())
        return cls({p: math.log(c / total) for p, c in kept.items()}, max_piece)

    @staticmethod
    def normalize(text):
        text = unicodedata.normalize("NFKC", text).lower().strip()
        return SPACE + SPACE.join(text.split())

    def segment(self, s):
        n = len(s)
        best = [0.0] + [-math.inf] * n
        back = [0] * (n + 1)
        for end in range(1, n + 1):
            for start in range(max(0, end - self.max_piece), end):
                piece = s[start:end]
                score = self.scores.get(piece)
                if score is None:
                    if end - start != 1:
                        continue
                    score = self.unk_score
                cand = best[start] + score
                if cand > best[end]:
                    best[end] = cand
                    back[end] = start
        pieces = []
        end = n
        while end > 0:
            start = back[end]
            pieces.append(s[start:end])
            end = start
        pieces.reverse()
        return pieces

    def encode(self, text, max_len):
        pieces = self.segment(self.normalize(text))
        ids = [self.vocab.get(p, UNK) for p in pieces][:max_len]
        mask = [1] * len(ids) + [0] * (max_len - len(ids))
        ids = ids + [PAD] * (max_len - len(ids))
        return ids, mask

    def __len__(self):
        return len(self.vocab) + 2
