"""Phonetic name codes used to standardise spelling variants in parish and census records."""
import re
import unicodedata

_NON_ALPHA = re.compile(r"[^A-Z]")

_SOUNDEX = {}
for _letters, _digit in (("BFPV", "1"), ("CGJKQSXZ", "2"), ("DT", "3"), ("L", "4"), ("MN", "5"), ("R", "6")):
    for _ch in _letters:
        _SOUNDEX[_ch] = _digit


def normalize_name(raw):
    """'  Müller-Lüdenscheidt ' -> 'MULLERLUDENSCHEIDT'."""
    decomposed = unicodedata.normalize("NFKD", raw)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _NON_ALPHA.sub("", stripped.upper())


# Spelling-variant folds applied before coding (clerks' and transcribers' habits).
_FOLDS = [
    (r"^MAC", "MC"), (r"SCH", "SH"), (r"PH", "F"), (r"CK", "K"),
    (r"TZ", "Z"), (r"DT$", "T"), (r"MANN$", "MAN"), (r"SEN$", "SON"), (r"AE", "A"), (r"OE", "O"),
    (r"UE", "U"), (r"(?<=[A-Z])Y(?=[A-Z])", "I"), (r"IE$", "Y"), (r"([AEIOU])\1+", r"\1"),
    (r"GH(?=[^AEIOU]|$)", "H"), (r"KS", "X"), (r"WR", "R"),
]


def standardize(name):
    """normalize_name, then fold common spelling variants."""
    word = normalize_name(name)
    for pattern, repl in _FOLDS:
        word = re.sub(pattern, repl, word)
    return word


def soundex(name):
    """American Soundex: first letter plus three digits (H and W do not separate equal codes)."""
    name = standardize(name)
    if not name:
        return "0000"
    first = name[0]
    code = first
    last = _SOUNDEX.get(first, "")
    for ch in name[1:]:
        digit = _SOUNDEX.get(ch, "")
        if digit and digit != last:
            code += digit
            if len(code) == 4:
                break
        if ch not in "HW":
            last = digit
    return (code + "000")[:4]


_VOWELS = set("AEIOU")
_FRONT = set("EIY")


def metaphone(name, max_len=6):
    """A simplified Metaphone (after Philips 1990): enough rules for European surnames."""
    word = standardize(name)
    if not word:
        return ""
    # initial-letter exceptions
    for prefix, repl in (("KN", "N"), ("GN", "N"), ("PN", "N"), ("AE", "E"), ("WR", "R")):
        if word.startswith(prefix):
            word = repl + word[2:]
            break
    if word.startswith("X"):
        word = "S" + word[1:]
    elif word.startswith("WH"):
        word = "W" + word[2:]
    # collapse doubled letters except C
    dedup = []
    for ch in word:
        if dedup and dedup[-1] == ch and ch != "C":
            continue
        dedup.append(ch)
    word = "".join(dedup)

    out = []
    i = 0
    n = len(word)
    while i < n and len(out) < max_len:
        ch = word[i]
        prev = word[i - 1] if i > 0 else ""
        nxt = word[i + 1] if i + 1 < n else ""
        nxt2 = word[i + 2] if i + 2 < n else ""
        if ch in _VOWELS:
            if i == 0:
                out.append(ch)
        elif ch == "B":
            if not (prev == "M" and i == n - 1):
                out.append("B")
        elif ch == "C":
            if nxt == "I" and nxt2 == "A":
                out.append("X")
            elif nxt == "H":
                out.append("X" if prev != "S" else "K")
                i += 1
            elif nxt in _FRONT:
                if prev != "S":
                    out.append("S")
            else:
                out.append("K")
        elif ch == "D":
            if nxt == "G" and nxt2 in _FRONT:
                out.append("J")
                i += 1
            else:
                out.append("T")
        elif ch == "G":
            if nxt == "H" and nxt2 and nxt2 not in _VOWELS:
                pass
            elif nxt == "N" and (i + 2 == n or (nxt2 == "E" and word[i + 3:i + 4] == "D")):
                pass
            elif nxt in _FRONT and prev != "G":
                out.append("J")
            else:
                out.append("K")
        elif ch == "H":
            if nxt in _VOWELS and prev not in "CSPTG":
                out.append("H")
        elif ch == "K":
            if prev != "C":
                out.append("K")
        elif ch == "P":
            if nxt == "H":
                out.append("F")
                i += 1
            else:
                out.append("P")
        elif ch == "Q":
            out.append("K")
        elif ch == "S":
            if nxt == "H":
                out.append("X")
                i += 1
            elif nxt == "I" and nxt2 in ("O", "A"):
                out.append("X")
            elif nxt == "C" and nxt2 == "H":
                out.append("SK")
                i += 2
            else:
                out.append("S")
        elif ch == "T":
            if nxt == "I" and nxt2 in ("O", "A"):
                out.append("X")
            elif nxt == "H":
                out.append("0")
                i += 1
            elif not (nxt == "C" and nxt2 == "H"):
                out.append("T")
        elif ch == "V":
            out.append("F")
        elif ch in "WY":
            if nxt in _VOWELS:
                out.append(ch)
        elif ch == "X":
            out.append("KS")
        elif ch == "Z":
            out.append("S")
        else:  # F J L M N R
            out.append(ch)
        i += 1
    return "".join(out)[:max_len]
