"""Audio-tagging metrics: label-weighted label-ranking average precision (lwlrap, as in the
DCASE / Freesound Audio Tagging challenges) and per-class precision at a threshold."""


def lwlrap(scores, truth):
    """scores, truth: (N, C) tensors. Returns (lwlrap, per-class lrap list, per-class label counts).

    For every positive label (i, j): precision = #positives of clip i ranked at or above j
    divided by the rank of j (ties count as ranked above). Averaged per class, then weighted
    by each class's share of the positive labels.
    """
    n, c = scores.shape
    hits_sum = [0.0] * c
    counts = [0] * c
    for i in range(n):
        positives = [j for j in range(c) if truth[i, j] > 0]
        for j in positives:
            s = scores[i, j]
            rank = sum(1 for k in range(c) if scores[i, k] >= s)
            hits = sum(1 for k in positives if scores[i, k] >= s)
            hits_sum[j] += hits / rank
            counts[j] += 1
    total = sum(counts)
    per_class = [hits_sum[j] / counts[j] if counts[j] else 0.0 for j in range(c)]
    score = 0.0
    for j in range(c):
        if counts[j]:
            score += per_class[j] * (counts[j] / total)
    return score, per_class, counts


def precision_at_threshold(probs, truth, threshold=0.5):
    n, c = probs.shape
    out = []
    for j in range(c):
        tp = fp = 0
        for i in range(n):
            if probs[i, j] >= threshold:
                if truth[i, j] > 0:
                    tp += 1
                else:
                    fp += 1
        out.append(tp / (tp + fp) if tp + fp else 0.0)
    return out
