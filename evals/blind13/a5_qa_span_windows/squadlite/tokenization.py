"""BERT-style tokenizer: basic (lower-case, strip accents, split punctuation) + greedy WordPiece,
returning character offsets into the original text."""
import unicodedata


def _is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


class WordPieceTokenizer:
    def __init__(self, vocab, unk_token="[UNK]", max_chars_per_word=100):
        self.vocab = vocab
        self.unk_token = unk_token
        self.max_chars = max_chars_per_word
        self.cls_id, self.sep_id, self.pad_id = vocab["[CLS]"], vocab["[SEP]"], vocab["[PAD]"]

    def _words(self, text):
        """Whitespace/punctuation split -> [(word, start, end)] with offsets into text."""
        words, start = [], None
        for i, ch in enumerate(text):
            if ch.isspace():
                if start is not None:
                    words.append((text[start:i], start, i))
                    start = None
            elif _is_punct(ch):
                if start is not None:
                    words.append((text[start:i], start, i))
                    start = None
                words.append((ch, i, i + 1))
            elif start is None:
                start = i
        if start is not None:
            words.append((text[start:], start, len(text)))
        return words

    @staticmethod
    def _normalize(word):
        word = unicodedata.normalize("NFD", word.lower())
        return "".join(c for c in word if unicodedata.category(c) != "Mn")

    def wordpiece(self, word):
        """Greedy longest-match-first; [UNK] if any part cannot be matched. -> [(piece, start, end)]
        with offsets relative to the normalised word."""
        if len(word) > self.max_chars:
            return [(self.unk_token, 0, len(word))]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                sub = word[start:end]
                if start > 0:
                    sub = "##" + sub
                if sub in self.vocab:
                    found = sub
                    break
                end -= 1
            if found is None:
                return [(self.unk_token, 0, len(word))]
            pieces.append((found, start, end))
            start = end
        return pieces

    def tokenize_with_offsets(self, text):
        """-> (ids, offsets) where offsets[k] = (char_start, char_end) in text."""
        ids, offsets = [], []
        for word, ws, we in self._words(text):
            norm = self._normalize(word)
            for piece, ps, pe in self.wordpiece(norm):
                ids.append(self.vocab[piece])
                offsets.append((ws + ps, min(ws + pe, we)))
        return ids, offsets
