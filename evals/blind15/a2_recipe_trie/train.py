#!/usr/bin/env python
"""Cuisine classifier over parsed ingredient lists (bag of quantity-weighted ingredient embeddings).

usage: python train.py recipe.json
"""
import json
import math
import random
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset

import evalkit
from recipe_text import CUISINES, IngredientTrie, generate_corpus, parse_line


class RecipeStream(IterableDataset):
    """Streams recipes in a per-epoch shuffled order; each recipe is parsed line by line as it is served."""

    def __init__(self, recipes, vocab, max_lines, line_dropout, servings, seed):
        self.recipes = recipes
        self.trie = IngredientTrie(vocab)
        self.max_lines = max_lines
        self.line_dropout = line_dropout
        self.servings = list(servings)
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _encode(self, recipe, gen):
        parsed = [parse_line(line, self.trie) for line in recipe["lines"]]
        scale = self.servings[int(torch.randint(len(self.servings), (1,), generator=gen))]
        keep = torch.rand(len(parsed), generator=gen) >= self.line_dropout
        ids = torch.zeros(self.max_lines, dtype=torch.long)
        units = torch.zeros(self.max_lines, dtype=torch.long)
        amount = torch.zeros(self.max_lines, dtype=torch.float32)
        mentions = torch.zeros(self.max_lines, dtype=torch.long)
        slot = 0
        for (ing, unit, qty, n_mentions), k in zip(parsed, keep.tolist()):
            if not k or slot >= self.max_lines:
                continue
            ids[slot], units[slot], mentions[slot] = ing, unit, n_mentions
            amount[slot] = math.log1p(qty * scale)
            slot += 1
        return ids, units, amount, mentions, torch.tensor(recipe["cuisine"])

    def __iter__(self):
        gen = torch.Generator().manual_seed(self.seed * 1000 + self.epoch)
        order = torch.randperm(len(self.recipes), generator=gen).tolist()
        for i in order:
            yield self._encode(self.recipes[i], gen)


class BagOfIngredients(nn.Module):
    def __init__(self, n_ingredients, n_units, dim, hidden, n_classes):
        super().__init__()
        self.ing = nn.Embedding(n_ingredients, dim, padding_idx=0)
        self.unit = nn.Embedding(n_units, dim)
        self.mlp = nn.Sequential(nn.Linear(dim + 1, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, ids, units, amount):
        mask = (ids != 0).float().unsqueeze(-1)
        tok = (self.ing(ids) + self.unit(units)) * (1.0 + amount.unsqueeze(-1))
        pooled = (tok * mask).sum(1) / mask.sum(1).clamp_min(1.0)
        n = mask.sum(1) / ids.shape[1]
        return self.mlp(torch.cat([pooled, n], dim=-1))


def main(argv):
    with open(argv[1] if len(argv) > 1 else "recipe.json") as fh:
        cfg = json.load(fh)
    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    vocab, recipes = generate_corpus(cfg["seed"], cfg["corpus"]["n_recipes"], cfg["corpus"]["max_lines"])
    stream = RecipeStream(recipes, vocab, cfg["corpus"]["max_lines"], cfg["augment"]["line_dropout"],
                          cfg["augment"]["servings"], cfg["seed"])
    loader = DataLoader(stream, batch_size=cfg["loader"]["batch_size"], num_workers=cfg["loader"]["num_workers"])
    model = BagOfIngredients(len(vocab) + 2, 4, cfg["model"]["dim"], cfg["model"]["hidden"], len(CUISINES))
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    meter = evalkit.Meter()

    step, epoch, unknown, multi = 0, 0, 0, 0
    max_steps = cfg["optim"]["max_steps"]
    while step < max_steps and not meter.done():
        stream.set_epoch(epoch)
        for ids, units, amount, mentions, label in loader:
            meter.batch((ids, units, amount, mentions, label))
            loss = F.cross_entropy(model(ids, units, amount), label)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            unknown += int((ids == 1).sum())
            multi += int((mentions > 1).sum())
            step += 1
            if step >= max_steps or meter.done():
                break
        epoch += 1
    meter.report({"unknown_ingredients": unknown, "multi_mention_lines": multi, "epochs": epoch})


if __name__ == "__main__":
    main(sys.argv)
