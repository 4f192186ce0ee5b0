"""Ranking metrics for playlist continuation, logged every training step."""
import math


def ranking_metrics(scores, targets, seeds, ndcg_k=10, recall_k=50):
    """NDCG@k and Recall@k of the held-out track, with the playlist's seed tracks excluded.

    scores: (B, n_tracks) float tensor; targets: (B,) track index; seeds: (B, S) track ids
    (index + 1, 0 = padding). Ties rank by track index (stable sort).
    """
    ndcg = 0.0
    recall = 0.0
    rows = scores.detach().tolist()
    for row, target, seen in zip(rows, targets.tolist(), seeds.tolist()):
        for track in seen:
            if track > 0:
                row[track - 1] = float("-inf")
        ranked = sorted(range(len(row)), key=lambda j: row[j], reverse=True)
        rank = ranked.index(target)
        if rank < ndcg_k:
            ndcg += 1.0 / math.log2(rank + 2)
        if rank < recall_k:
            recall += 1.0
    n = len(rows)
    return ndcg / n, recall / n
