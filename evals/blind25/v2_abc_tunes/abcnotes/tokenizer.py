"""A small ABC-notation tokenizer.

Notes are split into a pitch token (accidental + letter + octave marks) and a duration
token; bar lines, repeats, endings, chord symbols, decorations, tuplets, grace braces,
ties and broken rhythms get their own tokens.  Header fields M:, L: and K: become one
token each; X: and T: are dropped.
"""
import re
from fractions import Fraction

PAD, UNK, BOS, EOS = "<pad>", "<unk>", "<s>", "</s>"

# order matters: the first pattern that matches at the current position wins
TOKEN_SPEC = [
    ("DECORATION", r"![A-Za-z]+!"),
    ("CHORD", r'"[^"\n]*"'),
    ("BAR", r"\|\]|\|\||\|:|:\||::|\[[12]|\|"),
    ("TUPLET", r"\([2-9]"),
    ("SLUR", r"[()]"),
    ("GRACE", r"[{}]"),
    ("SHORT_DECO", r"[~.HLMOPSTuv]"),
    ("NOTE", r"(?:\^\^|__|\^|_|=)?[A-Ga-gz][,']*"),
    ("DURATION", r"\d*/+\d*|\d+"),
    ("BROKEN", r"[<>]+"),
    ("TIE", r"-"),
    ("SPACE", r"\s+"),
]

ACCIDENTALS = ["", "^", "_", "=", "^^", "__"]
OCTAVES = ["", ",", ",,", "'", "''"]
CHORD_ROOTS = ["A", "B", "C", "D", "E", "F", "G", "A#", "C#", "D#", "F#", "G#", "Ab", "Bb", "Db", "Eb", "Gb"]
CHORD_KINDS = ["", "m", "7", "m7", "maj7", "dim", "sus4", "6"]
METERS = ["2/4", "3/4", "4/4", "6/8", "9/8", "12/8", "C", "C|"]
LENGTHS = ["1/4", "1/8", "1/16"]
MODES = ["", "m", "maj", "min", "dor", "mix", "lyd", "phr", "loc"]


def _durations():
    out = []
    for num in range(1, 17):
        for den in (1, 2, 4, 8, 16):
            out.append(str(Fraction(num, den)))
    return sorted(set(out), key=lambda s: Fraction(s))


def build_vocab():
    vocab = [PAD, UNK, BOS, EOS]
    vocab += [f"M:{m}" for m in METERS] + [f"L:{l}" for l in LENGTHS]
    vocab += [f"K:{r}{m}" for r in CHORD_ROOTS for m in MODES]
    vocab += ["|", "||", "|:", ":|", "::", "|]", "[1", "[2"]
    vocab += [f"({n}" for n in range(2, 10)] + ["(", ")", "{", "}", "-", ">", "<", ">>", "<<"]
    vocab += list("~.HLMOPSTuv") + ["!trill!", "!roll!", "!accent!", "!fermata!", "!turn!", "!mordent!"]
    vocab += [f'chord:{r}{k}' for r in CHORD_ROOTS for k in CHORD_KINDS]
    vocab += [f'chord:{r}{k}/{b}' for r in CHORD_ROOTS for k in CHORD_KINDS for b in "ABCDEFG" if b != r[0]]
    vocab += [a + l + o for a in ACCIDENTALS for l in "CDEFGABcdefgab" for o in OCTAVES] + ["z"]
    vocab += [f"dur:{d}" for d in _durations()]
    return vocab


class ABCTokenizer:
    def __init__(self, max_length=256):
        self.max_length = max_length
        self.vocab = build_vocab()
        self.pad_token_id = self.vocab.index(PAD)
        self.unk_token_id = self.vocab.index(UNK)
        self._patterns = [(kind, re.compile(rx)) for kind, rx in TOKEN_SPEC]

    def __len__(self):
        return len(self.vocab)

    # -- header ---------------------------------------------------------------------
    def _header_token(self, line):
        field, _, value = line.partition(":")
        value = value.strip().replace(" ", "")
        if field in ("M", "L", "K"):
            return f"{field}:{value}"
        return None

    # -- body -----------------------------------------------------------------------
    @staticmethod
    def _duration(text):
        # "2" -> 2, "/" -> 1/2, "//" -> 1/4, "3/" -> 3/2, "3/4" -> 3/4
        num, slashes, den = re.match(r"(\d*)(/*)(\d*)", text).groups()
        value = Fraction(int(num) if num else 1)
        if slashes:
            value /= int(den) if den else 2 ** len(slashes)
        return f"dur:{value}"

    def tokenize_body(self, body):
        tokens = []
        pos = 0
        while pos < len(body):
            for kind, pattern in self._patterns:
                match = pattern.match(body, pos)
                if match:
                    break
            else:
                pos += 1          # character we do not model (e.g. stray punctuation)
                continue
            text = match.group(0)
            pos = match.end()
            if kind == "SPACE":
                continue
            if kind == "CHORD":
                tokens.append("chord:" + text[1:-1])
            elif kind == "DURATION":
                tokens.append(self._duration(text))
            else:
                tokens.append(text)
        return tokens

    def tokenize(self, tune):
        tokens = [BOS]
        body_lines = []
        for line in tune.splitlines():
            if len(line) > 1 and line[1] == ":" and line[0].isalpha() and not body_lines:
                tok = self._header_token(line)
                if tok is not None:
                    tokens.append(tok)
            else:
                body_lines.append(line)
        tokens += self.tokenize_body("\n".join(body_lines))
        tokens.append(EOS)
        return tokens

    def convert_tokens_to_ids(self, tokens):
        ids = []
        for tok in tokens:
            ids.append(self.vocab.index(tok) if tok in self.vocab else self.unk_token_id)
        return ids

    def __call__(self, tune, truncation=True):
        ids = self.convert_tokens_to_ids(self.tokenize(tune))
        if truncation and len(ids) > self.max_length:
            ids = ids[: self.max_length]
        return {"input_ids": ids, "attention_mask": [1] * len(ids)}
