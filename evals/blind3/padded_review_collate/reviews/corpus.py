"""Synthetic product reviews with a few sentiment-bearing words, tokenised with a fixed vocabulary."""
import random

POS = ["great", "love", "excellent", "perfect", "happy", "recommend", "sturdy", "fast"]
NEG = ["broken", "refund", "terrible", "awful", "slow", "disappointed", "cheap", "return"]


def build_vocab(vocab_size):
    filler = [f"w{i}" for i in range(vocab_size - len(POS) - len(NEG) - 2)]
    itos = ["<pad>", "<unk>"] + POS + NEG + filler
    return itos, {w: i for i, w in enumerate(itos)}


def generate_reviews(n, itos, min_len, max_len, seed):
    rng = random.Random(seed)
    filler = itos[2 + len(POS) + len(NEG):]
    texts, labels = [], []
    for _ in range(n):
        label = rng.randint(0, 1)
        length = rng.randint(min_len, max_len)
        words = []
        for _ in range(length):
            r = rng.random()
            if r < 0.06:
                words.append(rng.choice(POS if label else NEG))
            elif r < 0.08:
                words.append(rng.choice(NEG if label else POS))
            else:
                words.append(filler[min(int(rng.paretovariate(1.2)) - 1, len(filler) - 1)])
        texts.append(" ".join(words))
        labels.append(label)
    return texts, labels


def tokenize(text, stoi):
    return [stoi.get(w, 1) for w in text.split()]
