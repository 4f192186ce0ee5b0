"""Lyrics featurisation: word tokens, syllable counts, rhyme tails and per-line features."""
import re
from collections import Counter

VOWELS = "aeiouy"
_PUNCT = re.compile(r"[^a-z' ]+")

# words the vowel-group rule gets wrong
SYLLABLE_EXCEPTIONS = {
    "the": 1, "every": 2, "business": 2, "people": 2, "fire": 1, "hour": 1, "our": 1, "being": 2,
    "poem": 2, "quiet": 2, "lying": 2, "crying": 2, "creates": 2, "idea": 3, "real": 1, "queen": 1,
    "beautiful": 3, "whatever": 3, "forever": 3, "rhythm": 2, "lyrics": 2, "some": 1, "come": 1,
    "one": 1, "gone": 1, "where": 1, "there": 1, "here": 1, "are": 1, "more": 1, "sure": 1,
}
# patterns that split a vowel group into two syllables, or merge two groups into one
ADD_PATTERNS = ["ia", "riet", "dien", "iu", "io", "ii", "[aeiouym]bl$", "[aeiou]{3}", "^mc",
                "ism$", "([^aeiouy])\\1l$", "[^l]lien", "^coa[dglx].", "[^gq]ua[^auieo]", "dnt$",
                "uity$", "ie(r|st)$", "[^aeiouy]le$", "ea[^r]ing$"]
SUB_PATTERNS = ["cial", "tia", "cius", "cious", "giu", "ion", "iou", "sia$", ".ely$", "[^td]ed$",
                "[^aeiouy]es$", "[^aeiouyl]e$", "ea(?=ve)", "oa", "ow$"]


def normalize_line(line):
    return _PUNCT.sub(" ", line.lower()).split()


def count_syllables(word):
    """Vowel-group count with the usual silent-e / -ed / -es / -le corrections."""
    word = word.strip("'")
    if not word:
        return 0
    if word in SYLLABLE_EXCEPTIONS:
        return SYLLABLE_EXCEPTIONS[word]
    groups = 0
    prev_vowel = False
    for ch in word:
        is_vowel = ch in VOWELS
        if is_vowel and not prev_vowel:
            groups += 1
        prev_vowel = is_vowel
    for pat in SUB_PATTERNS:
        if re.search(pat, word):
            groups -= 1
    for pat in ADD_PATTERNS:
        if re.search(pat, word):
            groups += 1
    return max(groups, 1)


def rhyme_tail(word):
    """Last vowel group and what follows it ('night' -> 'ight'), ignoring a silent final e."""
    word = word.strip("'")
    end = len(word)
    if end > 2 and word.endswith("e") and word[-2] not in VOWELS:
        end -= 1
    i = end - 1
    while i >= 0 and word[i] not in VOWELS:
        i -= 1
    while i > 0 and word[i - 1] in VOWELS:
        i -= 1
    return word[max(i, 0):] if i >= 0 else word


class Vocab:
    def __init__(self, counter, min_freq=1, max_size=None, specials=("<pad>", "<unk>")):
        self.itos = list(specials)
        for tok, freq in counter.most_common():
            if freq < min_freq or (max_size and len(self.itos) >= max_size):
                break
            self.itos.append(tok)
        self.pad_index = self.itos.index("<pad>")
        self.unk_index = self.itos.index("<unk>")

    def __len__(self):
        return len(self.itos)

    def __getitem__(self, token):
        return self.itos.index(token) if token in self.itos else self.unk_index

    def lookup_indices(self, tokens):
        return [self[t] for t in tokens]

    @classmethod
    def build(cls, texts, **kw):
        counter = Counter()
        for text in texts:
            for line in text.split("\n"):
                counter.update(normalize_line(line))
        return cls(counter, **kw)


class LyricsFeaturizer:
    """Per-song tokens plus per-line [syllables, words, mean syllables/word, rhymes-prev,
    rhymes-prev2, repeated-line] features, with a small rhyme-tail vocabulary."""

    N_LINE_FEATS = 7

    def __init__(self, vocab, max_lines, max_tokens):
        self.vocab = vocab
        self.max_lines = max_lines
        self.max_tokens = max_tokens
        self.tails = []

    def tail_id(self, tail):
        if tail not in self.tails:
            self.tails.append(tail)
        return self.tails.index(tail)

    def __call__(self, lines):
        feats, tokens, seen_lines = [], [], []
        prev_tails = []
        for line in lines[: self.max_lines]:
            words = normalize_line(line)
            if not words:
                continue
            sylls = [count_syllables(w) for w in words]
            tail = rhyme_tail(words[-1])
            tid = self.tail_id(tail)
            rh1 = float(len(prev_tails) >= 1 and prev_tails[-1] == tail)
            rh2 = float(len(prev_tails) >= 2 and prev_tails[-2] == tail)
            rep = float(line in seen_lines)
            feats.append([sum(sylls) / 12.0, len(words) / 10.0, sum(sylls) / len(words),
                          rh1, rh2, rep, (tid % 64) / 64.0])
            prev_tails.append(tail)
            seen_lines.append(line)
            tokens.extend(self.vocab.lookup_indices(words))
        return {"input_ids": tokens[: self.max_tokens], "line_feats": feats}
