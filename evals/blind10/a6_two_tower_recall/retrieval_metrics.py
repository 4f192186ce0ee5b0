"""In-batch retrieval metrics over a similarity matrix: recall@k, MRR, mAP and nDCG@10, both ways.

Column j is relevant to row i when example j's item is example i's item (popular items repeat
within a batch, so a row can have several relevant columns). Ties are ranked by column index."""
import math


def rank_row(row, relevant, ks):
    """Metrics of one ranked row; `relevant` is the set of relevant column indices."""
    ranking = sorted(range(len(row)), key=row.__getitem__, reverse=True)
    n_rel = len(relevant)
    kmax = max(max(ks), 10)
    hits, ap, rr, dcg = 0, 0.0, 0.0, 0.0
    recall = {}
    for rank, j in enumerate(ranking, start=1):
        if j in relevant:
            hits += 1
            ap += hits / rank
            if rr == 0.0:
                rr = 1.0 / rank
            if rank <= 10:
                dcg += 1.0 / math.log2(rank + 1)
        if rank in ks:
            recall[rank] = hits / n_rel
        if hits == n_rel and rank >= kmax:
            break
    idcg = 0.0
    for rank in range(1, min(n_rel, 10) + 1):
        idcg += 1.0 / math.log2(rank + 1)
    out = {f"recall@{k}": recall[k] for k in ks}
    out.update({"mrr": rr, "map": ap / n_rel, "ndcg@10": dcg / idcg})
    return out


def retrieval_metrics(sim, item_ids, ks=(1, 5, 10)):
    """Mean metrics over rows (query -> item) and over columns (item -> query)."""
    scores = sim.detach().tolist()
    ids = item_ids.tolist()
    groups = {}
    for j, t in enumerate(ids):
        groups.setdefault(t, set()).add(j)
    totals = {}
    for direction, rows in (("q2i", scores), ("i2q", [list(col) for col in zip(*scores)])):
        for i, row in enumerate(rows):
            for name, value in rank_row(row, groups[ids[i]], ks).items():
                key = f"{direction}/{name}"
                totals[key] = totals.get(key, 0.0) + value
    return {key: total / len(ids) for key, total in totals.items()}


class MetricLogger:
    """Keeps every step's metrics and the running mean per epoch."""

    def __init__(self, ks):
        self.ks = ks
        self.history = []
        self.sums, self.count = {}, 0

    def update(self, sim, item_ids):
        metrics = retrieval_metrics(sim, item_ids, self.ks)
        self.history.append(metrics)
        for key, value in metrics.items():
            self.sums[key] = self.sums.get(key, 0.0) + value
        self.count += 1
        return metrics

    def epoch_means(self):
        return {key: total / self.count for key, total in self.sums.items()}
