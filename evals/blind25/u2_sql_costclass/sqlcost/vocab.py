import zlib

from .lexer import KEYWORDS, PUNCT, TWO_CHAR_OPS

SPECIALS = ["[PAD]", "[CLS]", "[UNK]", "<STR>", "<NUM>"]


class SqlVocab:
    """Fixed symbols (specials, keywords, operators) plus hashed identifier buckets."""

    def __init__(self, ident_buckets):
        symbols = SPECIALS + sorted(KEYWORDS) + sorted(TWO_CHAR_OPS) + sorted(PUNCT)
        self.stoi = {s: i for i, s in enumerate(symbols)}
        self.n_fixed = len(symbols)
        self.ident_buckets = ident_buckets
        self.pad_id = self.stoi["[PAD]"]
        self.cls_id = self.stoi["[CLS]"]

    def __len__(self):
        return self.n_fixed + self.ident_buckets

    def lookup(self, token):
        idx = self.stoi.get(token)
        if idx is None:
            # identifiers: strip trailing digits so t0/t1 or cte_0/cte_1 share a bucket
            base = token.rstrip("0123456789") or token
            idx = self.n_fixed + zlib.crc32(base.encode("utf-8")) % self.ident_buckets
        return idx

    def encode(self, tokens):
        return [self.cls_id] + [self.lookup(t) for t in tokens]
