"""Deterministic synthetic subtitle (SRT) corpus, one document per episode/film."""
import numpy as np

GENRES = ["drama", "comedy", "documentary", "action", "animation", "crime"]
_ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "st", "tr", "ch", "sh", "br", "gl"]
_NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "ee", "oo"]
_CODAS = ["", "", "n", "r", "s", "t", "ll", "nd", "ck", "ng"]
_SDH = ["[LAUGHS]", "[SIGHS]", "[DOOR SLAMS]", "[MUSIC PLAYING]", "[GUNSHOT]", "[APPLAUSE]"]


def _make_words(rng, n):
    words, seen = [], set()
    while len(words) < n:
        k = int(rng.integers(1, 4))
        w = "".join(_ONSETS[rng.integers(len(_ONSETS))] + _NUCLEI[rng.integers(len(_NUCLEI))] + _CODAS[rng.integers(len(_CODAS))] for _ in range(k))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def _stamp(ms):
    h, rem = divmod(ms, 3600000)
    m, rem = divmod(rem, 60000)
    s, ms = divmod(rem, 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def build_corpus(cfg, seed):
    rng = np.random.default_rng([seed, 0])
    common = _make_words(rng, cfg["common_words"] + cfg["num_genres"] * cfg["genre_words"])
    genre_pools = [common[cfg["common_words"] + g * cfg["genre_words"]: cfg["common_words"] + (g + 1) * cfg["genre_words"]]
                   for g in range(cfg["num_genres"])]
    common = common[:cfg["common_words"]]
    zipf = 1.0 / np.arange(1, len(common) + 1) ** 0.9
    cdf = np.cumsum(zipf / zipf.sum())
    lo, hi = cfg["cues_per_document"]
    docs, labels = [], []
    for i in range(cfg["num_documents"]):
        r = np.random.default_rng([seed, 1, i])
        genre = int(r.integers(cfg["num_genres"]))
        rate = 11.0 + 3.0 * genre / cfg["num_genres"] + r.normal(0, 1.0)  # chars per second
        t = int(r.integers(1000, 60000))
        blocks = []
        for c in range(int(r.integers(lo, hi + 1))):
            lines = []
            for _ in range(int(r.integers(1, 3))):
                n = int(r.integers(3, 9))
                from_genre = r.random(n) < 0.3
                g_idx = r.integers(len(genre_pools[genre]), size=n)
                c_idx = np.minimum(np.searchsorted(cdf, r.random(n), side="right"), len(common) - 1)
                picks = [genre_pools[genre][g] if fg else common[c] for fg, g, c in zip(from_genre, g_idx, c_idx)]
                line = " ".join(picks)
                line = line[0].upper() + line[1:] + (r.choice([".", "?", "!", ",", "..."]) if r.random() < 0.8 else "")
                if r.random() < 0.15:
                    line = f"<i>{line}</i>"
                if r.random() < 0.1:
                    line = "- " + line
                if r.random() < 0.05:
                    line = _SDH[r.integers(len(_SDH))] + " " + line
                if r.random() < 0.04:
                    line = "\u266a " + line + " \u266a"
                lines.append(line)
            chars = sum(len(l) for l in lines)
            dur = max(700, int(1000 * chars / max(rate, 4.0)))
            blocks.append(f"{c + 1}\n{_stamp(t)} --> {_stamp(t + dur)}\n" + "\n".join(lines))
            t += dur + int(r.integers(0, 900 + 300 * (genre % 3)))
        docs.append("\n\n".join(blocks) + "\n")
        labels.append(genre)
    return docs, labels
