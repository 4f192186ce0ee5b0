"""A small unigram-LM subword tokenizer (SentencePiece-style pieces, Viterbi segmentation)."""
import math
from collections import Counter

WORD_START = "\u2581"


class UnigramTokenizer:
    special_tokens = ["<pad>", "<unk>", "<mask>", "<cls>", "<url>", "<email>", "<address>", "<phone>", "<order>"]

    def __init__(self, pieces, max_piece_len=10, unk_score=-25.0):
        # pieces: {piece: log-probability}
        self.vocab = {tok: i for i, tok in enumerate(self.special_tokens)}
        for piece in sorted(pieces, key=lambda p: (-pieces[p], p)):
            self.vocab.setdefault(piece, len(self.vocab))
        self.scores = dict(pieces)
        self.max_piece_len = max_piece_len
        self.unk_score = unk_score
        self.pad_id, self.unk_id, self.mask_id, self.cls_id = 0, 1, 2, 3

    @classmethod
    def train(cls, word_lists, vocab_size, max_piece_len=10):
        """Seed pieces from substring counts (a one-shot stand-in for EM pruning)."""
        counts = Counter()
        for words in word_lists:
            for w in words:
                if w.startswith("<"):
                    continue
                w = WORD_START + w
                for i in range(len(w)):
                    for j in range(i + 1, min(len(w), i + max_piece_len) + 1):
                        counts[w[i:j]] += 1
        chars = {p for p in counts if len(p) == 1}
        multi = [p for p, c in counts.most_common() if len(p) > 1 and c >= 2]
        keep = sorted(chars) + multi[: max(vocab_size - len(chars), 0)]
        total = sum(counts[p] for p in keep)
        pieces = {p: math.log(counts[p] / total) for p in keep}
        return cls(pieces, max_piece_len)

    def segment(self, word):
        """Viterbi: best-scoring split of WORD_START + word into pieces; ties keep the earliest split."""
        text = WORD_START + word
        n = len(text)
        best = [0.0] + [-math.inf] * n
        back = [0] * (n + 1)
        for end in range(1, n + 1):
            for start in range(max(0, end - self.max_piece_len), end):
                if best[start] == -math.inf:
                    continue
                piece = text[start:end]
                score = self.scores.get(piece)
                if score is None:
                    if end - start > 1:
                        continue
                    score = self.unk_score
                cand = best[start] + score
                if cand > best[end]:
                    best[end], back[end] = cand, start
        out, end = [], n
        while end > 0:
            start = back[end]
            out.append(text[start:end])
            end = start
        out.reverse()
        return out

    def encode_words(self, words):
        ids = []
        for w in words:
            if w in self.vocab and w.startswith("<"):
                ids.append(self.vocab[w])
                continue
            ids.extend(self.vocab.get(p, self.unk_id) for p in self.segment(w))
        return ids

    def __len__(self):
        return len(self.vocab)
