"""Ranking metrics for CTR models, computed over a rolling window of recent batches."""
from collections import deque


def auc_score(scores, labels):
    """Mann-Whitney AUC with tied scores given their average rank; None if one class is absent."""
    n = len(scores)
    order = sorted(range(n), key=scores.__getitem__)
    ranks = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        avg = (i + j) / 2.0 + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = avg
        i = j + 1
    n_pos = sum(1 for y in labels if y > 0.5)
    n_neg = n - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    r_pos = sum(r for r, y in zip(ranks, labels) if y > 0.5)
    return (r_pos - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)


def group_auc(scores, labels, groups):
    """Impression-weighted mean of per-user AUC (users with both classes only), as in DIN."""
    per_user = {}
    for s, y, g in zip(scores, labels, groups):
        bucket = per_user.setdefault(g, ([], []))
        bucket[0].append(s)
        bucket[1].append(y)
    weighted, weight = 0.0, 0
    for user_scores, user_labels in per_user.values():
        auc = auc_score(user_scores, user_labels)
        if auc is not None:
            weighted += len(user_scores) * auc
            weight += len(user_scores)
    return weighted / weight if weight else None


class RollingRankingMetrics:
    def __init__(self, window):
        self.scores = deque(maxlen=window)
        self.labels = deque(maxlen=window)
        self.users = deque(maxlen=window)

    def update(self, probs, labels, users):
        self.scores.append(probs.tolist())
        self.labels.append(labels.tolist())
        self.users.append(users.tolist())

    def compute(self):
        scores = [s for batch in self.scores for s in batch]
        labels = [y for batch in self.labels for y in batch]
        users = [u for batch in self.users for u in batch]
        return {"auc": auc_score(scores, labels), "gauc": group_auc(scores, labels, users)}
