"""Corpus-level BLEU-4 (Papineni et al.): clipped n-gram precisions, brevity penalty."""
import math

from .ngrams import ngram_counts


def corpus_bleu(hypotheses, references, n_max=4, eps=1e-9):
    """hypotheses: list of token lists; references: list of lists of token lists."""
    matches = [0] * n_max
    totals = [0] * n_max
    hyp_len = ref_len = 0
    for hyp, refs in zip(hypotheses, references):
        hyp_len += len(hyp)
        # closest reference length, ties to the shorter one
        ref_len += min((abs(len(r) - len(hyp)), len(r)) for r in refs)[1]
        hyp_counts = ngram_counts(hyp, n_max)
        max_ref = {}
        for r in refs:
            for ng, c in ngram_counts(r, n_max).items():
                if c > max_ref.get(ng, 0):
                    max_ref[ng] = c
        for ng, c in hyp_counts.items():
            n = len(ng) - 1
            totals[n] += c
            matches[n] += min(c, max_ref.get(ng, 0))
    if hyp_len == 0:
        return 0.0
    log_p = sum(math.log(max(m, eps) / max(t, eps)) for m, t in zip(matches, totals)) / n_max
    bp = 1.0 if hyp_len > ref_len else math.exp(1.0 - ref_len / hyp_len)
    return bp * math.exp(log_p)
