"""Synthetic social-media corpus: a unigram lexicon, topical hashtags and posts using them."""
import itertools
import math
import random

ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w",
          "z", "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "sk", "st", "th", "tr"]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "oo", "ou"]
CODAS = ["", "", "", "n", "r", "s", "t", "l", "m", "ng", "ck", "st"]


def build_lexicon(size, rng):
    """Return words ordered by frequency rank (most frequent first)."""
    words, seen = [], set()
    while len(words) < size:
        n_syl = rng.choices([1, 2, 3, 4], weights=[4, 5, 3, 1])[0]
        w = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(n_syl))
        if w not in seen and len(w) >= 2:
            seen.add(w)
            words.append(w)
    return words


def word_costs(words):
    """Zipf-law unigram costs, as wordninja derives them from a frequency-ranked word list."""
    log_n = math.log(len(words))
    return {w: math.log((rank + 1) * log_n) for rank, w in enumerate(words)}


def build_corpus(cfg, seed):
    rng = random.Random(seed)
    c = cfg["corpus"]
    lexicon = build_lexicon(c["lexicon_size"], rng)
    pool = lexicon[: c["lexicon_size"] // 2]
    topics = [rng.sample(pool, c["words_per_topic"]) for _ in range(c["num_topics"])]
    hashtags, tag_topic = [], []
    seen = set()
    while len(hashtags) < c["num_hashtags"]:
        t = rng.randrange(c["num_topics"])
        n_words = rng.choice([2, 2, 3, 3, 3, 4])
        parts = [rng.choice(topics[t]) if rng.random() < 0.75 else rng.choice(lexicon) for _ in range(n_words)]
        tag = "".join(parts)
        if rng.random() < 0.3:
            tag = "".join(p.capitalize() for p in parts)
        if tag.lower() in seen:
            continue
        seen.add(tag.lower())
        hashtags.append(tag)
        tag_topic.append(t)
    # hashtag popularity is heavy-tailed
    weights = [1.0 / (r + 1) ** 0.8 for r in range(len(hashtags))]
    cum = list(itertools.accumulate(weights))
    posts, labels = [], []
    for _ in range(c["num_posts"]):
        first = rng.choices(range(len(hashtags)), cum_weights=cum)[0]
        label = tag_topic[first]
        tags = [hashtags[first]]
        for _ in range(rng.randrange(c["max_tags_per_post"])):
            same = [i for i in rng.choices(range(len(hashtags)), cum_weights=cum, k=4) if tag_topic[i] == label]
            tags.append(hashtags[same[0]] if same else hashtags[rng.randrange(len(hashtags))])
        posts.append(" ".join("#" + t for t in tags))
        labels.append(label)
    return lexicon, posts, labels
