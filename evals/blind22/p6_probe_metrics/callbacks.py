"""Lightning-style callbacks: per-step classification metrics for the probe's training log."""
import heapq


class Callback:
    def on_train_batch_end(self, trainer, outputs, batch, batch_idx):
        pass

    def state_dict(self):
        return {}


class ClassificationMetrics(Callback):
    """Logs top-1 / top-5 accuracy, mean rank of the true class, superclass accuracy and the
    per-class recall of every training batch."""

    def __init__(self, num_classes, coarse_of, topk=(1, 5)):
        self.num_classes = num_classes
        self.coarse_of = coarse_of
        self.k = max(topk)
        self.history = []
        self.recall_sums = [0.0] * num_classes
        self.recall_counts = [0] * num_classes

    def batch_metrics(self, logits, targets):
        n = len(targets)
        top1 = topk = super_hits = rank_sum = 0
        hits = [0] * self.num_classes
        totals = [0] * self.num_classes
        for i in range(n):
            row = logits[i].tolist()
            t = int(targets[i])
            best = heapq.nlargest(self.k, range(self.num_classes), key=row.__getitem__)
            pred = best[0]
            top1 += pred == t
            topk += t in best
            super_hits += self.coarse_of[pred] == self.coarse_of[t]
            rank_sum += 1 + sum(1 for v in row if v > row[t])
            totals[t] += 1
            hits[t] += pred == t
        recall = {c: hits[c] / totals[c] for c in range(self.num_classes) if totals[c]}
        return {
            "top1": top1 / n,
            "top5": topk / n,
            "superclass_acc": super_hits / n,
            "mean_rank": rank_sum / n,
            "mean_recall": sum(recall.values()) / len(recall),
            "recall": recall,
        }

    def on_train_batch_end(self, trainer, outputs, batch, batch_idx):
        m = self.batch_metrics(outputs["logits"].detach(), batch["label"])
        for c, r in m.pop("recall").items():
            self.recall_sums[c] += r
            self.recall_counts[c] += 1
        self.history.append(m)

    def state_dict(self):
        last = self.history[-1] if self.history else {}
        keys = ("top1", "top5", "superclass_acc", "mean_rank", "mean_recall")
        mean = {k: sum(h[k] for h in self.history) / len(self.history) for k in keys} if self.history else {}
        per_class = [round(s / c, 12) if c else None for s, c in zip(self.recall_sums, self.recall_counts)]
        return {"last": last, "mean": mean, "per_class_recall": per_class}
