"""Synthetic NER corpus: sentences of made-up words with PER / LOC / ORG spans."""
import random
from collections import Counter

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG"]
LABEL2ID = {name: i for i, name in enumerate(LABELS)}

SYLLABLES = ["ka", "lo", "mer", "tin", "sa", "vor", "el", "dri", "qua", "ni", "bré", "zu",
             "ost", "pha", "rin", "gel", "mü", "tor", "ya", "cel", "dan", "fio", "ul", "wex"]
PUNCT = [",", ".", ";", "!", "?", ":"]


def _word(rng, lo=1, hi=4):
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(lo, hi)))


def make_corpus(n_sentences, seed):
    rng = random.Random(seed)
    common = [_word(rng, 1, 3) for _ in range(400)]
    people = [(_word(rng, 2, 3).capitalize(), _word(rng, 2, 4).capitalize()) for _ in range(60)]
    places = [("Port", _word(rng, 2, 3).capitalize()) if i % 3 == 0 else (_word(rng, 2, 4).capitalize(),)
              for i in range(50)]
    orgs = [(_word(rng, 2, 3).capitalize(), rng.choice(["Systems", "Group", "Labs", "Union"]))
            for _ in range(40)]
    sentences = []
    for _ in range(n_sentences):
        words, tags = [], []
        for _ in range(rng.randint(12, 30)):
            r = rng.random()
            if r < 0.08:
                span, kind = rng.choice(people), "PER"
            elif r < 0.14:
                span, kind = rng.choice(places), "LOC"
            elif r < 0.19:
                span, kind = rng.choice(orgs), "ORG"
            else:
                w = rng.choice(common)
                if rng.random() < 0.1:
                    w = w + rng.choice(PUNCT)
                words.append(w)
                tags.append(LABEL2ID["O"])
                continue
            for k, w in enumerate(span):
                words.append(w)
                tags.append(LABEL2ID[("B-" if k == 0 else "I-") + kind])
        sentences.append({"words": words, "tags": tags, "text": " ".join(words)})
    return sentences


def build_vocab(sentences, n_words=300):
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
    letters = sorted({c for s in SYLLABLES for c in s.replace("é", "e").replace("ü", "u")})
    pieces = []
    for syl in SYLLABLES:
        plain = syl.replace("é", "e").replace("ü", "u")
        pieces += [plain, "##" + plain]
    counts = Counter(w.lower().strip("".join(PUNCT)) for s in sentences for w in s["words"])
    frequent = [w.replace("é", "e").replace("ü", "u") for w, _ in counts.most_common(n_words)]
    tokens = specials + letters + ["##" + c for c in letters] + PUNCT + pieces + frequent
    vocab = {}
    for tok in tokens:
        if tok not in vocab:
            vocab[tok] = len(vocab)
    return vocab
