"""Greedy CTC decoding and error rates (Levenshtein alignments over words and characters)."""
import math
import re
from collections import Counter

from .text import BLANK


def greedy_decode(log_probs, lengths):
    """log_probs [T, B, V]: best class per frame, merge repeats, drop blanks. Also returns each
    utterance's confidence: the mean over frames of the best class's posterior probability."""
    per_utt = log_probs.detach().transpose(0, 1).tolist()
    out, confidences = [], []
    for frames, n in zip(per_utt, lengths.tolist()):
        ids, prev, total = [], None, 0.0
        for row in frames[:n]:
            probs = [math.exp(v) for v in row]
            best, best_p = 0, probs[0]
            for c in range(1, len(probs)):
                if probs[c] > best_p:  # strict: the first maximal class wins
                    best, best_p = c, probs[c]
            total += best_p
            if best != prev and best != BLANK:
                ids.append(best)
            prev = best
        out.append(ids)
        confidences.append(total / n)
    return out, confidences


def align(ref, hyp):
    """Levenshtein alignment of two sequences (jiwer-style): (hits, substitutions, deletions,
    insertions, substituted pairs). The backtrace prefers the diagonal, then deletion, then insertion."""
    n, m = len(ref), len(hyp)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(m + 1):
        d[0][j] = j
    for i in range(1, n + 1):
        r, up, row = ref[i - 1], d[i - 1], d[i]
        row[0] = i
        for j in range(1, m + 1):
            row[j] = min(up[j - 1] + (r != hyp[j - 1]), up[j] + 1, row[j - 1] + 1)
    hits = subs = dels = ins = 0
    pairs = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and d[i][j] == d[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1]):
            if ref[i - 1] == hyp[j - 1]:
                hits += 1
            else:
                subs += 1
                pairs.append((ref[i - 1], hyp[j - 1]))
            i, j = i - 1, j - 1
        elif i > 0 and d[i][j] == d[i - 1][j] + 1:
            dels += 1
            i -= 1
        else:
            ins += 1
            j -= 1
    return hits, subs, dels, ins, pairs


_PUNCT = re.compile(r"[^\w\s']")


def normalize(text):
    """Basic English normaliser for the 'normalised' rates: lower-case, drop punctuation, squeeze spaces."""
    return " ".join(_PUNCT.sub(" ", text.lower()).split())


class ErrorRate:
    """Accumulates word and character alignment counts (corpus WER/CER), raw and normalised,
    and the raw character confusions."""

    def __init__(self):
        self.ops = {key: [0, 0, 0, 0] for key in ("word", "char", "norm_word", "norm_char")}  # H, S, D, I
        self.confusions = Counter()

    def _add(self, key, counts):
        acc = self.ops[key]
        for k, v in enumerate(counts):
            acc[k] += v

    def update(self, refs, hyps):
        batch_errors = batch_words = 0
        for ref, hyp in zip(refs, hyps):
            h, s, d, i, _ = align(ref.split(), hyp.split())
            self._add("word", (h, s, d, i))
            batch_errors += s + d + i
            batch_words += h + s + d
            h, s, d, i, pairs = align(ref, hyp)
            self._add("char", (h, s, d, i))
            self.confusions.update(pairs)
            nref, nhyp = normalize(ref), normalize(hyp)
            self._add("norm_word", align(nref.split(), nhyp.split())[:4])
            self._add("norm_char", align(nref, nhyp)[:4])
        return batch_errors / max(batch_words, 1)

    @staticmethod
    def _rate(ops):
        h, s, d, i = ops
        return (s + d + i) / max(h + s + d, 1)

    def compute(self):
        out = {"wer": self._rate(self.ops["word"]), "cer": self._rate(self.ops["char"]),
               "normalized_wer": self._rate(self.ops["norm_word"]),
               "normalized_cer": self._rate(self.ops["norm_char"])}
        out.update({f"{key}_ops": list(v) for key, v in self.ops.items()})
        out["top_confusions"] = ["{}>{}:{}".format(r, h, c) for (r, h), c in self.confusions.most_common(8)]
        return out
