"""A small hand-written SQL lexer.

Lexer(sql).tokens() yields Token(kind, text, line, col); normalise() turns them into the
model's token strings: keywords upper-cased, identifiers lower-cased (quoted identifiers keep
their inner text, lower-cased), string literals -> <STR>, numeric literals -> <NUM>,
comments dropped, multi-character operators kept whole.
"""
from dataclasses import dataclass

KEYWORDS = frozenset("""
SELECT FROM WHERE AND OR NOT IN IS NULL AS ON JOIN LEFT RIGHT INNER OUTER FULL CROSS GROUP BY
ORDER HAVING LIMIT OFFSET DISTINCT UNION ALL WITH CASE WHEN THEN ELSE END BETWEEN LIKE ILIKE ASC
DESC EXISTS SUM AVG COUNT MIN MAX CAST OVER PARTITION INSERT UPDATE DELETE INTO VALUES SET
""".split())

TWO_CHAR_OPS = frozenset(["<=", ">=", "<>", "!=", "||", "::"])
PUNCT = frozenset("(),;.*=<>+-/%")


class LexError(ValueError):
    pass


@dataclass
class Token:
    kind: str   # KEYWORD, IDENT, QIDENT, STRING, NUMBER, OP, COMMENT
    text: str
    line: int
    col: int


class Lexer:
    def __init__(self, sql):
        self.sql = sql
        self.pos = 0
        self.line = 1
        self.col = 1

    def peek(self, k=0):
        p = self.pos + k
        return self.sql[p] if p < len(self.sql) else ""

    def advance(self):
        c = self.sql[self.pos]
        self.pos += 1
        if c == "\n":
            self.line += 1
            self.col = 1
        else:
            self.col += 1
        return c

    def at_end(self):
        return self.pos >= len(self.sql)

    def _string(self):
        start = self.pos
        self.advance()
        while not self.at_end():
            if self.peek() == "'":
                if self.peek(1) == "'":
                    self.advance()
                    self.advance()
                    continue
                break
            self.advance()
        if self.at_end():
            raise LexError(f"unterminated string at line {self.line}")
        self.advance()
        return self.sql[start:self.pos]

    def _number(self):
        start = self.pos
        seen_dot = seen_exp = False
        while not self.at_end():
            d = self.peek()
            if d.isdigit():
                self.advance()
            elif d == "." and not seen_dot and not seen_exp:
                seen_dot = True
                self.advance()
            elif d in "eE" and not seen_exp and (self.peek(1).isdigit() or self.peek(1) in ("+", "-")):
                seen_exp = True
                self.advance()
                self.advance()
            else:
                break
        return self.sql[start:self.pos]

    def tokens(self):
        out = []
        while not self.at_end():
            c = self.peek()
            line, col = self.line, self.col
            if c.isspace():
                self.advance()
                continue
            nxt = self.peek(1)
            if c == "-" and nxt == "-":
                start = self.pos
                while not self.at_end() and self.peek() != "\n":
                    self.advance()
                out.append(Token("COMMENT", self.sql[start:self.pos], line, col))
            elif c == "/" and nxt == "*":
                start = self.pos
                self.advance()
                self.advance()
                while not self.at_end() and not (self.peek() == "*" and self.peek(1) == "/"):
                    self.advance()
                if self.at_end():
                    raise LexError(f"unterminated comment at line {line}")
                self.advance()
                self.advance()
                out.append(Token("COMMENT", self.sql[start:self.pos], line, col))
            elif c == "'":
                out.append(Token("STRING", self._string(), line, col))
            elif c == '"':
                self.advance()
                start = self.pos
                while not self.at_end() and self.peek() != '"':
                    self.advance()
                text = self.sql[start:self.pos]
                self.advance()
                out.append(Token("QIDENT", text, line, col))
            elif c.isdigit() or (c == "." and nxt.isdigit()):
                out.append(Token("NUMBER", self._number(), line, col))
            elif c.isalpha() or c == "_":
                start = self.pos
                while not self.at_end() and (self.peek().isalnum() or self.peek() == "_"):
                    self.advance()
                word = self.sql[start:self.pos]
                kind = "KEYWORD" if word.upper() in KEYWORDS else "IDENT"
                out.append(Token(kind, word, line, col))
            elif c + nxt in TWO_CHAR_OPS:
                self.advance()
                self.advance()
                out.append(Token("OP", c + nxt, line, col))
            elif c in PUNCT:
                self.advance()
                out.append(Token("OP", c, line, col))
            else:
                raise LexError(f"unexpected character {c!r} at line {line} col {col}")
        return out


def normalise(tokens):
    out = []
    for tok in tokens:
        if tok.kind == "COMMENT":
            continue
        if tok.kind == "KEYWORD":
            out.append(tok.text.upper())
        elif tok.kind in ("IDENT", "QIDENT"):
            out.append(tok.text.lower())
        elif tok.kind == "STRING":
            out.append("<STR>")
        elif tok.kind == "NUMBER":
            out.append("<NUM>")
        else:
            out.append(tok.text)
    return out


def tokenize(sql):
    return normalise(Lexer(sql).tokens())
