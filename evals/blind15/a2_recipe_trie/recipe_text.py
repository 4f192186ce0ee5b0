"""Ingredient-line parsing: quantities, units and a trie of multi-word ingredient names."""
import re
from fractions import Fraction

import numpy as np

UNICODE_FRACTIONS = {"½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅛": "1/8", "⅜": "3/8"}

# alias -> (canonical unit, factor to ml / g / each)
UNITS = {}
for names, canon, factor in [
    (("cup", "cups", "c", "c."), "ml", Fraction(236588, 1000)),
    (("tablespoon", "tablespoons", "tbsp", "tbsp.", "tbs", "tbs.", "T"), "ml", Fraction(14787, 1000)),
    (("teaspoon", "teaspoons", "tsp", "tsp.", "t"), "ml", Fraction(4929, 1000)),
    (("ml", "milliliter", "milliliters"), "ml", Fraction(1)),
    (("l", "liter", "liters", "litre"), "ml", Fraction(1000)),
    (("pinch", "pinches"), "ml", Fraction(3, 10)),
    (("oz", "oz.", "ounce", "ounces"), "g", Fraction(283495, 10000)),
    (("lb", "lb.", "lbs", "pound", "pounds"), "g", Fraction(453592, 1000)),
    (("g", "gram", "grams"), "g", Fraction(1)),
    (("kg", "kilogram", "kilograms"), "g", Fraction(1000)),
    (("can", "cans", "package", "packages", "bunch", "bunches", "clove", "cloves", "sprig", "sprigs"), "each",
     Fraction(1)),
]:
    for n in names:
        UNITS[n] = (canon, factor)
UNIT_IDS = {"none": 0, "ml": 1, "g": 2, "each": 3}

IRREGULAR = {"leaves": "leaf", "tomatoes": "tomato", "potatoes": "potato", "knives": "knife", "halves": "half",
             "anchovies": "anchovy", "chilies": "chili", "chiles": "chile", "molasses": "molasses",
             "asparagus": "asparagus", "hummus": "hummus", "couscous": "couscous", "swiss": "swiss"}
SINGULAR_RULES = [
    (r"(?i)(quiz)zes$", r"\1"), (r"(?i)(matr)ices$", r"\1ix"), (r"(?i)(vert|ind)ices$", r"\1ex"),
    (r"(?i)^(ox)en", r"\1"), (r"(?i)(alias|status)es$", r"\1"), (r"(?i)(octop|vir)i$", r"\1us"),
    (r"(?i)(cris|ax|test)es$", r"\1is"), (r"(?i)(shoe)s$", r"\1"), (r"(?i)(o)es$", r"\1"),
    (r"(?i)(bus)es$", r"\1"), (r"(?i)([m|l])ice$", r"\1ouse"), (r"(?i)(x|ch|ss|sh)es$", r"\1"),
    (r"(?i)(m)ovies$", r"\1ovie"), (r"(?i)(s)eries$", r"\1eries"), (r"(?i)([^aeiouy]|qu)ies$", r"\1y"),
    (r"(?i)([lr])ves$", r"\1f"), (r"(?i)(tive)s$", r"\1"), (r"(?i)(hive)s$", r"\1"),
    (r"(?i)([^f])ves$", r"\1fe"), (r"(?i)(^analy)ses$", r"\1sis"), (r"(?i)([ti])a$", r"\1um"),
    (r"(?i)(n)ews$", r"\1ews"), (r"(?i)(ss)$", r"\1"), (r"(?i)s$", ""),
]
TOKEN_RE = r"[a-zA-Z][a-zA-Z\-']*|\d+/\d+|\d+(?:\.\d+)?|[(),;]"


def singularize(word):
    """Rule-based singular form (inflection-style: irregulars, then the first matching rule)."""
    w = word.lower()
    if w in IRREGULAR:
        return IRREGULAR[w]
    if len(w) <= 3:
        return w
    for pattern, repl in SINGULAR_RULES:
        if re.search(pattern, w):
            return re.sub(pattern, repl, w)
    return w


class IngredientTrie:
    """Word-level trie over ingredient names; names are stored in singular form."""

    END = "$id"

    def __init__(self, names):
        self.root = {}
        self.names = list(names)
        for idx, name in enumerate(self.names, start=2):  # 0: padding, 1: unknown
            node = self.root
            for word in name.split():
                node = node.setdefault(singularize(word), {})
            node.setdefault(self.END, idx)

    def longest_match(self, words, start):
        """(id, length) of the longest name starting at words[start], or (None, 0)."""
        node, best, best_len = self.root, None, 0
        i = start
        while i < len(words):
            key = singularize(words[i])
            if key not in node:
                break
            node = node[key]
            i += 1
            if self.END in node:
                best, best_len = node[self.END], i - start
        return best, best_len

    def find_all(self, words):
        """Non-overlapping leftmost-longest ingredient mentions: [(id, start, length), ...]."""
        found, start = [], 0
        while start < len(words):
            ing, length = self.longest_match(words, start)
            if ing is None:
                start += 1
                continue
            found.append((ing, start, length))
            start += length
        return found

    def head_mention(self, words):
        """The line's ingredient: its longest mention (the first one on ties); 1 (unknown) if none."""
        mentions = self.find_all(words)
        if not mentions:
            return 1, 0
        best = max(mentions, key=lambda m: m[2])
        return best[0], len(mentions)


def normalise_text(line):
    for sym, frac in UNICODE_FRACTIONS.items():
        # "1½" -> "1 1/2", "½" -> "1/2"
        line = re.sub(r"(\d)" + sym, r"\1 " + frac, line)
        line = line.replace(sym, frac)
    line = re.sub(r"(\d)\s*-\s*(\d)", r"\1 - \2", line)
    line = re.sub(r"\s+to\s+(?=\d)", " - ", line)
    return line.strip()


def _number(tok):
    if "/" in tok:
        num, den = tok.split("/")
        return Fraction(int(num), int(den))
    return Fraction(tok)


def parse_quantity(tokens):
    """Leading quantity: '2', '1 1/2', '3/4', '0.5', '1 - 2' (mean of a range). Returns (Fraction|None, rest)."""
    nums, i = [], 0
    is_num = re.compile(r"^\d+(?:\.\d+)?$|^\d+/\d+$").match
    while i < len(tokens) and is_num(tokens[i]):
        nums.append(_number(tokens[i]))
        i += 1
    if not nums:
        return None, tokens
    qty = sum(nums, Fraction(0))  # mixed fraction: 1 + 1/2
    if i + 1 < len(tokens) and tokens[i] == "-" and is_num(tokens[i + 1]):
        hi, j = [], i + 1
        while j < len(tokens) and is_num(tokens[j]):
            hi.append(_number(tokens[j]))
            j += 1
        qty, i = (qty + sum(hi, Fraction(0))) / 2, j
    return qty, tokens[i:]


def parse_line(line, trie):
    """One ingredient line -> (ingredient id, unit id, canonical amount as float or 0.0, number of mentions)."""
    text = normalise_text(line)
    tokens = text.replace(" - ", " ~ ").split()
    tokens = ["-" if t == "~" else t for t in tokens]
    qty, rest = parse_quantity(tokens)
    # "2 (14.5 oz) cans tomatoes": the parenthesised size multiplies the count
    if rest and rest[0].startswith("("):
        inner, depth, k = [], 0, 0
        for k, t in enumerate(rest):
            depth += t.count("(") - t.count(")")
            inner.append(t.strip("()"))
            if depth <= 0:
                break
        size, after = parse_quantity(inner)
        if size is not None and after and after[0] in UNITS and qty is not None:
            canon, factor = UNITS[after[0]]
            rest = rest[k + 1:]
            if rest and rest[0] in UNITS and UNITS[rest[0]][0] == "each":
                rest = rest[1:]
            words = re.findall(TOKEN_RE, " ".join(rest))
            ing, n_mentions = trie.head_mention([w for w in words if w[0].isalpha()])
            return ing, UNIT_IDS[canon], float(qty * size * factor), n_mentions
    unit, amount = "none", qty
    if rest and rest[0] in UNITS:
        canon, factor = UNITS[rest[0]]
        unit = canon
        amount = qty * factor if qty is not None else None
        rest = rest[1:]
    elif rest and rest[0].lower() in UNITS and rest[0] not in ("T", "t"):
        canon, factor = UNITS[rest[0].lower()]
        unit = canon
        amount = qty * factor if qty is not None else None
        rest = rest[1:]
    body = " ".join(rest)
    words = [w for w in re.findall(TOKEN_RE, body) if w[0].isalpha()]
    ing, n_mentions = trie.head_mention(words)
    return ing, UNIT_IDS[unit], float(amount) if amount is not None else 0.0, n_mentions


# ---------------------------------------------------------------- synthetic corpus
BASES = ["flour", "sugar", "butter", "egg", "milk", "salt", "pepper", "garlic", "onion", "tomato", "potato",
         "carrot", "celery", "rice", "bean", "lentil", "chickpea", "olive oil", "vegetable oil", "vinegar",
         "soy sauce", "fish sauce", "ginger", "cumin", "coriander", "cinnamon", "paprika", "oregano", "basil",
         "thyme", "rosemary", "parsley", "cilantro", "lime", "lemon", "chili", "chicken breast", "chicken thigh",
         "ground beef", "pork shoulder", "shrimp", "salmon fillet", "tofu", "cheese", "cream", "yogurt",
         "coconut milk", "honey", "maple syrup", "vanilla extract", "baking powder", "baking soda", "yeast",
         "noodle", "pasta", "tortilla", "corn", "pea", "spinach", "mushroom", "bell pepper", "scallion",
         "sesame oil", "peanut", "almond", "walnut", "raisin", "oat", "chocolate chip", "cocoa powder",
         "bay leaf", "anchovy", "caper", "olive", "avocado", "broth", "stock", "wine", "mustard", "mayonnaise"]
QUALIFIERS = ["fresh", "dried", "ground", "whole", "red", "green", "yellow", "white", "brown", "black",
              "smoked", "sweet", "hot", "low sodium", "extra virgin", "all-purpose", "unsalted", "kosher",
              "freshly ground", "light", "dark", "toasted", "canned", "frozen", "baby", "sharp cheddar"]
PLURAL = {"tomato": "tomatoes", "potato": "potatoes", "chili": "chilies", "anchovy": "anchovies",
          "bay leaf": "bay leaves", "leaf": "leaves"}
CUISINES = ["italian", "mexican", "indian", "thai", "bakery", "french"]
PREP = ["", ", chopped", ", finely chopped", ", minced", ", diced", ", sliced thin", ", melted", ", softened",
        ", divided", " (optional)", ", to taste", ", at room temperature", ", rinsed and drained", ", packed"]
QTY_FORMATS = ["{w}", "{w} {f}", "{f}", "{w}{u}", "{u}", "{w}.5", "{w}-{w2}", "{w} to {w2}"]


def build_vocabulary(rng):
    names = set(BASES)
    for base in BASES:
        for q in rng.choice(QUALIFIERS, size=int(rng.integers(2, 7)), replace=False):
            names.add(f"{q} {base}")
            if rng.random() < 0.3:
                q2 = rng.choice(QUALIFIERS)
                if q2 != q:
                    names.add(f"{q2} {q} {base}")
    return sorted(names)


def _plural(name):
    head, _, last = name.rpartition(" ")
    if name in PLURAL:
        return PLURAL[name]
    if last in PLURAL:
        return (head + " " + PLURAL[last]).strip()
    if last.endswith(("s", "sh", "ch")):
        return name + "es"
    if last.endswith("y") and last[-2:-1] not in "aeiou":
        return name[:-1] + "ies"
    return name + "s"


def _quantity_text(rng):
    fracs = ["1/2", "1/3", "2/3", "1/4", "3/4", "1/8"]
    uni = list(UNICODE_FRACTIONS)
    fmt = QTY_FORMATS[int(rng.integers(len(QTY_FORMATS)))]
    w = int(rng.integers(1, 5))
    return fmt.format(w=w, w2=w + int(rng.integers(1, 3)), f=fracs[int(rng.integers(len(fracs)))],
                      u=uni[int(rng.integers(len(uni)))])


def generate_corpus(seed, n_recipes, max_lines):
    rng = np.random.default_rng(seed)
    vocab = build_vocabulary(rng)
    unit_aliases = sorted(UNITS)
    recipes = []
    cuisine_pref = {c: rng.choice(len(vocab), size=60, replace=False) for c in CUISINES}
    for _ in range(n_recipes):
        label = int(rng.integers(len(CUISINES)))
        pref = cuisine_pref[CUISINES[label]]
        lines = []
        for _ in range(int(rng.integers(10, max_lines + 1))):
            idx = int(pref[int(rng.integers(len(pref)))]) if rng.random() < 0.75 else int(rng.integers(len(vocab)))
            name = vocab[idx]
            if rng.random() < 0.5:
                name = _plural(name)
            if rng.random() < 0.2:
                name = name.title()
            kind = rng.random()
            if kind < 0.08:
                other = vocab[int(rng.integers(len(vocab)))]
                line = f"{name} and {other}{PREP[int(rng.integers(len(PREP)))]}"
            elif kind < 0.15:
                line = f"{int(rng.integers(1, 4))} ({int(rng.integers(6, 29))} oz) cans {name}"
            else:
                unit = unit_aliases[int(rng.integers(len(unit_aliases)))] if rng.random() < 0.8 else ""
                line = f"{_quantity_text(rng)} {unit} {name}{PREP[int(rng.integers(len(PREP)))]}".replace("  ", " ")
            lines.append(line)
        recipes.append({"lines": lines, "cuisine": label})
    return vocab, recipes
