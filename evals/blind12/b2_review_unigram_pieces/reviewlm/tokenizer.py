"""A unigram-LM piece tokenizer in the spirit of sentencepiece: pieces with log-probability scores,
each word segmented by a Viterbi search for the highest-scoring sequence of pieces."""
import math
import re
from collections import Counter

WORD_BOUNDARY = "\u2581"
_TOKEN_RE = re.compile(r"[a-z0-9]+(?:[-'.][a-z0-9]+)*|[^\sa-z0-9]")


class UnigramTokenizer:
    pad_token, unk_token, cls_token = "<pad>", "<unk>", "<cls>"

    def __init__(self, pieces, max_piece_len=8, unk_score=-20.0):
        # pieces: list of (piece, score); ids follow the special tokens in list order.
        self.specials = [self.pad_token, self.unk_token, self.cls_token]
        self.vocab = {tok: i for i, tok in enumerate(self.specials)}
        self.scores = {}
        for piece, score in pieces:
            if piece not in self.vocab:
                self.vocab[piece] = len(self.vocab)
                self.scores[piece] = score
        self.max_piece_len = max_piece_len
        self.unk_score = unk_score
        self.pad_id, self.unk_id, self.cls_id = 0, 1, 2

    @classmethod
    def train(cls, texts, vocab_size, max_piece_len=8, unk_score=-20.0):
        """Seed pieces: every substring (up to max_piece_len) of every word, by frequency; score = log p."""
        words = Counter()
        for text in texts:
            words.update(cls.pre_tokenize(text))
        counts = Counter()
        chars = set()
        for word, freq in words.items():
            chars.update(word)
            for i in range(len(word)):
                for j in range(i + 2, min(len(word), i + max_piece_len) + 1):
                    counts[word[i:j]] += freq
        top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[: vocab_size - len(chars)]
        total = sum(c for _, c in top) + len(chars)
        pieces = [(p, math.log(c / total)) for p, c in top]
        pieces += [(ch, math.log(1.0 / total)) for ch in sorted(chars)]
        return cls(pieces, max_piece_len=max_piece_len, unk_score=unk_score)

    @staticmethod
    def normalize(text):
        return " ".join(text.lower().split())

    @classmethod
    def pre_tokenize(cls, text):
        return [WORD_BOUNDARY + w for w in _TOKEN_RE.findall(cls.normalize(text))]

    def segment(self, word):
        """Viterbi over end positions; on equal scores the earlier start (longer piece) wins."""
        n = len(word)
        best = [0.0] + [-math.inf] * n
        back = [0] * (n + 1)
        for end in range(1, n + 1):
            for start in range(max(0, end - self.max_piece_len), end):
                if best[start] == -math.inf:
                    continue
                piece = word[start:end]
                score = self.scores.get(piece)
                if score is None:
                    if end - start > 1:
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
            pieces.append(word[start:end])
            end = start
        pieces.reverse()
        return pieces

    def tokenize(self, text):
        return [p for w in self.pre_tokenize(text) for p in self.segment(w)]

    def convert_tokens_to_ids(self, tokens):
        return [self.vocab.get(t, self.unk_id) for t in tokens]

    def __call__(self, text):
        ids = [self.cls_id] + self.convert_tokens_to_ids(self.tokenize(text))
        return {"input_ids": ids}

    def __len__(self):
        return len(self.vocab)
