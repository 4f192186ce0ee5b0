"""A hashtag tokenizer: Viterbi word break over unigram costs, then word ids (HF-style call)."""
import math

import torch

PAD, UNK = 0, 1


class HashtagTokenizer:
    def __init__(self, lexicon, word_cost, max_word_len=16, unk_base_cost=12.0, unk_char_cost=3.0):
        self.vocab = {"[PAD]": PAD, "[UNK]": UNK}
        for w in lexicon:
            self.vocab[w] = len(self.vocab)
        self.word_cost = word_cost
        self.max_word_len = max_word_len
        self.unk_base_cost = unk_base_cost
        self.unk_char_cost = unk_char_cost

    def unk_cost(self, length):
        return self.unk_base_cost + self.unk_char_cost * length

    def segment(self, tag):
        """Most probable split of `tag` into words (minimum total cost; first best wins ties)."""
        s = tag.lower()
        n = len(s)
        best = [0.0] + [math.inf] * n
        back = [0] * (n + 1)
        for i in range(1, n + 1):
            b, arg = math.inf, i - 1
            for k in range(1, min(i, self.max_word_len) + 1):
                word = s[i - k:i]
                c = best[i - k] + self.word_cost.get(word, self.unk_cost(k))
                if c < b:
                    b, arg = c, i - k
            best[i] = b
            back[i] = arg
        words = []
        i = n
        while i > 0:
            words.append(s[back[i]:i])
            i = back[i]
        return words[::-1]

    def tokenize(self, text):
        words = []
        for tok in text.split():
            words.extend(self.segment(tok.lstrip("#")))
        return words

    def encode(self, text):
        return [self.vocab.get(w, UNK) for w in self.tokenize(text)]

    def __call__(self, texts, padding=True, max_length=None, return_tensors="pt"):
        ids = [self.encode(t) for t in texts]
        if max_length is not None:
            ids = [x[:max_length] for x in ids]
        width = max(len(x) for x in ids) if padding else None
        input_ids = [x + [PAD] * (width - len(x)) for x in ids]
        mask = [[1] * len(x) + [0] * (width - len(x)) for x in ids]
        return {"input_ids": torch.tensor(input_ids, dtype=torch.long),
                "attention_mask": torch.tensor(mask, dtype=torch.long)}
