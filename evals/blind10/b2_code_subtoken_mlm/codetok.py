"""Sub-token lexer for Python source: stdlib tokenize, identifier splitting and a fixed vocabulary."""
import io
import keyword
import re
import token
import tokenize

from snippets import ACRONYMS, BUILTINS, WORDS

SPECIALS = ["<pad>", "<unk>", "<mask>", "<bos>", "<eos>", "<num>", "<str>", "<nl>", "<indent>", "<dedent>",
            "<id_sep>"]
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def split_identifier(name):
    """snake_case and camelCase/PascalCase to lower-case sub-tokens: 'parseHTTPResponse_v2' -> parse http response v 2."""
    pieces = []
    for chunk in name.split("_"):
        if not chunk:
            continue
        pieces.extend(m.group(0).lower() for m in _CAMEL.finditer(chunk))
    return pieces


class SubtokenVocab:
    """A fixed vocabulary (as a vocab.txt would ship it) with greedy longest-match fallback for OOV sub-tokens."""

    def __init__(self, words):
        self.itos = list(SPECIALS)
        for w in words:
            if w not in self.itos:
                self.itos.append(w)
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.unk = self.stoi["<unk>"]

    def __len__(self):
        return len(self.itos)

    def lookup(self, piece):
        if piece in self.stoi:
            return [self.stoi[piece]]
        ids, start = [], 0
        while start < len(piece):
            end = len(piece)
            while end > start:
                cand = piece[start:end] if start == 0 else "##" + piece[start:end]
                if cand in self.stoi:
                    ids.append(self.stoi[cand])
                    break
                end -= 1
            else:
                return [self.unk]
            start = end
        return ids


def default_vocab():
    words = sorted(set(keyword.kwlist) | set(BUILTINS) | {w.lower() for w in WORDS} | {a.lower() for a in ACRONYMS})
    ops = sorted(set(token.EXACT_TOKEN_TYPES))
    letters = [c for c in "abcdefghijklmnopqrstuvwxyz"] + ["##" + c for c in "abcdefghijklmnopqrstuvwxyz"]
    digits = [str(d) for d in range(10)] + ["##" + str(d) for d in range(10)]
    return SubtokenVocab(words + ops + letters + digits)


class CodeLexer:
    def __init__(self, vocab, keep_comments=True):
        self.vocab = vocab
        self.keep_comments = keep_comments
        self.special = {s: vocab.stoi[s] for s in SPECIALS}

    def encode(self, source):
        ids = [self.special["<bos>"]]
        lookup = self.vocab.lookup
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.NAME:
                if keyword.iskeyword(tok.string) or tok.string in ("True", "False", "None"):
                    ids.extend(lookup(tok.string))
                else:
                    for piece in split_identifier(tok.string):
                        ids.extend(lookup(piece))
                    ids.append(self.special["<id_sep>"])
            elif tok.type == tokenize.OP:
                ids.extend(lookup(tok.string))
            elif tok.type == tokenize.NUMBER:
                ids.append(self.special["<num>"])
            elif tok.type == tokenize.STRING:
                ids.append(self.special["<str>"])
                body = tok.string.strip("\"'")
                for word in body.split()[:8]:
                    for piece in split_identifier(word):
                        ids.extend(lookup(piece))
            elif tok.type == tokenize.COMMENT and self.keep_comments:
                for word in tok.string.lstrip("#").split():
                    ids.extend(lookup(word.lower()))
            elif tok.type in (tokenize.NEWLINE, tokenize.NL):
                ids.append(self.special["<nl>"])
            elif tok.type == tokenize.INDENT:
                ids.append(self.special["<indent>"])
            elif tok.type == tokenize.DEDENT:
                ids.append(self.special["<dedent>"])
        ids.append(self.special["<eos>"])
        return ids
