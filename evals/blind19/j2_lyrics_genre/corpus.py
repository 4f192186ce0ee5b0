"""Synthetic song-lyrics corpus: genre-flavoured lexicons, rhyme schemes and choruses."""
import random

ONSETS = ["b", "bl", "br", "c", "ch", "cr", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "l", "m",
          "n", "p", "pl", "r", "s", "sh", "sl", "st", "t", "th", "tr", "v", "w", "wh", "y", "z", ""]
NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "oo", "ou", "ow", "ie", "oa", "y"]
CODAS = ["", "", "n", "r", "t", "st", "ng", "ck", "ll", "ss", "nd", "rt", "ve", "ke", "le", "es", "ed",
         "me", "ne", "re", "ght", "sh", "ys", "ly"]
COMMON = ("i you the and a me my to love baby oh yeah tonight heart fire every little people table "
          "business smile time alone make made here there gone come some one where are more sure "
          "dancing cried loved wanted hour our being quiet poem lying crying creates idea real "
          "believe forever whatever nothing something running rhythm lyrics queen beautiful").split()
SCHEMES = {"pop": "AABB", "country": "ABAB", "rock": "ABCB", "hiphop": "AAAA"}


def make_word(rng, n_syll):
    return "".join(rng.choice(ONSETS) + rng.choice(NUCLEI) for _ in range(n_syll - 1)) + \
        rng.choice(ONSETS) + rng.choice(NUCLEI) + rng.choice(CODAS)


def build_lexicons(genres, size, seed):
    rng = random.Random(seed)
    lex = {}
    for g_i, genre in enumerate(genres):
        words = set()
        while len(words) < size:
            words.add(make_word(rng, rng.choice([1, 1, 1, 2, 2, 3] if g_i != 3 else [1, 2, 2, 3, 3])))
        lex[genre] = sorted(words)
    return lex


def _tail(word):
    i = len(word) - 1
    while i > 0 and word[i] not in "aeiouy":
        i -= 1
    return word[max(i - 1, 0):]


def generate_corpus(genres, num_songs, lexicon_size, seed):
    rng = random.Random(seed + 1)
    lex = build_lexicons(genres, lexicon_size, seed)
    by_tail = {}
    for genre, words in lex.items():
        for w in words:
            by_tail.setdefault((genre, _tail(w)), []).append(w)
    songs = []
    for s_i in range(num_songs):
        label = s_i % len(genres)
        genre = genres[label]
        words = lex[genre]
        scheme = SCHEMES[genre]
        n_lines = rng.randint(14, 26)
        line_len = {"pop": (4, 7), "country": (5, 8), "rock": (4, 8), "hiphop": (7, 11)}[genre]
        lines, anchors = [], {}
        chorus = None
        for l_i in range(n_lines):
            if chorus is not None and l_i % 8 >= 6:
                lines.append(chorus[l_i % 2])
                continue
            n = rng.randint(*line_len)
            toks = [rng.choice(COMMON) if rng.random() < 0.35 else rng.choice(words) for _ in range(n)]
            slot = scheme[l_i % 4]
            if slot in anchors and rng.random() < 0.8:
                pool = by_tail.get((genre, _tail(anchors[slot])), [anchors[slot]])
                toks[-1] = rng.choice(pool)
            anchors[slot] = toks[-1]
            if l_i % 4 == 3:
                anchors = {}
            line = " ".join(toks)
            if rng.random() < 0.3:
                line = line.capitalize() + rng.choice([",", "!", "...", "?"])
            lines.append(line)
            if chorus is None and l_i == 5:
                chorus = (lines[-2], lines[-1])
        songs.append({"lyrics": "\n".join(lines), "label": label})
    return songs
