"""NPMI topic coherence against a reference corpus (document co-occurrence)."""
import math


def npmi(top_words, ref_docs):
    """Mean NPMI over all word pairs of each topic; returns (mean over topics, per-topic list)."""
    n = len(ref_docs)
    per_topic = []
    for words in top_words:
        df = {w: sum(1 for d in ref_docs if w in d) for w in words}
        total, pairs = 0.0, 0
        for i in range(len(words)):
            for j in range(i + 1, len(words)):
                wi, wj = words[i], words[j]
                dij = sum(1 for d in ref_docs if wi in d and wj in d)
                if dij == 0:
                    score = -1.0
                elif dij == n:
                    score = 1.0
                else:
                    p_ij = dij / n
                    score = math.log(p_ij / ((df[wi] / n) * (df[wj] / n))) / -math.log(p_ij)
                total += score
                pairs += 1
        per_topic.append(total / pairs)
    return sum(per_topic) / len(per_topic), per_topic


class CoherenceMonitor:
    """Tracks NPMI of the current topics every `every` steps."""

    def __init__(self, ref_docs, top_n, every):
        self.ref_docs = [set(d) for d in ref_docs]
        self.top_n = top_n
        self.every = every
        self.history = []
        self.best = None

    def __call__(self, step, model):
        if step % self.every:
            return None
        top = model.topic_word().topk(self.top_n, dim=1).indices.tolist()
        score, per_topic = npmi(top, self.ref_docs)
        self.history.append(score)
        if self.best is None or score > self.best[1]:
            self.best = (step, score, per_topic)
        return score
