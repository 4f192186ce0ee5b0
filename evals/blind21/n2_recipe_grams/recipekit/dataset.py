import math
import random
from dataclasses import dataclass

import torch
from torch.utils.data import Dataset

from .units import normalise, parse_line


class RecipeDataset(Dataset):
    """One recipe card per item: parsed, converted to grams, normalised and BPE-tokenised."""

    def __init__(self, recipes, tokenizer, max_tokens, max_lines, shuffle_lines, seed):
        self.recipes = recipes
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.max_lines = max_lines
        self.shuffle_lines = shuffle_lines
        self.seed = seed
        self.epoch = 0

    def __len__(self):
        return len(self.recipes)

    def __getitem__(self, idx):
        rec = self.recipes[idx]
        lines = list(rec["lines"])
        if self.shuffle_lines:
            random.Random(f"{self.seed}-{self.epoch}-{idx}").shuffle(lines)
        ids, grams = [], []
        for line in lines[: self.max_lines]:
            ing = parse_line(line)
            grams.append(math.log1p(ing.grams))
            ids.append(self.tokenizer.line_id)
            # the raw line and its canonical gram form, e.g. "1 1/2 cups flour, sifted => 1.5 cups = 199 g flour ; sifted"
            ids.extend(self.tokenizer.encode(f"{line} => {normalise(ing)}"))
        ids = ids[: self.max_tokens]
        return {"input_ids": ids, "grams": grams, "labels": rec["label"]}


@dataclass
class RecipeCollator:
    pad_id: int
    max_lines: int

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        input_ids = torch.full((len(features), longest), self.pad_id, dtype=torch.long)
        grams = torch.zeros(len(features), self.max_lines)
        for i, f in enumerate(features):
            input_ids[i, : len(f["input_ids"])] = torch.tensor(f["input_ids"], dtype=torch.long)
            grams[i, : len(f["grams"])] = torch.tensor(f["grams"])
        return {
            "input_ids": input_ids,
            "attention_mask": (input_ids != self.pad_id).long(),
            "grams": grams,
            "labels": torch.tensor([f["labels"] for f in features], dtype=torch.long),
        }
