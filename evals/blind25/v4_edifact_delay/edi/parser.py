"""A minimal UN/EDIFACT reader: service string advice (UNA), release character, segments,
data elements and components."""
from dataclasses import dataclass, field


@dataclass
class ServiceStringAdvice:
    component_sep: str = ":"
    element_sep: str = "+"
    decimal_mark: str = "."
    release: str = "?"
    reserved: str = " "
    segment_terminator: str = "'"

    @classmethod
    def from_una(cls, chars):
        return cls(*chars[:6])


@dataclass
class Segment:
    tag: str
    elements: list = field(default_factory=list)   # each element is a list of components

    def get(self, e, c=0, default=""):
        try:
            return self.elements[e][c]
        except IndexError:
            return default


class Token:
    CONTENT, COMPONENT_SEPARATOR, DATA_SEPARATOR, TERMINATOR = range(4)
    __slots__ = ("type", "value")

    def __init__(self, type_, value):
        self.type = type_
        self.value = value

    def __repr__(self):
        return f"Token({self.type}, {self.value!r})"


class Tokenizer:
    """Character-level tokenizer: control characters become their own tokens, everything
    between them (with released characters unescaped) becomes a CONTENT token."""

    def __init__(self, una):
        self.una = una
        self._message = ""
        self._pos = -1
        self._cur = None
        self.is_escaped = False

    def get_tokens(self, message):
        self._message = message
        self._pos = -1
        tokens = []
        self.read_next_char()
        while self._cur is not None:
            if self.is_control_character():
                tokens.append(Token(self.get_control_type(), self._cur))
                self.read_next_char()
            else:
                tokens.append(Token(Token.CONTENT, self.extract_stored_chars()))
        return tokens

    def read_next_char(self):
        self._pos += 1
        self.is_escaped = False
        if self._pos >= len(self._message):
            self._cur = None
            return
        self._cur = self._message[self._pos]
        if self._cur == self.una.release:
            self._pos += 1
            self._cur = self._message[self._pos] if self._pos < len(self._message) else None
            self.is_escaped = True

    def is_control_character(self):
        if self.is_escaped:
            return False
        return self._cur in (self.una.component_sep, self.una.element_sep, self.una.segment_terminator)

    def get_control_type(self):
        if self._cur == self.una.component_sep:
            return Token.COMPONENT_SEPARATOR
        if self._cur == self.una.element_sep:
            return Token.DATA_SEPARATOR
        return Token.TERMINATOR

    def extract_stored_chars(self):
        chars = ""
        while self._cur is not None and not self.is_control_character():
            if self.is_escaped or self._cur not in "\r\n":
                chars += self._cur
            self.read_next_char()
        return chars


class EdifactReader:
    def __init__(self, text):
        self.una = ServiceStringAdvice()
        if text.startswith("UNA"):
            self.una = ServiceStringAdvice.from_una(text[3:9])
            text = text[9:]
        self.text = text

    def segments(self):
        segments = []
        elements, components, content = [], [], ""
        for token in Tokenizer(self.una).get_tokens(self.text):
            if token.type == Token.CONTENT:
                content = token.value
            elif token.type == Token.COMPONENT_SEPARATOR:
                components.append(content)
                content = ""
            elif token.type == Token.DATA_SEPARATOR:
                components.append(content)
                elements.append(components)
                components, content = [], ""
            else:
                components.append(content)
                elements.append(components)
                segments.append(Segment(tag=elements[0][0], elements=elements[1:]))
                elements, components, content = [], [], ""
        return segments

    def number(self, text):
        return float(text.replace(self.una.decimal_mark, "."))
