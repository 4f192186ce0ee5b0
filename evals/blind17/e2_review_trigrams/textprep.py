"""Review text preparation: Unicode normalisation, emoji and elongation handling, negation scope,
hashed character trigrams per word (fastText-style subword buckets)."""
import re
import unicodedata

TOKEN_RE = re.compile(r"<emoji:[a-z0-9 \-]+>|\w+|[^\w\s]")
ELONG_RE = re.compile(r"(\w)\1{2,}")
NEGATORS = frozenset({"not", "never", "no", "nicht", "nie", "kein", "pas", "jamais", "rien", "nunca", "nada"})
SCOPE_END = frozenset(".,!?;:")
PAD_ID = 0


def is_emoji(ch):
    cp = ord(ch)
    return unicodedata.category(ch) == "So" or 0x1F300 <= cp <= 0x1FAFF


def normalise(text):
    """NFKC (full-width forms to ASCII), casefold, emoji to <emoji:name> tokens, accents stripped."""
    text = unicodedata.normalize("NFKC", text).casefold()
    parts = []
    for ch in text:
        if is_emoji(ch):
            parts.append(f" <emoji:{unicodedata.name(ch, 'unknown').lower()}> ")
        elif ch == "\ufe0f":
            continue  # variation selector
        else:
            parts.append(ch)
    decomposed = unicodedata.normalize("NFKD", "".join(parts))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokenize(text):
    """Words, emoji tokens and punctuation; elongated words are squeezed and followed by <elong>."""
    tokens = []
    for tok in TOKEN_RE.findall(text):
        squeezed = ELONG_RE.sub(r"\1\1", tok)
        tokens.append(squeezed)
        if squeezed != tok:
            tokens.append("<elong>")
    return tokens


def mark_negation(tokens):
    """Prefix every word after a negator with neg_ until the next punctuation mark."""
    out, in_scope = [], False
    for tok in tokens:
        if tok in SCOPE_END or (len(tok) > 1 and all(c in SCOPE_END for c in tok)):
            in_scope = False
            out.append(tok)
        elif tok in NEGATORS:
            in_scope = True
            out.append(tok)
        else:
            out.append("neg_" + tok if in_scope and not tok.startswith("<") else tok)
    return out


def fnv1a_32(data):
    """32-bit FNV-1a over bytes, as fastText hashes its subwords."""
    h = 2166136261
    for byte in data:
        h ^= byte
        h = (h * 16777619) & 0xFFFFFFFF
    return h


def word_trigrams(word, buckets):
    """Hashed character trigrams of <word>, ids in 1..buckets (0 is padding)."""
    padded = f"<{word}>"
    return [fnv1a_32(padded[i:i + 3].encode("utf-8")) % buckets + 1 for i in range(len(padded) - 2)]
