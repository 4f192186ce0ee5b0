"""A small BERT-style tokenizer: basic (whitespace / punctuation / accents) + WordPiece.

Follows the structure of the reference BERT tokenizer: a BasicTokenizer that cleans and
splits text, then a greedy longest-match-first WordpieceTokenizer.
"""
import unicodedata
from typing import Dict, List, Optional


def _is_whitespace(char: str) -> bool:
    if char in (" ", "\t", "\n", "\r"):
        return True
    return unicodedata.category(char) == "Zs"


def _is_control(char: str) -> bool:
    if char in ("\t", "\n", "\r"):
        return False
    return unicodedata.category(char).startswith("C")


def _is_punctuation(char: str) -> bool:
    cp = ord(char)
    if (33 <= cp <= 47) or (58 <= cp <= 64) or (91 <= cp <= 96) or (123 <= cp <= 126):
        return True
    return unicodedata.category(char).startswith("P")


def _is_chinese_char(cp: int) -> bool:
    return ((0x4E00 <= cp <= 0x9FFF) or (0x3400 <= cp <= 0x4DBF) or (0x20000 <= cp <= 0x2A6DF)
            or (0x2A700 <= cp <= 0x2B73F) or (0x2B740 <= cp <= 0x2B81F) or (0x2B820 <= cp <= 0x2CEAF)
            or (0xF900 <= cp <= 0xFAFF) or (0x2F800 <= cp <= 0x2FA1F))


def whitespace_tokenize(text: str) -> List[str]:
    text = text.strip()
    return text.split() if text else []


class BasicTokenizer:
    def __init__(self, do_lower_case: bool = True):
        self.do_lower_case = do_lower_case

    def _clean_text(self, text: str) -> str:
        out = []
        for char in text:
            cp = ord(char)
            if cp == 0 or cp == 0xFFFD or _is_control(char):
                continue
            out.append(" " if _is_whitespace(char) else char)
        return "".join(out)

    def _tokenize_chinese_chars(self, text: str) -> str:
        output = []
        for char in text:
            if _is_chinese_char(ord(char)):
                output.extend([" ", char, " "])
            else:
                output.append(char)
        return "".join(output)

    def _strip_accents(self, text: str) -> str:
        text = unicodedata.normalize("NFD", text)
        return "".join(c for c in text if unicodedata.category(c) != "Mn")

    def _split_on_punc(self, text: str) -> List[str]:
        output: List[List[str]] = []
        start_new_word = True
        for char in text:
            if _is_punctuation(char):
                output.append([char])
                start_new_word = True
            else:
                if start_new_word:
                    output.append([])
                start_new_word = False
                output[-1].append(char)
        return ["".join(x) for x in output]

    def tokenize(self, text: str) -> List[str]:
        text = self._clean_text(text)
        text = self._tokenize_chinese_chars(text)
        split_tokens: List[str] = []
        for token in whitespace_tokenize(text):
            if self.do_lower_case:
                token = self._strip_accents(token.lower())
            split_tokens.extend(self._split_on_punc(token))
        return whitespace_tokenize(" ".join(split_tokens))


class WordpieceTokenizer:
    def __init__(self, vocab: Dict[str, int], unk_token: str = "[UNK]", max_chars: int = 100):
        self.vocab = vocab
        self.unk_token = unk_token
        self.max_chars = max_chars

    def tokenize(self, word: str) -> List[str]:
        chars = list(word)
        if len(chars) > self.max_chars:
            return [self.unk_token]
        sub_tokens: List[str] = []
        start = 0
        while start < len(chars):
            end = len(chars)
            cur: Optional[str] = None
            while start < end:
                substr = "".join(chars[start:end])
                if start > 0:
                    substr = "##" + substr
                if substr in self.vocab:
                    cur = substr
                    break
                end -= 1
            if cur is None:
                return [self.unk_token]
            sub_tokens.append(cur)
            start = end
        return sub_tokens


class NerTokenizer:
    """Tokenises pre-split words and aligns word-level tags to the first sub-token."""

    def __init__(self, vocab: Dict[str, int], max_length: int = 64):
        self.vocab = vocab
        self.basic = BasicTokenizer(do_lower_case=True)
        self.wordpiece = WordpieceTokenizer(vocab)
        self.max_length = max_length
        self.pad_id = vocab["[PAD]"]
        self.cls_id = vocab["[CLS]"]
        self.sep_id = vocab["[SEP]"]

    def encode_words(self, words: List[str], tags: List[int]) -> Dict[str, List[int]]:
        input_ids = [self.cls_id]
        labels = [-100]
        for word, tag in zip(words, tags):
            pieces: List[str] = []
            for tok in self.basic.tokenize(word):
                pieces.extend(self.wordpiece.tokenize(tok))
            for k, piece in enumerate(pieces):
                input_ids.append(self.vocab.get(piece, self.vocab["[UNK]"]))
                labels.append(tag if k == 0 else -100)
        input_ids = input_ids[: self.max_length - 1] + [self.sep_id]
        labels = labels[: self.max_length - 1] + [-100]
        attention_mask = [1] * len(input_ids)
        pad = self.max_length - len(input_ids)
        return {
            "input_ids": input_ids + [self.pad_id] * pad,
            "attention_mask": attention_mask + [0] * pad,
            "labels": labels + [-100] * pad,
        }
