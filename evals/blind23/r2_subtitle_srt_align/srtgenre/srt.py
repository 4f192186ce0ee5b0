"""SRT parsing, cue merging, text cleanup and speaking-rate features."""
import math
import re
from dataclasses import dataclass

TIMING = re.compile(r"(\d{2}):(\d{2}):(\d{2})[,.](\d{3})\s*-->\s*(\d{2}):(\d{2}):(\d{2})[,.](\d{3})")
BLOCK_SEP = re.compile(r"\n\s*\n")
SENTENCE_END = (".", "?", "!", "\u266a")


@dataclass
class Cue:
    start: int  # ms
    end: int
    text: str
    italic: bool = False
    dialogue: bool = False


def _ms(h, m, s, ms):
    return ((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int(ms)


def parse_srt(text):
    cues = []
    for block in BLOCK_SEP.split(text.strip()):
        lines = [l.strip() for l in block.splitlines()]
        if len(lines) < 3:
            continue
        m = TIMING.match(lines[1])
        if m is None:
            continue
        body = lines[2:]
        cues.append(Cue(_ms(*m.groups()[:4]), _ms(*m.groups()[4:]), " ".join(body),
                        italic=any("<i>" in l for l in body),
                        dialogue=any(l.startswith("-") for l in body)))
    return cues


def merge_cues(cues, max_gap_ms):
    """Merge a cue into the previous one when the sentence continues across a short gap."""
    merged = []
    for cue in cues:
        if merged and cue.start - merged[-1].end <= max_gap_ms and not merged[-1].text.rstrip("</i> ").endswith(SENTENCE_END):
            prev = merged[-1]
            merged[-1] = Cue(prev.start, cue.end, prev.text + " " + cue.text,
                             prev.italic or cue.italic, prev.dialogue or cue.dialogue)
        else:
            merged.append(cue)
    return merged


def clean_text(text, lowercase=True):
    """Strip markup (<i>, [SDH], music notes), keep letters, digits and apostrophes."""
    out = []
    in_tag = in_sdh = False
    for ch in text:
        if in_tag:
            in_tag = ch != ">"
            continue
        if in_sdh:
            in_sdh = ch != "]"
            continue
        if ch == "<":
            in_tag = True
        elif ch == "[":
            in_sdh = True
        elif ch.isalnum() or ch == "'":
            out.append(ch.lower() if lowercase else ch)
        else:
            out.append(" ")
    return " ".join("".join(out).split())


def speaking_rate_features(cues, cleaned):
    """Eight document-level features: counts, chars/s statistics, gaps, markup ratios."""
    rates = []
    for cue, text in zip(cues, cleaned):
        dur = max(cue.end - cue.start, 1) / 1000.0
        rates.append(len(text) / dur)
    n = len(rates)
    mean = sum(rates) / n
    std = math.sqrt(sum((r - mean) ** 2 for r in rates) / n)
    gaps = [max(b.start - a.end, 0) / 1000.0 for a, b in zip(cues, cues[1:])]
    mean_gap = sum(gaps) / len(gaps) if gaps else 0.0
    span_min = (cues[-1].end - cues[0].start) / 60000.0
    return [
        math.log1p(n),
        mean / 20.0,
        std / 10.0,
        max(rates) / 40.0,
        mean_gap,
        sum(c.italic for c in cues) / n,
        sum(c.dialogue for c in cues) / n,
        span_min / 10.0,
    ]
