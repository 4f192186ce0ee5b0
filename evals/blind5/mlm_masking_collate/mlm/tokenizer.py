"""A word-level tokenizer with BERT-style special tokens (enough of the HF interface for MLM)."""


class WordTokenizer:
    pad_token, cls_token, sep_token, mask_token, unk_token = "[PAD]", "[CLS]", "[SEP]", "[MASK]", "[UNK]"

    def __init__(self, words, additional_special_tokens=()):
        self.special_tokens_map = {
            "pad_token": self.pad_token, "cls_token": self.cls_token, "sep_token": self.sep_token,
            "mask_token": self.mask_token, "unk_token": self.unk_token,
            "additional_special_tokens": list(additional_special_tokens),
        }
        self.id_to_token = [self.pad_token, self.cls_token, self.sep_token, self.mask_token, self.unk_token]
        self.id_to_token += list(additional_special_tokens) + list(words)
        self.vocab = {tok: i for i, tok in enumerate(self.id_to_token)}

    def __len__(self):
        return len(self.id_to_token)

    @property
    def all_special_tokens(self):
        """Special tokens in declaration order, without duplicates."""
        seen = []
        for value in self.special_tokens_map.values():
            for tok in (value if isinstance(value, (list, tuple)) else [value]):
                if tok not in seen:
                    seen.append(tok)
        return seen

    @property
    def all_special_ids(self):
        return self.convert_tokens_to_ids(self.all_special_tokens)

    @property
    def pad_token_id(self):
        return self.vocab[self.pad_token]

    @property
    def mask_token_id(self):
        return self.vocab[self.mask_token]

    def convert_tokens_to_ids(self, tokens):
        if isinstance(tokens, str):
            return self.vocab.get(tokens, self.vocab[self.unk_token])
        return [self.convert_tokens_to_ids(t) for t in tokens]

    def encode(self, text):
        ids = self.convert_tokens_to_ids(text.split())
        return [self.vocab[self.cls_token]] + ids + [self.vocab[self.sep_token]]
