"""A multilingual product-review export, as JSON lines, generated from a seed."""
import json
import random

LEXICON = {
    "en": {"pos": ["good", "great", "love", "perfect", "fast", "comfortable", "recommend", "sturdy"],
           "neg": ["bad", "broken", "slow", "cheap", "disappointed", "useless", "refund", "flimsy"],
           "neu": ["the", "battery", "delivery", "it", "was", "this", "product", "after", "week", "size", "color",
                   "and", "really", "box", "price", "my", "daughter", "works"],
           "negators": ["not", "never", "no"]},
    "de": {"pos": ["gut", "super", "toll", "schnell", "bequem", "empfehlenswert", "stabil", "schön"],
           "neg": ["schlecht", "kaputt", "langsam", "billig", "enttäuscht", "nutzlos", "rücksendung", "wackelig"],
           "neu": ["die", "lieferung", "akku", "das", "produkt", "war", "nach", "woche", "größe", "farbe", "und",
                   "wirklich", "preis", "meine", "tochter", "funktioniert"],
           "negators": ["nicht", "nie", "kein"]},
    "fr": {"pos": ["bon", "génial", "adore", "parfait", "rapide", "confortable", "recommande", "solide"],
           "neg": ["mauvais", "cassé", "lent", "déçu", "inutile", "remboursement", "fragile", "médiocre"],
           "neu": ["le", "la", "livraison", "batterie", "produit", "était", "après", "semaine", "taille",
                   "couleur", "et", "vraiment", "prix", "ma", "fille", "fonctionne"],
           "negators": ["pas", "jamais", "rien"]},
    "es": {"pos": ["bueno", "genial", "encanta", "perfecto", "rápido", "cómodo", "recomiendo", "resistente"],
           "neg": ["malo", "roto", "lento", "barato", "decepcionado", "inútil", "devolución", "frágil"],
           "neu": ["el", "la", "entrega", "batería", "producto", "fue", "después", "semana", "talla", "color",
                   "y", "realmente", "precio", "mi", "hija", "funciona"],
           "negators": ["no", "nunca", "nada"]},
}
EMOJI = {"pos": ["\U0001F60D", "\U0001F44D", "\U0001F389", "\u2764\ufe0f", "\U0001F600"],
         "neg": ["\U0001F621", "\U0001F44E", "\U0001F62D", "\U0001F4A9", "\U0001F612"]}
PUNCT = [".", "!", ",", "?", "...", "!!"]


def _fullwidth(word):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in word)


def _elongate(word, rng):
    vowels = [i for i, c in enumerate(word) if c in "aeiouyäöüéóí"]
    if not vowels:
        return word
    i = rng.choice(vowels)
    return word[:i] + word[i] * rng.randint(3, 7) + word[i + 1:]


def make_review(rng, review_id):
    lang = rng.choice(sorted(LEXICON))
    lex = LEXICON[lang]
    stars = rng.choices([1, 2, 3, 4, 5], weights=[2, 1, 1, 2, 4])[0]
    polarity = "pos" if stars >= 4 else "neg" if stars <= 2 else rng.choice(["pos", "neg"])
    words = []
    for _ in range(rng.randint(10, 22)):  # sentences
        sentence = []
        for _ in range(rng.randint(4, 12)):
            r = rng.random()
            if r < 0.22:
                pol = polarity if rng.random() < 0.8 else ("neg" if polarity == "pos" else "pos")
                if rng.random() < 0.2:  # "not bad" flips the word
                    sentence.append(rng.choice(lex["negators"]))
                    pol = "neg" if pol == "pos" else "pos"
                w = rng.choice(lex[pol])
                if rng.random() < 0.25:
                    w = _elongate(w, rng)
                if rng.random() < 0.1:
                    w = w.upper()
                sentence.append(w)
            elif r < 0.28:
                sentence.append(rng.choice(EMOJI[polarity]) * rng.randint(1, 3))
            else:
                w = rng.choice(lex["neu"])
                if rng.random() < 0.05:
                    w = _fullwidth(w)
                sentence.append(w)
        if sentence:
            sentence[0] = sentence[0].capitalize()
        words.append(" ".join(sentence) + rng.choice(PUNCT))
    return json.dumps({"review_id": f"R{review_id:07d}", "lang": lang, "stars": stars,
                       "verified": rng.random() < 0.8, "body": " ".join(words)}, ensure_ascii=False)


def make_export(n, seed):
    rng = random.Random(seed)
    return "\n".join(make_review(rng, i) for i in range(n))
