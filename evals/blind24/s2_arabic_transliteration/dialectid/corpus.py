"""Synthetic social posts in Arabic script for five dialect groups.

Words are drawn from shared and dialect-specific stems; writers sprinkle harakat,
stretch words with tatweel and spell alef/hamza/ta-marbuta inconsistently.
"""
import random

DIALECTS = ["gulf", "levantine", "egyptian", "maghrebi", "iraqi"]

_COMMON = ["كتاب", "بيت", "ولد", "مدرسة", "سيارة", "قهوة", "شارع", "يوم", "ليلة", "صديق",
           "عمل", "سوق", "مدينة", "اخبار", "مباراة", "فريق", "طعام", "ماء", "شمس", "هاتف"]
_DIALECT = {
    "gulf": ["شلونك", "وايد", "زين", "الحين", "ابغى", "سالفة", "يبا", "هالحين", "مب", "دحين"],
    "levantine": ["كيفك", "هلق", "منيح", "شو", "بدي", "كتير", "هيك", "لسا", "يلا", "مبارح"],
    "egyptian": ["ازيك", "دلوقتي", "كويس", "عايز", "اوي", "ايه", "فين", "بتاع", "خالص", "ماشي"],
    "maghrebi": ["لاباس", "دابا", "بزاف", "واش", "بغيت", "مزيان", "كيفاش", "شحال", "صافي", "غادي"],
    "iraqi": ["شلونك", "هسه", "زين", "اريد", "كلش", "شكو", "ماكو", "اكو", "هواية", "جان"],
}
_LETTERS = "ابتثجحخدذرزسشصضطظعغفقكلمنهوي"
_HARAKAT = ["\u064e", "\u064f", "\u0650", "\u0652", "\u0651", "\u064b", "\u064c", "\u064d"]
_TATWEEL = "\u0640"
_VARIANTS = {"ا": ["أ", "إ", "آ"], "ه": ["ة"], "ي": ["ى"], "و": ["ؤ"]}


def _decorate(word, rng):
    out = []
    for i, ch in enumerate(word):
        if ch in _VARIANTS and rng.random() < 0.25:
            ch = rng.choice(_VARIANTS[ch])
        out.append(ch)
        if rng.random() < 0.3:
            out.append(rng.choice(_HARAKAT))
        if 0 < i < len(word) - 1 and rng.random() < 0.06:
            out.append(_TATWEEL * rng.randint(1, 3))
    return "".join(out)


def make_posts(n, seed, min_words=12, max_words=26):
    rng = random.Random(seed)
    posts, labels = [], []
    for _ in range(n):
        label = rng.randrange(len(DIALECTS))
        words = []
        for _ in range(rng.randint(min_words, max_words)):
            r = rng.random()
            if r < 0.3:
                word = rng.choice(_DIALECT[DIALECTS[label]])
            elif r < 0.75:
                word = rng.choice(_COMMON)
            else:  # names, hashtags, slang: free spelling
                word = "".join(rng.choice(_LETTERS) for _ in range(rng.randint(3, 7)))
            words.append(_decorate(word, rng))
            if rng.random() < 0.05:
                words.append(str(rng.randint(1, 99)))
        posts.append(" ".join(words))
        labels.append(label)
    return posts, labels
