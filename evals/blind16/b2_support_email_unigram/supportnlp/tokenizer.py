"""A unigram-LM-like piece tokenizer: piece log-probabilities and Viterbi segmentation per word."""
import math
import re
from collections import Counter

WORD_RE = re.compile(r"<\w+>|\w+|[^\w\s]")
SPECIALS = ["<pad>", "<unk>", "<mask>", "<url>", "<email>", "<address>", "<phone>"]
BOW = "\u2581"


class UnigramTokenizer:
    pad_id, unk_id, mask_id = 0, 1, 2

    def __init__(self, vocab_size=2400, max_piece_len=7, unk_penalty=-12.0):
        self.vocab_size = vocab_size
        self.max_piece_len = max_piece_len
        self.unk_penalty = unk_penalty
        self.piece_to_id = {}
        self.scores = {}

    def fit(self, texts):
        words = Counter(w.lower() for t in texts for w in WORD_RE.findall(t) if w not in SPECIALS)
        counts = Counter()
        chars = set()
        for word, freq in words.items():
            w = BOW + word
            chars.update(w)
            for i in range(len(w)):
                for j in range(i + 2, min(len(w), i + self.max_piece_len) + 1):
                    counts[w[i:j]] += freq
        keep = sorted(counts.items(), key=lambda kv: (-kv[1] * (len(kv[0]) ** 0.5), kv[0]))
        keep = keep[: self.vocab_size - len(SPECIALS) - len(chars)]
        char_count = Counter()
        for word, freq in words.items():
            for c in BOW + word:
                char_count[c] += freq
        total = sum(c for _, c in keep) + sum(char_count.values())
        pieces = SPECIALS + sorted(chars) + [p for p, _ in keep]
        self.piece_to_id = {p: i for i, p in enumerate(pieces)}
        self.scores = {p: math.log(c / total) for p, c in keep}
        for c in chars:
            self.scores[c] = math.log(max(char_count[c], 1) / total) - 2.0
        return self

    def segment(self, word):
        """Viterbi: best[j] = max over pieces word[k:j] of best[k] + score(piece); first (longest) wins ties."""
        n = len(word)
        best = [0.0] + [-math.inf] * n
        back = [0] * (n + 1)
        scores = self.scores
        for j in range(1, n + 1):
            for k in range(max(0, j - self.max_piece_len), j):
                if best[k] == -math.inf:
                    continue
                piece = word[k:j]
                lp = scores.get(piece)
                if lp is None:
                    if j - k > 1:
                        continue
                    lp = self.unk_penalty
                cand = best[k] + lp
                if cand > best[j]:
                    best[j] = cand
                    back[j] = k
        pieces = []
        j = n
        while j > 0:
            k = back[j]
            pieces.append(word[k:j])
            j = k
        pieces.reverse()
        return pieces

    def encode(self, text):
        ids = []
        for w in WORD_RE.findall(text):
            if w in SPECIALS:
                ids.append(self.piece_to_id[w])
                continue
            for piece in self.segment(BOW + w.lower()):
                ids.append(self.piece_to_id.get(piece, self.unk_id))
        return ids

    def __len__(self):
        return len(self.piece_to_id)
