"""Synthetic encyclopaedia-like articles with question/answer pairs (SQuAD-style records)."""
import random
from collections import Counter

SYLLABLES = ["ka", "ri", "to", "men", "sa", "lo", "ver", "an", "dré", "qui", "zel", "mo", "nu", "bel", "tor",
             "ska", "lin", "gó", "pha", "ret", "ul", "vin", "dax", "ë", "ro", "cha", "fen", "wis", "por", "tal"]
FILLER = ("the of and in to was is for on with as by at from that which its an be this were are has it "
          "during after region river city council museum century early later known large small north south "
          "east west first second new old main local national public trade school road bridge church").split()


def _word(rng, lo=1, hi=3):
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(lo, hi)))


def _name(rng):
    return _word(rng, 2, 3).capitalize() + " " + _word(rng, 2, 4).capitalize()


def _filler_sentence(rng):
    n = rng.randint(8, 22)
    words = [rng.choice(FILLER) if rng.random() < 0.6 else _word(rng) for _ in range(n)]
    if rng.random() < 0.3:
        words.insert(rng.randrange(n), f"({rng.randint(1, 999)})")
    if rng.random() < 0.3:
        words[rng.randrange(n)] += ","
    return " ".join(words).capitalize() + "."


def make_articles(n, min_s, max_s, seed):
    rng = random.Random(seed)
    records = []
    for k in range(n):
        entity = _name(rng)
        founder = _name(rng)
        year = str(rng.randint(1050, 1999))
        place = _word(rng, 2, 3).capitalize()
        facts = [
            (f"{entity} was founded in {year} by {founder}.", f"When was {entity} founded?", year),
            (f"The seat of {entity} is {place}, near the old harbour.", f"Where is the seat of {entity}?", place),
            (f"Its first director, {founder}, served for {rng.randint(2, 40)} years.",
             f"Who was the first director of {entity}?", founder),
        ]
        fact, question, answer = facts[rng.randrange(len(facts))]
        sentences = [_filler_sentence(rng) for _ in range(rng.randint(min_s, max_s))]
        sentences.insert(rng.randrange(len(sentences) + 1), fact)
        context = " ".join(sentences)
        start = context.index(fact) + fact.index(answer)
        records.append({"id": f"art{k:05d}", "question": question, "context": context,
                        "answers": {"text": [answer], "answer_start": [start]}})
    return records


def build_vocab(records, size):
    """Whole words that occur often, plus every syllable as a word-initial and a ## continuation piece."""
    counts = Counter()
    for r in records:
        for w in (r["question"] + " " + r["context"]).lower().split():
            counts[w.strip(".,?()")] += 1
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + list(".,?()") + [str(d) for d in range(10)]
    vocab += [f"##{d}" for d in range(10)]
    import unicodedata
    for s in SYLLABLES:
        s = "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")
        for piece in (s, "##" + s):
            if piece not in vocab:
                vocab.append(piece)
    for w, _ in counts.most_common():
        if len(vocab) >= size:
            break
        if w and w not in vocab and w.isalpha() and w.isascii():
            vocab.append(w)
    return {tok: i for i, tok in enumerate(vocab)}
