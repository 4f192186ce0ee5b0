"""A PGN tokenizer with a Hugging Face-like call signature.

    tok = PGNTokenizer.from_corpus(games)
    enc = tok(game_text, max_length=192, truncation=True)
    enc["input_ids"], enc["attention_mask"], enc["tags"]
"""
import re

SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[BOS]", "[EOS]"]
SUFFIX_TO_NAG = {"!": "$1", "?": "$2", "!!": "$3", "??": "$4", "!?": "$5", "?!": "$6"}
RESULT_TOKENS = ("1-0", "0-1", "1/2-1/2", "*")
TAG_RE = re.compile(r'^\[(\w+)\s+"(.*)"\]\s*$')
MOVE_NO_RE = re.compile(r"^\d+\.+$")


class PGNTokenizer:
    pad_token_id = 0
    unk_token_id = 1
    bos_token_id = 2
    eos_token_id = 3

    def __init__(self, vocab, keep_variations=False):
        self.vocab = list(vocab)  # id -> token
        self.keep_variations = keep_variations

    @classmethod
    def from_corpus(cls, games, keep_variations=False):
        tok = cls(SPECIAL_TOKENS, keep_variations)
        seen = set()
        for game in games:
            _, movetext = tok.split_game(game)
            for word in tok.lex(movetext, keep_variations=True):
                seen.add(word)
        nags = sorted(w for w in seen if w.startswith("$"))
        sans = sorted(w for w in seen if not w.startswith("$"))
        tok.vocab = SPECIAL_TOKENS + nags + sans
        return tok

    def __len__(self):
        return len(self.vocab)

    @staticmethod
    def split_game(text):
        tags = {}
        body = []
        for line in text.splitlines():
            m = TAG_RE.match(line)
            if m:
                tags[m.group(1)] = m.group(2)
            elif line.strip():
                body.append(line)
        return tags, "\n".join(body)

    def lex(self, movetext, keep_variations=None):
        """Words of the move text: SAN moves and NAGs, without move numbers, comments, result."""
        if keep_variations is None:
            keep_variations = self.keep_variations
        words = []
        buf = []
        depth = 0
        in_comment = False

        def flush():
            if not buf:
                return
            word = "".join(buf)
            buf.clear()
            if depth > 0 and not keep_variations:
                return
            if MOVE_NO_RE.match(word) or word in RESULT_TOKENS:
                return
            san = word.rstrip("!?")
            words.append(san)
            if len(san) < len(word):
                words.append(SUFFIX_TO_NAG.get(word[len(san):], "$0"))

        for ch in movetext:
            if in_comment:
                if ch == "}":
                    in_comment = False
                continue
            if ch == "{":
                flush()
                in_comment = True
            elif ch == "(":
                flush()
                depth += 1
            elif ch == ")":
                flush()
                depth -= 1
            elif ch.isspace():
                flush()
            else:
                buf.append(ch)
        flush()
        return words

    def convert_tokens_to_ids(self, tokens):
        ids = []
        for t in tokens:
            if t in self.vocab:
                ids.append(self.vocab.index(t))
            else:
                ids.append(self.unk_token_id)
        return ids

    def __call__(self, text, max_length=None, truncation=False):
        tags, movetext = self.split_game(text)
        ids = self.convert_tokens_to_ids(self.lex(movetext))
        if truncation and max_length is not None:
            ids = ids[: max_length - 2]
        input_ids = [self.bos_token_id] + ids + [self.eos_token_id]
        return {"input_ids": input_ids, "attention_mask": [1] * len(input_ids), "tags": tags}
