import random

import torch
from torch.utils.data import Dataset

CUISINES = ["italian", "mexican", "indian", "japanese", "french", "thai"]
SYLL = ["ra", "to", "mi", "ka", "shi", "lo", "pe", "ne", "su", "ta", "go", "ri", "cha", "ve",
        "mo", "bu", "li", "ze", "pa", "do"]
COMMON = ["with", "and", "easy", "quick", "baked", "spicy", "fresh", "homemade", "classic", "the"]


def make_titles(n, seed):
    rng = random.Random(seed)
    lexicon = {}
    for c in CUISINES:
        words = set()
        while len(words) < 40:
            words.add("".join(rng.choice(SYLL) for _ in range(rng.randint(2, 4))))
        lexicon[c] = sorted(words)
    titles, labels = [], []
    for _ in range(n):
        y = rng.randrange(len(CUISINES))
        words = []
        for _ in range(rng.randint(4, 9)):
            r = rng.random()
            if r < 0.55:
                words.append(rng.choice(lexicon[CUISINES[y]]))
            elif r < 0.75:
                words.append(rng.choice(lexicon[CUISINES[rng.randrange(len(CUISINES))]]))
            else:
                words.append(rng.choice(COMMON))
        title = " ".join(words)
        if rng.random() < 0.5:
            title = title.title()
        titles.append(title)
        labels.append(y)
    return titles, labels


class RecipeTitles(Dataset):
    def __init__(self, titles, labels, tokenizer, max_len):
        self.titles, self.labels = titles, labels
        self.tok, self.max_len = tokenizer, max_len

    def __len__(self):
        return len(self.titles)

    def __getitem__(self, i):
        ids, mask = self.tok.encode(self.titles[i], self.max_len)
        return {"input_ids": torch.tensor(ids), "attention_mask": torch.tensor(mask),
                "labels": torch.tensor(self.labels[i])}
