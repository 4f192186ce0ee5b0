"""Linearise (question, table) pairs: wordpiece ids, row/column ids, cell truncation, TURL-style visibility."""
import re
from dataclasses import dataclass

import torch

_WORD = re.compile(r"\w+|[^\w\s]")


@dataclass
class TableBatch:
    input_ids: torch.Tensor      # (B, L) long
    row_ids: torch.Tensor        # (B, L) long, 0 = question/header
    col_ids: torch.Tensor        # (B, L) long, 0 = question
    attention_mask: torch.Tensor  # (B, L) long
    visibility: torch.Tensor     # (B, L, L) bool: may token i attend to token j
    answer_mask: torch.Tensor    # (B, L) float

    def as_dict(self):
        return dict(vars(self))


class WordPieceTokenizer:
    """Greedy longest-match-first wordpiece over a fixed vocabulary (BERT style)."""

    def __init__(self, vocab, max_chars=40):
        self.vocab = vocab
        self.max_chars = max_chars
        self.unk_id = vocab["[UNK]"]

    @classmethod
    def build(cls, texts, size=3000):
        counts = {}
        for text in texts:
            for w in _WORD.findall(text.lower()):
                for i in range(1, len(w) + 1):
                    counts[w[:i]] = counts.get(w[:i], 0) + 1
                    if i < len(w):
                        counts["##" + w[i:]] = counts.get("##" + w[i:], 0) + 1
        chars = sorted({ch for text in texts for ch in text.lower() if not ch.isspace()})
        pieces = [p for p, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + chars + ["##" + ch for ch in chars]
        seen = set(vocab)
        vocab += [p for p in pieces if p not in seen][: max(0, size - len(vocab))]
        return cls({p: i for i, p in enumerate(vocab)})

    def tokenize(self, text):
        ids = []
        for word in _WORD.findall(text.lower()):
            if len(word) > self.max_chars:
                ids.append(self.unk_id)
                continue
            start, pieces = 0, []
            while start < len(word):
                end = len(word)
                cur = None
                while start < end:
                    sub = word[start:end] if start == 0 else "##" + word[start:end]
                    if sub in self.vocab:
                        cur = self.vocab[sub]
                        break
                    end -= 1
                if cur is None:
                    pieces = [self.unk_id]
                    break
                pieces.append(cur)
                start = end
            ids.extend(pieces)
        return ids


class TableCollator:
    def __init__(self, tokenizer, max_length, max_cell_tokens):
        self.tok = tokenizer
        self.max_length = max_length
        self.max_cell_tokens = max_cell_tokens
        self.cls_id, self.sep_id = tokenizer.vocab["[CLS]"], tokenizer.vocab["[SEP]"]

    def linearise(self, ex):
        ids = [self.cls_id] + self.tok.tokenize(ex["question"]) + [self.sep_id]
        rows, cols, answer = [0] * len(ids), [0] * len(ids), [0.0] * len(ids)
        n_question = len(ids)
        cells = [(0, c, text) for c, text in enumerate(ex["header"])]
        cells += [(r + 1, c, text) for r, row in enumerate(ex["rows"]) for c, text in enumerate(row)]
        ans_r, ans_c = ex["answer"]
        for r, c, text in cells:
            piece = self.tok.tokenize(text)[: self.max_cell_tokens]
            if len(ids) + len(piece) > self.max_length:
                break
            hit = 1.0 if (r == ans_r + 1 and c == ans_c) else 0.0
            ids += piece
            rows += [r] * len(piece)
            cols += [c + 1] * len(piece)
            answer += [hit] * len(piece)
        return ids, rows, cols, answer, n_question

    def __call__(self, examples):
        encoded = [self.linearise(ex) for ex in examples]
        width = max(len(e[0]) for e in encoded)
        input_ids, row_ids, col_ids, attn, vis, ans = [], [], [], [], [], []
        for ids, rows, cols, answer, n_q in encoded:
            n, pad = len(ids), width - len(ids)
            input_ids.append(ids + [0] * pad)
            row_ids.append(rows + [0] * pad)
            col_ids.append(cols + [0] * pad)
            attn.append([1] * n + [0] * pad)
            ans.append(answer + [0.0] * pad)
            vis.append([[i == j or (i < n and j < n and (i < n_q or j < n_q or rows[i] == rows[j]
                                                          or cols[i] == cols[j]))
                         for j in range(width)] for i in range(width)])
        return TableBatch(torch.tensor(input_ids), torch.tensor(row_ids), torch.tensor(col_ids),
                          torch.tensor(attn), torch.tensor(vis, dtype=torch.bool),
                          torch.tensor(ans, dtype=torch.float32))
