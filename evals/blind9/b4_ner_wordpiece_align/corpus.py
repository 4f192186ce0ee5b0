"""A synthetic CoNLL-style corpus: Zipfian filler words, multi-word entities, accents and punctuation."""
import random

TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-MISC", "I-MISC"]
ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "l", "m", "n", "p", "pr", "r", "s",
          "sh", "st", "t", "tr", "v", "w", "z"]
NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "é", "ü", "ö", "à"]
CODAS = ["", "", "n", "r", "s", "l", "m", "nd", "st", "rk", "x"]
ORG_SUFFIX = ["Inc.", "Corp.", "GmbH", "Ltd.", "S.A.", "Group", "Holdings", "Bank", "United"]
LOC_PREFIX = ["New", "San", "Port", "Lake", "Mount", "North", "Saint-"]
MISC = ["Olympics", "Euro-2024", "COVID-19", "Grand-Prix", "Nobel", "World-Cup", "iPhone"]
PUNCT = [",", ".", ";", ":", "'s", "!", "?", "(", ")", "-"]


def _word(rng, n_syll):
    return "".join(rng.choice(ONSETS) + rng.choice(NUCLEI) + rng.choice(CODAS) for _ in range(n_syll))


def build_lexicons(rng):
    filler = [_word(rng, rng.choice([2, 3, 4, 4, 5, 6])) for _ in range(3000)]
    weights = [1.0 / (i + 1) ** 1.05 for i in range(len(filler))]
    cum, acc = [], 0.0
    for w in weights:
        acc += w
        cum.append(acc)
    weights = cum
    names = [_word(rng, rng.choice([2, 3, 3, 4])).capitalize() for _ in range(800)]
    places = [_word(rng, rng.choice([2, 3, 4])).capitalize() for _ in range(600)]
    orgs = [_word(rng, rng.choice([2, 3, 4, 5])).capitalize() for _ in range(500)]
    return filler, weights, names, places, orgs


def _entity(rng, kind, lex):
    _, _, names, places, orgs = lex
    if kind == "PER":
        return [rng.choice(names) for _ in range(rng.choice([1, 2, 2, 3]))]
    if kind == "LOC":
        words = [rng.choice(places)]
        if rng.random() < 0.3:
            words.insert(0, rng.choice(LOC_PREFIX))
        return words
    if kind == "ORG":
        words = [rng.choice(orgs) for _ in range(rng.choice([1, 2]))]
        if rng.random() < 0.6:
            words.append(rng.choice(ORG_SUFFIX))
        return words
    return [rng.choice(MISC)] + ([rng.choice(names)] if rng.random() < 0.3 else [])


def make_corpus(n_sentences, min_words, max_words, seed):
    rng = random.Random(seed)
    lex = build_lexicons(rng)
    filler, weights = lex[0], lex[1]
    tag_id = {t: i for i, t in enumerate(TAGS)}
    sentences = []
    for _ in range(n_sentences):
        target = rng.randint(min_words, max_words)
        tokens, tags = [], []
        while len(tokens) < target:
            r = rng.random()
            if r < 0.16:
                kind = rng.choice(["PER", "PER", "LOC", "ORG", "MISC"])
                words = _entity(rng, kind, lex)
                for j, w in enumerate(words):
                    tokens.append(w)
                    tags.append(tag_id[("B-" if j == 0 else "I-") + kind])
            elif r < 0.26:
                tokens.append(rng.choice(PUNCT) if rng.random() < 0.5 else rng.choice(filler) + rng.choice(PUNCT))
                tags.append(0)
            else:
                tokens.append(rng.choices(filler, cum_weights=weights)[0])
                tags.append(0)
        sentences.append({"id": len(sentences), "tokens": tokens, "ner_tags": tags})
    vocab_words = [w for s in sentences for w in s["tokens"]]
    return sentences, vocab_words
