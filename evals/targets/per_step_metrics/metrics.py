"""Per-step classification metrics for the training dashboard."""


def topk_accuracy(logits, labels, k=5):
    """Fraction of rows whose label is the argmax (top-1) and among the k largest logits (top-k)."""
    n = labels.shape[0]
    top1 = topk = 0
    for i in range(n):
        label = labels[i].item()
        if logits[i].argmax().item() == label:
            top1 += 1
        if label in logits[i].topk(k).indices.tolist():
            topk += 1
    return top1 / n, topk / n
