"""A reproducible stand-in for a folk-tune collection (thesession.org style ABC).

Every tune gets a header (X/T/M/L/K) and a body of bars whose rhythm follows its type.
The tune type itself (the R: field) is the label and is not written into the text.
"""
import random

TUNE_TYPES = {
    # name: (meter, eighth-note units per bar, duration menu)
    "reel": ("4/4", 8, ["", "", "", "", "2", "(3"]),
    "hornpipe": ("4/4", 8, [">", "<", "", "2", ">"]),
    "jig": ("6/8", 6, ["", "", "2", "3"]),
    "slip jig": ("9/8", 9, ["", "", "2", "3"]),
    "polka": ("2/4", 4, ["", "", "2", "/"]),
    "waltz": ("3/4", 6, ["2", "2", "4", "", "3"]),
}
KEYS = ["G", "D", "A", "Em", "Bm", "Ador", "Edor", "Amix", "Dmix", "C", "F"]
CHORDS = ["G", "D", "A", "Em", "Bm", "C", "Am", "D7", "F#m", "E7"]
LONG_DECORATIONS = ["!trill!", "!roll!", "!accent!", "!fermata!"]
UNITS = {"": 1, "2": 2, "3": 3, "4": 4, "/": 0.5, ">": 1, "<": 1, "(3": 1}
WORDS = ["The", "Maid", "of", "Mount", "Kisco", "Boys", "Ballymote", "Lark", "Morning",
         "Humours", "Glen", "Old", "Pigeon", "Road", "Lisdoonvarna", "Foxhunter", "Rambling"]


def _note(rng):
    letter = rng.choice("ABCDEFGabcdefg")
    acc = rng.choices(["", "^", "_", "="], weights=[20, 2, 1, 1])[0]
    octave = ""
    if letter.islower() and rng.random() < 0.08:
        octave = "'"
    elif letter.isupper() and rng.random() < 0.08:
        octave = ","
    return acc + letter + octave


def _bar(rng, units, menu):
    out, filled = [], 0
    while filled < units:
        dur = rng.choice(menu)
        piece = ""
        if rng.random() < 0.06:
            piece += rng.choice(["~", ".", rng.choice(LONG_DECORATIONS)])
        if dur == "(3":
            piece += "(3" + _note(rng) + _note(rng) + _note(rng)
        elif dur in (">", "<"):
            piece += _note(rng) + dur + _note(rng)
            filled += 1
        elif rng.random() < 0.04:
            piece += "{" + rng.choice("gafe") + "}" + _note(rng) + dur
        else:
            piece += (_note(rng) if rng.random() > 0.03 else "z") + dur
        if rng.random() < 0.03:
            piece += "-"
        out.append(piece)
        filled += UNITS[dur]
    if rng.random() < 0.35:
        out[0] = '"' + rng.choice(CHORDS) + '"' + out[0]
    # beams: group notes, break with spaces now and then
    text = ""
    for i, piece in enumerate(out):
        text += piece
        if i < len(out) - 1 and rng.random() < 0.3:
            text += " "
    return text


def make_tune(rng, number, min_bars, max_bars):
    kind = rng.choice(sorted(TUNE_TYPES))
    meter, units, menu = TUNE_TYPES[kind]
    title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 4)))
    header = [f"X: {number}", f"T: {title}", f"M: {meter}", "L: 1/8", f"K: {rng.choice(KEYS)}"]
    n_bars = rng.randint(min_bars, max_bars) // 4 * 4
    lines, bars = [], []
    for b in range(n_bars):
        bars.append(_bar(rng, units, menu))
        if len(bars) == 4:
            start = "|:" if b // 4 % 2 == 0 else "|"
            end = ":|" if b // 4 % 2 == 1 else "|"
            if rng.random() < 0.2:
                bars[-1] = "[1 " + bars[-1]
            lines.append(start + " | ".join(bars) + " " + end)
            bars = []
    return kind, "\n".join(header + lines) + "\n"


def build_corpus(seed, n_tunes, min_bars, max_bars):
    rng = random.Random(seed)
    kinds, texts = [], []
    for i in range(n_tunes):
        kind, text = make_tune(rng, i + 1, min_bars, max_bars)
        kinds.append(kind)
        texts.append(text)
    return kinds, texts
