"""Tiny CoNLL-U reader/writer and a synthetic treebank drawn from a tag HMM."""
import random

UPOS = ["ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
        "PUNCT", "SCONJ", "SYM", "VERB", "X"]

# Penn Treebank tags (the XPOS column) under each universal tag.
XPOS_OF = {
    "ADJ": ["JJ", "JJR", "JJS"], "ADP": ["IN"], "ADV": ["RB", "RBR", "RBS"], "AUX": ["MD", "VBZ", "VBD", "VBN"],
    "CCONJ": ["CC"], "DET": ["DT", "PDT", "WDT"], "INTJ": ["UH"], "NOUN": ["NN", "NNS"], "NUM": ["CD"],
    "PART": ["TO", "POS", "RP"], "PRON": ["PRP", "PRP$", "WP"], "PROPN": ["NNP", "NNPS"],
    "PUNCT": [".", ",", ":", "-LRB-", "-RRB-"], "SCONJ": ["IN"], "SYM": ["SYM"],
    "VERB": ["VB", "VBD", "VBG", "VBN", "VBP", "VBZ"], "X": ["FW"],
}
XPOS = sorted({x for tags in XPOS_OF.values() for x in tags})

# Plausible successors (boosted in the transition matrix).
LIKELY = {
    "DET": ["NOUN", "ADJ", "PROPN", "NUM"], "ADJ": ["NOUN", "PUNCT", "CCONJ", "ADJ"],
    "NOUN": ["VERB", "ADP", "PUNCT", "AUX", "CCONJ", "NOUN"], "PROPN": ["VERB", "AUX", "PUNCT", "PROPN"],
    "VERB": ["DET", "ADP", "PRON", "ADV", "PUNCT", "PART"], "AUX": ["VERB", "ADV", "ADJ", "PART"],
    "ADP": ["DET", "NOUN", "PROPN", "PRON", "NUM"], "PRON": ["VERB", "AUX", "NOUN"],
    "ADV": ["VERB", "ADJ", "PUNCT", "ADV"], "CCONJ": ["DET", "PRON", "NOUN", "VERB"],
    "NUM": ["NOUN", "PUNCT", "SYM"], "PART": ["VERB", "AUX"], "PUNCT": ["CCONJ", "DET", "PRON", "SCONJ"],
    "SCONJ": ["PRON", "DET", "NOUN"], "SYM": ["NUM", "NOUN"], "INTJ": ["PUNCT"], "X": ["PUNCT", "NOUN"],
}
CLOSED = {"PUNCT": [".", ",", ";", ":", "!", "?", "(", ")"], "CCONJ": ["and", "or", "but", "nor"],
          "DET": ["the", "a", "an", "this", "that", "these", "every", "some"], "SYM": ["%", "$", "+", "="],
          "PART": ["to", "not", "'s"], "AUX": ["is", "was", "has", "will", "can", "would", "been"],
          "SCONJ": ["that", "because", "while", "if", "when"], "PRON": ["it", "he", "she", "they", "we", "that"]}


def _word(rng):
    sy = ["ka", "lo", "mi", "ter", "an", "sel", "po", "ru", "ven", "da", "ix", "nor", "ce", "bu", "tha", "ge"]
    return "".join(rng.choice(sy) for _ in range(rng.randint(1, 3)))


def synth_treebank(seed, n_sentences, min_len, max_len):
    rng = random.Random(seed)
    trans = {}
    for tag in UPOS:
        weights = [rng.random() * 0.2 for _ in UPOS]
        for nxt in LIKELY[tag]:
            weights[UPOS.index(nxt)] += rng.uniform(1.0, 3.0)
        trans[tag] = weights
    lexicon = {}
    for tag in UPOS:
        if tag in CLOSED:
            words = list(CLOSED[tag])
        else:
            words = [_word(rng) + suffix for suffix in [rng.choice(["", "s", "ed", "ly", "ing", "er"])]
                     for _ in range(rng.randint(30, 160))]
        # Each (word, universal tag) has one fine tag, mostly predictable from the suffix.
        fine = XPOS_OF[tag]
        lexicon[tag] = [(w, fine[(len(w) + sum(map(ord, w[-2:]))) % len(fine)] if rng.random() < 0.9
                         else rng.choice(fine)) for w in words]
    # Ambiguity: open-class words shared between nouns, verbs and adjectives.
    for a, b in [("NOUN", "VERB"), ("ADJ", "NOUN"), ("VERB", "ADJ"), ("ADV", "ADJ"), ("PROPN", "NOUN")]:
        lexicon[b] += rng.sample(lexicon[a], k=len(lexicon[a]) // 6)
    blocks = []
    for s in range(n_sentences):
        n = rng.randint(min_len, max_len)
        tag = rng.choice(["DET", "PRON", "PROPN", "NOUN", "ADV", "SCONJ"])
        lines = [f"# sent_id = synth-{s:05d}"]
        for i in range(1, n + 1):
            words = lexicon[tag]
            # Zipf-like choice within the lexicon
            form, xpos = (words[min(int(rng.paretovariate(1.1)) - 1, len(words) - 1)] if rng.random() < 0.7
                          else rng.choice(words))
            if i == 1:
                form = form.capitalize()
            lines.append(f"{i}\t{form}\t{form.lower()}\t{tag}\t{xpos}\t_\t{max(0, i - 1)}\tdep\t_\t_")
            tag = rng.choices(UPOS, weights=trans[tag])[0] if i < n - 1 else "PUNCT"
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def read_conllu(text, column="xpos"):
    """Yield (forms, tags) per sentence; tags from the UPOS or the XPOS column."""
    col = {"upos": 3, "xpos": 4}[column]
    for block in text.strip().split("\n\n"):
        forms, tags = [], []
        for line in block.splitlines():
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if "-" in cols[0] or "." in cols[0]:  # multiword tokens / empty nodes
                continue
            forms.append(cols[1])
            tags.append(cols[col])
        if forms:
            yield forms, tags
