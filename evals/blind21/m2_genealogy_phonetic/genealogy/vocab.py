import json


class PhoneticVocab:
    """token string <-> id, with the special tokens first."""

    special_tokens = ("[PAD]", "[UNK]", "[HH]", "[SEP]")

    def __init__(self, tokens):
        self.itos = list(self.special_tokens) + [t for t in tokens if t not in self.special_tokens]
        self.stoi = {t: i for i, t in enumerate(self.itos)}
        self.pad_id = self.stoi["[PAD]"]
        self.unk_id = self.stoi["[UNK]"]

    def __len__(self):
        return len(self.itos)

    def __getitem__(self, token):
        return self.stoi.get(token, self.unk_id)

    def to_json(self):
        return json.dumps(self.itos)

    @classmethod
    def from_reference_index(cls, surnames, given_names, codes, metaphone_len, coder):
        """Build the vocabulary from the reference name index (the canonical spellings)."""
        seen = []
        index = set()
        for role, names in (("SUR", surnames), ("GIV", given_names)):
            for name in names:
                for token in coder(role, name, codes, metaphone_len):
                    if token not in index:
                        index.add(token)
                        seen.append(token)
        return cls(seen)
