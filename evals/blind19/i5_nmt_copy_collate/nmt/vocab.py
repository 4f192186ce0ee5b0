from collections import Counter


class Vocab:
    PAD, BOS, EOS, UNK = "<pad>", "<s>", "</s>", "<unk>"

    def __init__(self, counter, min_freq=1, specials=(PAD, BOS, EOS, UNK)):
        self.itos = list(specials)
        for tok, freq in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])):
            if freq >= min_freq and tok not in specials:
                self.itos.append(tok)
        self.stoi = {tok: i for i, tok in enumerate(self.itos)}

    @classmethod
    def build(cls, sentences, **kwargs):
        counter = Counter()
        for sent in sentences:
            counter.update(sent)
        return cls(counter, **kwargs)

    @property
    def pad_id(self):
        return self.stoi[self.PAD]

    @property
    def bos_id(self):
        return self.stoi[self.BOS]

    @property
    def eos_id(self):
        return self.stoi[self.EOS]

    def __len__(self):
        return len(self.itos)

    def encode(self, tokens):
        unk = self.stoi[self.UNK]
        return [self.stoi.get(t, unk) for t in tokens]
