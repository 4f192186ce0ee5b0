"""CIDEr-D (Vedantam et al.): tf-idf weighted n-gram cosine similarity with a length penalty."""
import math
from collections import defaultdict

from .ngrams import ngram_counts


def compute_doc_freq(corpus_refs, n_max=4):
    """Number of images whose reference set contains each n-gram."""
    df = defaultdict(float)
    for refs in corpus_refs:
        seen = set()
        for ref in refs:
            seen.update(ngram_counts(ref, n_max))
        for ng in seen:
            df[ng] += 1
    return df


class CiderD:
    def __init__(self, corpus_refs, n_max=4, sigma=6.0):
        # idf statistics come from the whole training reference corpus, not just the batch
        self.corpus_refs = corpus_refs
        self.n_max = n_max
        self.sigma = sigma

    def _vec(self, counts, df, log_n):
        vec = [defaultdict(float) for _ in range(self.n_max)]
        norm = [0.0] * self.n_max
        length = 0
        for ng, tf in counts.items():
            n = len(ng) - 1
            idf = max(0.0, log_n - math.log(max(1.0, df.get(ng, 0.0))))
            vec[n][ng] = float(tf) * idf
            norm[n] += vec[n][ng] ** 2
            if n == 1:
                length += tf
        return vec, [math.sqrt(x) for x in norm], length

    def _sim(self, vh, vr, nh, nr, lh, lr):
        delta = float(lh - lr)
        val = [0.0] * self.n_max
        for n in range(self.n_max):
            for ng, w in vh[n].items():
                val[n] += min(w, vr[n].get(ng, 0.0)) * vr[n].get(ng, 0.0)
            if nh[n] != 0 and nr[n] != 0:
                val[n] /= nh[n] * nr[n]
            val[n] *= math.e ** (-(delta ** 2) / (2 * self.sigma ** 2))
        return val

    def compute_score(self, hypotheses, references):
        df = compute_doc_freq(self.corpus_refs, self.n_max)
        log_n = math.log(float(len(self.corpus_refs)))
        scores = []
        for hyp, refs in zip(hypotheses, references):
            vh, nh, lh = self._vec(ngram_counts(hyp, self.n_max), df, log_n)
            total = [0.0] * self.n_max
            for ref in refs:
                vr, nr, lr = self._vec(ngram_counts(ref, self.n_max), df, log_n)
                for n, s in enumerate(self._sim(vh, vr, nh, nr, lh, lr)):
                    total[n] += s
            score = sum(total) / self.n_max / len(refs) * 10.0
            scores.append(score)
        return sum(scores) / max(len(scores), 1), scores
