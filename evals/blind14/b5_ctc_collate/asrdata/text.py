"""Transcript normalisation for character CTC: unicode folding, number and symbol verbalisation."""
import re
import unicodedata

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = ((1_000_000_000, "billion"), (1_000_000, "million"), (1000, "thousand"), (100, "hundred"))
_ORDINAL = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
            "nine": "ninth", "twelve": "twelfth"}
_ABBREV = {"dr": "doctor", "mr": "mister", "mrs": "missus", "st": "street", "no": "number", "vs": "versus",
           "approx": "approximately", "etc": "et cetera"}
_SYMBOLS = {"&": " and ", "%": " percent ", "+": " plus ", "=": " equals ", "@": " at "}
_NUMBER_RE = re.compile(r"\$?\d[\d,]*(?:\.\d+)?(?:st|nd|rd|th|s)?")
_ABBREV_RE = re.compile(r"\b(" + "|".join(_ABBREV) + r")\.", re.IGNORECASE)
_DROP_RE = re.compile(r"[^a-z' ]+")
_SPACE_RE = re.compile(r"\s+")


def number_to_words(n):
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + ("" if ones == 0 else " " + _ONES[ones])
    for value, name in _SCALES:
        if n >= value:
            head, rest = divmod(n, value)
            words = number_to_words(head) + " " + name
            return words if rest == 0 else words + " " + number_to_words(rest)
    raise ValueError(n)


def _ordinal(words):
    *head, last = words.split(" ")
    if last in _ORDINAL:
        last = _ORDINAL[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return " ".join(head + [last])


def _verbalise(match):
    token = match.group(0)
    currency = token.startswith("$")
    token = token.lstrip("$")
    suffix = ""
    for s in ("st", "nd", "rd", "th", "s"):
        if token.endswith(s):
            token, suffix = token[: -len(s)], s
            break
    token = token.replace(",", "")
    whole, _, frac = token.partition(".")
    words = number_to_words(int(whole))
    if suffix in ("st", "nd", "rd", "th"):
        words = _ordinal(words)
    elif suffix == "s":  # the 1990s -> nineteen nineties (approximately)
        words = words[:-1] + "ies" if words.endswith("y") else words + "s"
    if frac:
        words += " point " + " ".join(_ONES[int(d)] for d in frac)
    if currency:
        words += " dollars"
    return f" {words} "


class TranscriptNormalizer:
    def __call__(self, text):
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
        text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u2014", " ").replace("\u201c", "")
        text = text.replace("\u201d", "")
        text = _ABBREV_RE.sub(lambda m: " " + _ABBREV[m.group(1).lower()] + " ", text)
        for sym, word in _SYMBOLS.items():
            text = text.replace(sym, word)
        text = _NUMBER_RE.sub(_verbalise, text)
        text = _DROP_RE.sub(" ", text.lower())
        return _SPACE_RE.sub(" ", text).strip()
