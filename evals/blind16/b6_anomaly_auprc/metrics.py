"""Ranking metrics for imbalanced detection: average precision (area under the PR curve) and best F1."""


def average_precision(scores, labels):
    """Step-wise AP over the ranking by descending score (ties keep arrival order)."""
    ranked = sorted(zip(scores, labels), key=lambda p: -p[0])
    total_pos = sum(labels)
    if total_pos == 0:
        return 0.0
    tp = fp = 0
    ap, prev_recall = 0.0, 0.0
    for _, y in ranked:
        if y:
            tp += 1
        else:
            fp += 1
        precision = tp / (tp + fp)
        recall = tp / total_pos
        ap += (recall - prev_recall) * precision
        prev_recall = recall
    return ap


def best_f1_threshold(scores, labels, n_thresholds):
    """Sweep thresholds i / n on the scores; the first threshold reaching the best F1 wins."""
    pos = sum(labels)
    best_f1, best_t = 0.0, 1.0
    for i in range(1, n_thresholds):
        t = i / n_thresholds
        predicted = sum(1 for s in scores if s >= t)
        tp = sum(1 for s, y in zip(scores, labels) if y and s >= t)
        f1 = 2 * tp / (predicted + pos) if predicted + pos else 0.0
        if f1 > best_f1:
            best_f1, best_t = f1, t
    return best_f1, best_t
