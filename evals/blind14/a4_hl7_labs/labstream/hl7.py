"""A small HL7 v2 parser: segments, fields, repetitions, components and escape sequences."""
import re

ESCAPES = {"F": "|", "S": "^", "T": "&", "R": "~", "E": "\\", ".br": "\n"}


def unescape(text, esc="\\"):
    """Decode HL7 escape sequences (\\F\\ \\S\\ \\T\\ \\R\\ \\E\\ \\.br\\ \\Xhh..\\) after splitting."""
    if esc not in text:
        return text
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == esc:
            j = text.find(esc, i + 1)
            if j < 0:
                out.append(text[i:])
                break
            seq = text[i + 1:j]
            if seq in ESCAPES:
                out.append(ESCAPES[seq])
            elif seq.startswith("X") and len(seq) % 2 == 1:
                out.append(bytes.fromhex(seq[1:]).decode("latin-1"))
            else:
                out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


class Segment:
    def __init__(self, name, fields):
        self.name = name
        self.fields = fields  # fields[i] -> list of repetitions -> list of components

    def get(self, idx, comp=0, rep=0, default=""):
        try:
            return self.fields[idx][rep][comp]
        except IndexError:
            return default


def parse_message(raw):
    """Split a message on \\r into segments; MSH-1/MSH-2 give the delimiters."""
    if not raw.startswith("MSH"):
        raise ValueError("not an HL7 message")
    field_sep = raw[3]
    comp_sep, rep_sep, esc, sub_sep = raw[4], raw[5], raw[6], raw[7]
    segments = []
    for line in re.split(r"\r\n|\r|\n", raw):
        if not line:
            continue
        parts = line.split(field_sep)
        name = parts[0]
        if name == "MSH":
            parts = [name, field_sep] + parts[1:]
        fields = [[[name]]]
        for k, value in enumerate(parts[1:], 1):
            if name == "MSH" and k <= 2:
                fields.append([[value]])
                continue
            reps = []
            for rep in value.split(rep_sep):
                reps.append([unescape(c.split(sub_sep)[0], esc) for c in rep.split(comp_sep)])
            fields.append(reps)
        segments.append(Segment(name, fields))
    return segments


NUMBER = re.compile(r"^\s*([<>]=?)?\s*(-?\d+(?:\.\d+)?)\s*$")
RANGE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)?\s*(?:-|to)\s*(-?\d+(?:\.\d+)?)?\s*$|^\s*([<>]=?)\s*(-?\d+(?:\.\d+)?)\s*$")


def parse_value(text):
    m = NUMBER.match(text)
    if not m:
        return None, None
    return float(m.group(2)), m.group(1) or ""


def parse_range(text):
    """'70-99' -> (70, 99); '<5' -> (None, 5); '>60' -> (60, None); '' -> (None, None)."""
    m = RANGE.match(text) if text else None
    if not m:
        return None, None
    if m.group(3):
        v = float(m.group(4))
        return (None, v) if m.group(3).startswith("<") else (v, None)
    lo = float(m.group(1)) if m.group(1) else None
    hi = float(m.group(2)) if m.group(2) else None
    return lo, hi
