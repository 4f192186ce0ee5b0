"""Ranking metrics as in many LTR training scripts: computed on every training batch for the logs."""
import math


def dcg(rels_in_order, k=None):
    total = 0.0
    for pos, r in enumerate(rels_in_order[:k] if k else rels_in_order):
        total += (2 ** r - 1) / math.log2(pos + 2)
    return total


def ndcg_at(scores, rels, k=None):
    order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)
    ideal = dcg(sorted(rels, reverse=True), k)
    if ideal == 0:
        return 0.0
    return dcg([rels[i] for i in order], k) / ideal


def reciprocal_rank(scores, rels, threshold=3):
    order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)
    for pos, i in enumerate(order):
        if rels[i] >= threshold:
            return 1.0 / (pos + 1)
    return 0.0


def batch_metrics(score_rows, rel_rows, cutoffs=(1, 5, 10, 20, None)):
    out = {}
    for k in cutoffs:
        vals = [ndcg_at(s, r, k) for s, r in zip(score_rows, rel_rows)]
        out[f"ndcg@{k or 'all'}"] = sum(vals) / len(vals)
    rr = [reciprocal_rank(s, r) for s, r in zip(score_rows, rel_rows)]
    out["mrr"] = sum(rr) / len(rr)
    return out
