"""BERT-style tokenization: basic (clean, lower-case, strip accents, split punctuation) + WordPiece.

Follows the structure of the original google-research/bert tokenization.py.
"""
import collections
import unicodedata


def whitespace_tokenize(text):
    text = text.strip()
    if not text:
        return []
    return text.split()


def _is_whitespace(char):
    if char in (" ", "\t", "\n", "\r"):
        return True
    return unicodedata.category(char) == "Zs"


def _is_control(char):
    if char in ("\t", "\n", "\r"):
        return False
    return unicodedata.category(char).startswith("C")


def _is_punctuation(char):
    cp = ord(char)
    if (33 <= cp <= 47) or (58 <= cp <= 64) or (91 <= cp <= 96) or (123 <= cp <= 126):
        return True
    return unicodedata.category(char).startswith("P")


class BasicTokenizer:
    def __init__(self, do_lower_case=True, strip_accents=True):
        self.do_lower_case = do_lower_case
        self.strip_accents = strip_accents

    def tokenize(self, text):
        text = self._clean_text(text)
        orig_tokens = whitespace_tokenize(text)
        split_tokens = []
        for token in orig_tokens:
            if self.do_lower_case:
                token = token.lower()
            if self.strip_accents:
                token = self._run_strip_accents(token)
            split_tokens.extend(self._run_split_on_punc(token))
        return whitespace_tokenize(" ".join(split_tokens))

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
            if _is_whitespace(char):
                output.append(" ")
            else:
                output.append(char)
        return "".join(output)


class WordpieceTokenizer:
    def __init__(self, vocab, unk_token="[UNK]", max_input_chars_per_word=100):
        self.vocab = vocab
        self.unk_token = unk_token
        self.max_input_chars_per_word = max_input_chars_per_word

    def tokenize(self, text):
        output_tokens = []
        for token in whitespace_tokenize(text):
            chars = list(token)
            if len(chars) > self.max_input_chars_per_word:
                output_tokens.append(self.unk_token)
                continue
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
            if is_bad:
                output_tokens.append(self.unk_token)
            else:
                output_tokens.extend(sub_tokens)
        return output_tokens


class FullTokenizer:
    def __init__(self, vocab, do_lower_case=True, strip_accents=True):
        self.vocab = vocab
        self.inv_vocab = {v: k for k, v in vocab.items()}
        self.basic_tokenizer = BasicTokenizer(do_lower_case, strip_accents)
        self.wordpiece_tokenizer = WordpieceTokenizer(vocab)

    def tokenize(self, text):
        split_tokens = []
        for token in self.basic_tokenizer.tokenize(text):
            for sub_token in self.wordpiece_tokenizer.tokenize(token):
                split_tokens.append(sub_token)
        return split_tokens

    def convert_tokens_to_ids(self, tokens):
        return [self.vocab[t] for t in tokens]


SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def build_vocab(texts, vocab_size, do_lower_case=True, strip_accents=True):
    """Frequency-based WordPiece-like vocab: specials, characters, frequent words, affixes."""
    basic = BasicTokenizer(do_lower_case, strip_accents)
    words = collections.Counter()
    for t in texts:
        words.update(basic.tokenize(t))
    chars = sorted({c for w in words for c in w})
    vocab = list(SPECIALS) + chars + ["##" + c for c in chars]
    prefixes, suffixes = collections.Counter(), collections.Counter()
    for w, n in words.items():
        for k in range(2, min(len(w), 5) + 1):
            prefixes[w[:k]] += n
        for k in range(2, min(len(w) - 1, 4) + 1):
            suffixes["##" + w[-k:]] += n
    budget = vocab_size - len(vocab)
    seen = set(vocab)
    ranked = [w for w, _ in words.most_common() if len(w) > 1]
    ranked = ranked[: budget // 2]
    affixes = [a for a, _ in (prefixes + suffixes).most_common()]
    for tok in ranked + affixes:
        if len(vocab) >= vocab_size:
            break
        if tok not in seen:
            seen.add(tok)
            vocab.append(tok)
    return collections.OrderedDict((tok, i) for i, tok in enumerate(vocab))
