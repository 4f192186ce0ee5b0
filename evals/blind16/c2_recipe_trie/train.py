#!/usr/bin/env python
"""Cuisine classification from free-text ingredient lists.

Each recipe is a list of lines as scraped from recipe sites ("1 1/2 cups all-purpose flour, sifted",
"½ tsp Kosher salt", "2 (14.5 oz.) cans diced tomatoes"). Lines are parsed into (ingredient id,
quantity in canonical units, unit class, modifier hashes); the ingredient is the longest multi-word
vocabulary entry found in the line (trie over word tokens).
"""
import argparse
import json
import random
import re
import unicodedata
import zlib
from fractions import Fraction

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit

INGREDIENTS = [
    "flour", "all-purpose flour", "whole wheat flour", "bread flour", "almond flour", "cake flour",
    "sugar", "brown sugar", "light brown sugar", "dark brown sugar", "powdered sugar", "granulated sugar",
    "salt", "kosher salt", "sea salt", "black pepper", "ground black pepper", "white pepper",
    "butter", "unsalted butter", "salted butter", "peanut butter", "olive oil", "extra virgin olive oil",
    "vegetable oil", "sesame oil", "toasted sesame oil", "coconut oil", "coconut milk", "milk",
    "whole milk", "buttermilk", "heavy cream", "sour cream", "cream cheese", "parmesan cheese",
    "cheddar cheese", "sharp cheddar cheese", "mozzarella cheese", "fresh mozzarella", "feta cheese",
    "eggs", "egg yolks", "egg whites", "garlic", "garlic cloves", "garlic powder", "onion", "red onion",
    "yellow onion", "green onions", "onion powder", "shallots", "ginger", "fresh ginger", "ground ginger",
    "soy sauce", "low sodium soy sauce", "fish sauce", "oyster sauce", "hoisin sauce", "rice vinegar",
    "red wine vinegar", "balsamic vinegar", "apple cider vinegar", "lemon juice", "fresh lemon juice",
    "lime juice", "lemon zest", "tomatoes", "diced tomatoes", "crushed tomatoes", "tomato paste",
    "cherry tomatoes", "bell pepper", "red bell pepper", "green bell pepper", "jalapeno", "chili powder",
    "red pepper flakes", "crushed red pepper flakes", "cumin", "ground cumin", "cumin seeds", "paprika",
    "smoked paprika", "turmeric", "ground turmeric", "garam masala", "curry powder", "cinnamon",
    "ground cinnamon", "nutmeg", "oregano", "dried oregano", "basil", "fresh basil", "thyme",
    "fresh thyme", "rosemary", "cilantro", "fresh cilantro", "parsley", "fresh parsley", "flat-leaf parsley",
    "chicken breast", "boneless skinless chicken breast", "chicken thighs", "chicken broth",
    "low sodium chicken broth", "beef broth", "ground beef", "lean ground beef", "pork shoulder", "bacon",
    "shrimp", "salmon fillets", "tofu", "firm tofu", "rice", "jasmine rice", "basmati rice", "brown rice",
    "pasta", "spaghetti", "egg noodles", "rice noodles", "black beans", "kidney beans", "chickpeas",
    "lentils", "red lentils", "corn", "frozen peas", "carrots", "celery", "celery stalks", "potatoes",
    "sweet potatoes", "spinach", "baby spinach", "mushrooms", "cremini mushrooms", "zucchini", "eggplant",
    "avocado", "honey", "maple syrup", "vanilla extract", "pure vanilla extract", "baking soda",
    "baking powder", "cornstarch", "yeast", "active dry yeast", "cocoa powder", "chocolate chips",
    "semisweet chocolate chips", "walnuts", "pecans", "peanuts", "cashews", "sesame seeds", "water",
    "warm water", "white wine", "dry white wine", "red wine", "tortillas", "flour tortillas",
    "corn tortillas", "salsa", "greek yogurt", "plain yogurt", "mayonnaise", "dijon mustard", "ketchup",
]
CUISINES = ["italian", "mexican", "indian", "chinese", "american", "french", "thai", "mediterranean"]

# canonical unit -> (unit class, factor to ml / g / count, aliases as regular expressions)
UNIT_TABLE = [
    ("cup", 0, 236.588, [r"cups?", r"c\.?"]),
    ("tbsp", 0, 14.787, [r"tablespoons?", r"tbsp?s?\.?", r"tbl\.?"]),
    ("tsp", 0, 4.929, [r"teaspoons?", r"tsps?\.?", r"t\.?"]),
    ("ml", 0, 1.0, [r"ml\.?", r"millilit(?:er|re)s?"]),
    ("l", 0, 1000.0, [r"l\.?", r"lit(?:er|re)s?"]),
    ("floz", 0, 29.574, [r"fl\.?\s?oz\.?", r"fluid ounces?"]),
    ("pint", 0, 473.176, [r"pints?", r"pts?\.?"]),
    ("g", 1, 1.0, [r"g\.?", r"grams?", r"gr\.?"]),
    ("kg", 1, 1000.0, [r"kg\.?", r"kilograms?"]),
    ("oz", 1, 28.3495, [r"oz\.?", r"ounces?"]),
    ("lb", 1, 453.592, [r"lbs?\.?", r"pounds?"]),
    ("pinch", 2, 1.0, [r"pinch(?:es)?", r"dash(?:es)?"]),
    ("clove", 2, 1.0, [r"cloves?"]),
    ("can", 2, 1.0, [r"cans?", r"tins?"]),
    ("package", 2, 1.0, [r"packages?", r"pkgs?\.?"]),
    ("bunch", 2, 1.0, [r"bunch(?:es)?"]),
    ("slice", 2, 1.0, [r"slices?"]),
    ("stick", 1, 113.4, [r"sticks?"]),
]
NO_UNIT = 3
VULGAR = {"½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8",
          "⅞": "7/8", "⅕": "1/5", "⅙": "1/6"}
TOKEN_RE = re.compile(r"\d+(?:\.\d+)?(?:/\d+)?|[a-z]+(?:[-'][a-z]+)*\.?|[()\-,]")
NUM_RE = re.compile(r"\d+(?:\.\d+)?(?:/\d+)?$")
STOP = {"of", "and", "or", "a", "an", "the", "to", "for", "about", "plus", "more", "each"}


class Trie:
    """Word-level trie over the ingredient vocabulary."""

    def __init__(self, phrases):
        self.root = {}
        for idx, phrase in enumerate(phrases):
            node = self.root
            for word in phrase.split():
                node = node.setdefault(word, {})
            node["$"] = idx

    def lookup(self, words):
        node = self.root
        for word in words:
            node = node.get(word)
            if node is None:
                return None
        return node.get("$")


def parse_quantity(tokens):
    """Leading quantity: '2', '1 1/2', '0.5', '2 - 3' (range -> midpoint). Returns (value, n_consumed)."""
    vals = []
    i = 0
    while i < len(tokens) and NUM_RE.match(tokens[i]):
        vals.append(Fraction(tokens[i]))
        i += 1
        if i < len(tokens) - 1 and tokens[i] == "-" and NUM_RE.match(tokens[i + 1]):
            lo, hi = sum(vals), Fraction(tokens[i + 1])
            return float((lo + hi) / 2), i + 2
    if not vals:
        return 1.0, 0
    return float(sum(vals)), i


def match_unit(token):
    word = token.rstrip(".")
    for canonical, cls, factor, aliases in UNIT_TABLE:
        for pattern in aliases:
            if re.fullmatch(pattern, word) or re.fullmatch(pattern, token):
                return canonical, cls, factor
    return None


def longest_match(trie, words):
    """Leftmost, then longest, vocabulary phrase in `words`: (start, end, id) or None."""
    for start in range(len(words)):
        for end in range(len(words), start, -1):
            hit = trie.lookup(words[start:end])
            if hit is not None:
                return start, end, hit
    return None


def parse_line(line, trie, n_buckets):
    text = line
    for ch, rep in VULGAR.items():
        text = text.replace(ch, " " + rep + " ")
    text = unicodedata.normalize("NFKC", text).lower().replace("\u2044", "/")
    tokens = TOKEN_RE.findall(text)
    qty, i = parse_quantity(tokens)
    unit = None
    # package size: "2 (14.5 oz.) cans ..."
    if i < len(tokens) and tokens[i] == "(":
        close = tokens.index(")", i) if ")" in tokens[i:] else None
        if close is not None:
            inner_qty, j = parse_quantity(tokens[i + 1:close])
            inner_unit = match_unit(tokens[i + 1 + j]) if i + 1 + j < close else None
            if inner_unit is not None:
                qty *= inner_qty
                unit = inner_unit
            i = close + 1
    if i < len(tokens):
        found = match_unit(tokens[i])
        if found is not None:
            if unit is None:
                unit = found
            i += 1
    head, _, tail = " ".join(tokens[i:]).partition(",")
    words = [w.rstrip(".") for w in head.split() if w not in STOP]
    hit = longest_match(trie, words)
    if hit is None:
        ing, rest = len(INGREDIENTS), words
    else:
        start, end, ing = hit
        rest = words[:start] + words[end:]
    rest += [w for w in tail.replace(",", " ").split() if w not in STOP]
    mods = sorted({zlib.crc32(w.encode()) % n_buckets + 1 for w in rest if w.isalpha() or "-" in w})
    if unit is None:
        cls, amount = NO_UNIT, qty
    else:
        _, cls, factor = unit
        amount = qty * factor
    return {"ingredient": ing, "amount": amount, "unit_class": cls, "modifiers": mods}


# ----------------------------------------------------------------------------- synthetic corpus
QTY_FORMS = ["{w}", "{w} {f}", "{f}", "{v}", "{w}{u}", "{w}-{w2}", "{d}"]
FRACS = ["1/2", "1/3", "2/3", "1/4", "3/4", "1/8"]
PREPS = ["chopped", "finely chopped", "diced", "minced", "sliced", "softened", "melted", "divided",
         "to taste", "for garnish", "room temperature", "packed", "sifted", "drained and rinsed",
         "peeled and cubed", "thinly sliced", "at room temperature", "optional"]
ADJS = ["large", "small", "medium", "fresh", "frozen", "organic", "chilled", "ripe", "heaping", "scant"]


def make_corpus(cfg, rng):
    n_ing = len(INGREDIENTS)
    affinity = rng.normal(0.0, 1.0, size=(n_ing, len(CUISINES)))
    unit_aliases = [(c, [a.replace("s?", "s").replace("\\.?", ".").replace("(?:er|re)s?", "ers")
                         .replace("(?:es)?", "es").replace("\\s?", " ")
                         for a in aliases if "\\" not in a.replace("\\.?", "").replace("\\s?", "")])
                    for c, _, _, aliases in UNIT_TABLE]
    recipes, labels = [], []
    lo, hi = cfg["lines_per_recipe"]
    for _ in range(cfg["num_recipes"]):
        cuisine = int(rng.integers(len(CUISINES)))
        probs = np.exp(2.0 * affinity[:, cuisine])
        probs /= probs.sum()
        n = int(rng.integers(lo, hi + 1))
        picks = rng.choice(n_ing, size=n, replace=False, p=probs)
        lines = []
        for ing in picks:
            form = QTY_FORMS[int(rng.integers(len(QTY_FORMS)))]
            w = int(rng.integers(1, 5))
            f = FRACS[int(rng.integers(len(FRACS)))]
            v = list(VULGAR)[int(rng.integers(4))]
            qty = form.format(w=w, w2=w + int(rng.integers(1, 3)), f=f, v=v, u=v, d=f"{rng.uniform(0.1, 3):.2f}")
            parts = [qty]
            if rng.random() < 0.15:
                parts.append(f"({int(rng.integers(4, 30))}{'.5' if rng.random() < 0.3 else ''} oz.)")
            if rng.random() < 0.8:
                canon, aliases = unit_aliases[int(rng.integers(len(unit_aliases)))]
                alias = aliases[int(rng.integers(len(aliases)))] if aliases else canon
                parts.append(alias.upper() if rng.random() < 0.1 else alias)
            if rng.random() < 0.3:
                parts.append(ADJS[int(rng.integers(len(ADJS)))])
            name = INGREDIENTS[ing]
            parts.append(name.title() if rng.random() < 0.2 else name)
            line = " ".join(parts)
            if rng.random() < 0.5:
                line += ", " + PREPS[int(rng.integers(len(PREPS)))]
            lines.append(line)
        recipes.append(lines)
        labels.append(cuisine)
    return recipes, labels


class RecipeDataset(Dataset):
    """Map-style dataset with batched fetching (__getitems__): parses and augments each recipe."""

    def __init__(self, recipes, labels, cfg, seed):
        self.recipes = recipes
        self.labels = labels
        self.cfg = cfg
        self.trie = Trie(INGREDIENTS)
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.recipes)

    def _augment(self, parsed):
        scale = self.rng.choice(self.cfg["servings_scale"])
        keep = [rec for rec in parsed if self.rng.random() >= self.cfg["line_dropout"]] or parsed[:1]
        self.rng.shuffle(keep)
        for rec in keep:
            rec["amount"] *= scale
        return keep[: self.cfg["max_lines"]]

    def __getitems__(self, indices):
        batch = []
        for idx in indices:
            parsed = [parse_line(line, self.trie, self.cfg["modifier_buckets"]) for line in self.recipes[idx]]
            batch.append((self._augment(parsed), self.labels[idx]))
        return batch

    def __getitem__(self, idx):
        return self.__getitems__([idx])[0]


class PadCollator:
    def __init__(self, max_lines, max_mods, pad_ingredient):
        self.max_lines = max_lines
        self.max_mods = max_mods
        self.pad_ingredient = pad_ingredient

    def __call__(self, batch):
        L = max(len(lines) for lines, _ in batch)
        ing, amount, unit, mods, mask = [], [], [], [], []
        for lines, _ in batch:
            pad = L - len(lines)
            ing.append([rec["ingredient"] for rec in lines] + [self.pad_ingredient] * pad)
            amount.append([float(np.log1p(rec["amount"])) for rec in lines] + [0.0] * pad)
            unit.append([rec["unit_class"] for rec in lines] + [NO_UNIT + 1] * pad)
            mods.append([(rec["modifiers"][: self.max_mods] + [0] * self.max_mods)[: self.max_mods]
                         for rec in lines] + [[0] * self.max_mods] * pad)
            mask.append([True] * len(lines) + [False] * pad)
        return (torch.tensor(ing), torch.tensor(amount, dtype=torch.float32), torch.tensor(unit),
                torch.tensor(mods), torch.tensor(mask), torch.tensor([y for _, y in batch]))


class RecipeClassifier(nn.Module):
    def __init__(self, n_ing, n_buckets, n_classes, dim, hidden):
        super().__init__()
        self.ing = nn.Embedding(n_ing + 2, dim)
        self.unit = nn.Embedding(NO_UNIT + 2, dim)
        self.mods = nn.Embedding(n_buckets + 1, dim, padding_idx=0)
        self.amount = nn.Linear(1, dim)
        self.head = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, ing, amount, unit, mods, mask):
        x = self.ing(ing) + self.unit(unit) + self.mods(mods).sum(2) + self.amount(amount.unsqueeze(-1))
        m = mask.unsqueeze(-1).float()
        pooled = (x * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.head(pooled)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    dcfg = cfg["data"]
    recipes, labels = make_corpus(dcfg, np.random.default_rng(seed))
    dataset = RecipeDataset(recipes, labels, dcfg, seed)
    lcfg = cfg["loader"]
    collate = PadCollator(dcfg["max_lines"], dcfg["max_modifiers"], len(INGREDIENTS) + 1)
    loader = DataLoader(dataset, batch_size=lcfg["batch_size"], shuffle=lcfg["shuffle"],
                        drop_last=lcfg["drop_last"], num_workers=lcfg["num_workers"], collate_fn=collate,
                        generator=torch.Generator().manual_seed(seed))
    model = RecipeClassifier(len(INGREDIENTS), dcfg["modifier_buckets"], len(CUISINES),
                             cfg["model"]["embed_dim"], cfg["model"]["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"], betas=tuple(cfg["optim"]["betas"]))
    meter = evalkit.Meter()

    step, epoch, correct, seen = 0, 0, 0, 0
    it = iter(loader)
    while step < cfg["max_steps"] and not meter.done():
        try:
            batch = next(it)
        except StopIteration:
            epoch += 1
            it = iter(loader)
            continue
        meter.batch(batch)
        ing, amount, unit, mods, mask, y = batch
        logits = model(ing, amount, unit, mods, mask)
        loss = nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        correct += int((logits.argmax(1) == y).sum())
        seen += len(y)
        step += 1
        if step % cfg["log_every"] == 0:
            print(f"step {step} epoch {epoch} loss {loss.item():.4f} train acc {correct / seen:.3f}")
    meter.report(extra={"epochs_started": epoch + 1, "train_correct": correct})


if __name__ == "__main__":
    main()
