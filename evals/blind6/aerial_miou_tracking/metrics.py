"""Running segmentation metrics: confusion matrix, per-class IoU, mIoU, fwIoU, pixel accuracy."""


class SegMetrics:
    def __init__(self, num_classes, ignore_index=255):
        self.num_classes = num_classes
        self.ignore_index = ignore_index
        self.reset()

    def reset(self):
        self.confusion = [[0] * self.num_classes for _ in range(self.num_classes)]

    def update(self, pred, target):
        """pred, target: integer label tensors of the same shape."""
        preds = pred.reshape(-1).tolist()
        targets = target.reshape(-1).tolist()
        batch_conf = [[0] * self.num_classes for _ in range(self.num_classes)]
        for p, t in zip(preds, targets):
            if t == self.ignore_index:
                continue
            batch_conf[t][p] += 1
        for i in range(self.num_classes):
            for j in range(self.num_classes):
                self.confusion[i][j] += batch_conf[i][j]
        stats = self.summary(batch_conf)
        # mIoU per image, averaged over the batch (the "per-image" protocol)
        per_image = []
        hw = len(preds) // pred.shape[0]
        for b in range(pred.shape[0]):
            conf = [[0] * self.num_classes for _ in range(self.num_classes)]
            for p, t in zip(preds[b * hw:(b + 1) * hw], targets[b * hw:(b + 1) * hw]):
                if t == self.ignore_index:
                    continue
                conf[t][p] += 1
            per_image.append(self.summary(conf)["mIoU"])
        stats["img_mIoU"] = sum(per_image) / len(per_image)
        labelled = sum(1 for t in targets if t != self.ignore_index)
        hits = sum(1 for p, t in zip(preds, targets) if p == t and t != self.ignore_index)
        stats["acc"] = hits / labelled if labelled else 0.0
        return stats

    def summary(self, conf=None):
        conf = self.confusion if conf is None else conf
        n = self.num_classes
        total = sum(sum(row) for row in conf)
        correct = sum(conf[i][i] for i in range(n))
        ious, freqs = [], []
        for c in range(n):
            gt = sum(conf[c])
            pr = sum(conf[r][c] for r in range(n))
            union = gt + pr - conf[c][c]
            ious.append(conf[c][c] / union if union else float("nan"))
            freqs.append(gt / total if total else 0.0)
        valid = [v for v in ious if v == v]
        miou = sum(valid) / len(valid) if valid else 0.0
        fwiou = sum(f * v for f, v in zip(freqs, ious) if v == v)
        return {"aAcc": correct / total if total else 0.0, "mIoU": miou, "fwIoU": fwiou, "IoU": ious}
