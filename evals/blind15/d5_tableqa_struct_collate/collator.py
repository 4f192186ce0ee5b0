"""TAPAS-style table linearisation: [CLS] question [SEP] header cells, then row cells; every token
carries row and column ids; a structural attention mask lets a cell token see the question, its own
row and its own column."""
import re
import zlib

import torch

TOKEN_RE = re.compile(r"\d+|[^\W\d_]+|[^\w\s]")
SPECIALS = {"[PAD]": 0, "[CLS]": 1, "[SEP]": 2, "[EMPTY]": 3}


def tokenize(text, buckets):
    """Lower-cased word/number/punct pieces, hashed into a fixed id space after the specials."""
    return [len(SPECIALS) + zlib.crc32(piece.encode()) % buckets for piece in TOKEN_RE.findall(text.lower())]


class TableQACollator:
    def __init__(self, max_seq_len, max_cell_tokens, hash_buckets, shuffle_rows=True, generator=None):
        self.max_seq_len = max_seq_len
        self.max_cell_tokens = max_cell_tokens
        self.buckets = hash_buckets
        self.shuffle_rows = shuffle_rows
        self.generator = generator

    def linearize(self, example):
        ids = [SPECIALS["[CLS]"]] + tokenize(example["question"], self.buckets)[: self.max_seq_len // 4]
        ids.append(SPECIALS["[SEP]"])
        row_ids, col_ids = [0] * len(ids), [0] * len(ids)
        rows = example["rows"]
        order = torch.randperm(len(rows), generator=self.generator).tolist() if self.shuffle_rows \
            else list(range(len(rows)))
        table = [example["header"]] + [rows[i] for i in order]
        for r, row in enumerate(table):
            cells = []
            for c, text in enumerate(row, start=1):
                toks = tokenize(text, self.buckets)[: self.max_cell_tokens] or [SPECIALS["[EMPTY]"]]
                cells.append((c, toks))
            width = sum(len(t) for _, t in cells)
            if len(ids) + width > self.max_seq_len:
                break  # whole rows only
            for c, toks in cells:
                ids.extend(toks)
                row_ids.extend([r + 1] * len(toks))
                col_ids.extend([c] * len(toks))
        return ids, row_ids, col_ids

    def structural_mask(self, row_ids, col_ids, length):
        n = len(row_ids)
        mask = []
        for i in range(length):
            line = []
            for j in range(length):
                if i >= n or j >= n:
                    line.append(1 if i == j else 0)  # padding sees only itself
                elif col_ids[i] == 0 or col_ids[j] == 0:
                    line.append(1)  # question and specials are global
                else:
                    line.append(1 if row_ids[i] == row_ids[j] or col_ids[i] == col_ids[j] else 0)
            mask.append(line)
        return mask

    def __call__(self, examples):
        encoded = [self.linearize(ex) for ex in examples]
        length = max(len(ids) for ids, _, _ in encoded)
        batch = {"input_ids": [], "row_ids": [], "column_ids": [], "attention_mask": [], "structure_mask": []}
        for ids, rows, cols in encoded:
            pad = length - len(ids)
            batch["input_ids"].append(ids + [SPECIALS["[PAD]"]] * pad)
            batch["row_ids"].append(rows + [0] * pad)
            batch["column_ids"].append(cols + [0] * pad)
            batch["attention_mask"].append([1] * len(ids) + [0] * pad)
            batch["structure_mask"].append(self.structural_mask(rows, cols, length))
        out = {k: torch.tensor(v, dtype=torch.long) for k, v in batch.items()}
        out["structure_mask"] = out["structure_mask"].bool()
        out["labels"] = torch.tensor([ex["answer_col"] for ex in examples], dtype=torch.long)
        return out
