"""BERT-style basic tokenisation + greedy longest-match-first WordPiece (after google-research/bert)."""
import collections
import unicodedata

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _is_punctuation(ch):
    cp = ord(ch)
    if (33 <= cp <= 47) or (58 <= cp <= 64) or (91 <= cp <= 96) or (123 <= cp <= 126):
        return True
    return unicodedata.category(ch).startswith("P")


def _is_whitespace(ch):
    if ch in (" ", "\t", "\n", "\r"):
        return True
    return unicodedata.category(ch) == "Zs"


def _is_control(ch):
    if ch in ("\t", "\n", "\r"):
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def _is_chinese_char(cp):
    return ((0x4E00 <= cp <= 0x9FFF) or (0x3400 <= cp <= 0x4DBF) or (0x20000 <= cp <= 0x2A6DF)
            or (0x2A700 <= cp <= 0x2B73F) or (0x2B740 <= cp <= 0x2B81F) or (0x2B820 <= cp <= 0x2CEAF)
            or (0xF900 <= cp <= 0xFAFF) or (0x2F800 <= cp <= 0x2FA1F))


def train_vocab(words, size=2000, lowercase=True, seed_pieces=("a", "e", "i", "o", "u")):
    """Tiny frequency-based piece inventory: characters, frequent word-initial and inner chunks."""
    counts = collections.Counter()
    for w in words:
        w = w.lower() if lowercase else w
        w = "".join(c for c in unicodedata.normalize("NFD", w) if unicodedata.category(c) != "Mn")
        for n in (2, 3, 4):
            for i in range(len(w) - n + 1):
                counts[("" if i == 0 else "##") + w[i:i + n]] += 1
        for i, c in enumerate(w):
            counts[("" if i == 0 else "##") + c] += 1
    pieces = list(SPECIALS)
    chars = sorted({p for p in counts if len(p.replace("##", "")) == 1} | set(seed_pieces))
    pieces += chars
    seen = set(pieces)
    for piece, _ in counts.most_common():
        if len(pieces) >= size:
            break
        if piece not in seen:
            pieces.append(piece)
            seen.add(piece)
    return {p: i for i, p in enumerate(pieces)}


class WordPieceTokenizer:
    def __init__(self, vocab, lowercase=True, strip_accents=True, max_input_chars_per_word=100):
        self.vocab = vocab
        self.ids_to_tokens = {i: t for t, i in vocab.items()}
        self.lowercase = lowercase
        self.strip_accents = strip_accents
        self.max_input_chars_per_word = max_input_chars_per_word
        self.unk_token = "[UNK]"

    @property
    def pad_token_id(self):
        return self.vocab["[PAD]"]

    @property
    def cls_token_id(self):
        return self.vocab["[CLS]"]

    @property
    def sep_token_id(self):
        return self.vocab["[SEP]"]

    def _run_strip_accents(self, text):
        text = unicodedata.normalize("NFD", text)
        output = []
        for char in text:
            if unicodedata.category(char) == "Mn":
                continue
            output.append(char)
        return "".join(output)

    def _run_split_on_punc(self, text):
        chars = list(text)
        i = 0
        start_new_word = True
        output = []
        while i < len(chars):
            char = chars[i]
            if _is_punctuation(char):
                output.append([char])
                start_new_word = True
            else:
                if start_new_word:
                    output.append([])
                start_new_word = False
                output[-1].append(char)
            i += 1
        return ["".join(x) for x in output]

    def _clean_text(self, text):
        output = []
        for char in text:
            cp = ord(char)
            if cp == 0 or cp == 0xFFFD or _is_control(char):
                continue
            output.append(" " if _is_whitespace(char) else char)
        return "".join(output)

    def _tokenize_chinese_chars(self, text):
        output = []
        for char in text:
            if _is_chinese_char(ord(char)):
                output.extend([" ", char, " "])
            else:
                output.append(char)
        return "".join(output)

    def basic_tokenize(self, word):
        word = self._tokenize_chinese_chars(self._clean_text(word))
        tokens = []
        for token in word.strip().split():
            if self.lowercase:
                token = token.lower()
            if self.strip_accents:
                token = self._run_strip_accents(token)
            tokens.extend(self._run_split_on_punc(token))
        return tokens

    def wordpiece_tokenize(self, token):
        chars = list(token)
        if len(chars) > self.max_input_chars_per_word:
            return [self.unk_token]
        is_bad = False
        start = 0
        sub_tokens = []
        while start < len(chars):
            end = len(chars)
            cur_substr = None
            while start < end:
                substr = "".join(chars[start:end])
                if start > 0:
                    substr = "##" + substr
                if substr in self.vocab:
                    cur_substr = substr
                    break
                end -= 1
            if cur_substr is None:
                is_bad = True
                break
            sub_tokens.append(cur_substr)
            start = end
        return [self.unk_token] if is_bad else sub_tokens

    def tokenize(self, word):
        pieces = []
        for token in self.basic_tokenize(word):
            pieces.extend(self.wordpiece_tokenize(token))
        return pieces

    def convert_tokens_to_ids(self, tokens):
        return [self.vocab.get(t, self.vocab[self.unk_token]) for t in tokens]
