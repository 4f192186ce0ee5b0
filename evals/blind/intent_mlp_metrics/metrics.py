"""Running classification metrics for the progress log (epoch-to-date)."""


class EpochMetrics:
    def __init__(self, num_classes):
        self.num_classes = num_classes
        self.reset()

    def reset(self):
        self.y_true = []
        self.y_pred = []

    def update(self, targets, preds):
        self.y_true.extend(targets.tolist())
        self.y_pred.extend(preds.tolist())

    def confusion(self):
        k = self.num_classes
        cm = [[0] * k for _ in range(k)]
        for t, p in zip(self.y_true, self.y_pred):
            cm[t][p] += 1
        return cm

    def accuracy(self):
        if not self.y_true:
            return 0.0
        return sum(1 for t, p in zip(self.y_true, self.y_pred) if t == p) / len(self.y_true)

    def per_class_f1(self):
        scores = []
        for c in range(self.num_classes):
            tp = sum(1 for t, p in zip(self.y_true, self.y_pred) if t == c and p == c)
            fp = sum(1 for t, p in zip(self.y_true, self.y_pred) if t != c and p == c)
            fn = sum(1 for t, p in zip(self.y_true, self.y_pred) if t == c and p != c)
            precision = tp / (tp + fp) if tp + fp else 0.0
            recall = tp / (tp + fn) if tp + fn else 0.0
            scores.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
        return scores

    def macro_f1(self):
        f1 = self.per_class_f1()
        return sum(f1) / len(f1)
