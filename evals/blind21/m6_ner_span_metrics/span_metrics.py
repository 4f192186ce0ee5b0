"""Entity-level (span) precision / recall / F1 from BIO tag sequences, conlleval style."""
from collections import defaultdict


def bio_to_spans(tags):
    """['B-PER', 'I-PER', 'O', 'I-LOC'] -> [('PER', 0, 2), ('LOC', 3, 4)]; a stray I- starts a span."""
    spans = []
    start = None
    etype = None
    for i, tag in enumerate(tags):
        prefix = tag[0]
        label = tag[2:] if prefix != "O" else None
        if start is not None and (prefix != "I" or label != etype):
            spans.append((etype, start, i))
            start, etype = None, None
        if prefix == "B" or (prefix == "I" and start is None):
            start, etype = i, label
    if start is not None:
        spans.append((etype, start, len(tags)))
    return spans


def prf(tp, n_pred, n_gold):
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


class SpanF1:
    """Accumulates span matches per entity type for one batch of predictions."""

    def __init__(self, id2tag, entity_types):
        self.id2tag = id2tag
        self.entity_types = entity_types

    def batch_scores(self, preds, labels):
        tp = defaultdict(int)
        n_pred = defaultdict(int)
        n_gold = defaultdict(int)
        for b in range(labels.shape[0]):
            gold_tags, pred_tags = [], []
            for i in range(labels.shape[1]):
                if labels[b, i] == -100:
                    continue
                gold_tags.append(self.id2tag[int(labels[b, i])])
                pred_tags.append(self.id2tag[int(preds[b, i])])
            gold = bio_to_spans(gold_tags)
            pred = bio_to_spans(pred_tags)
            for span in pred:
                n_pred[span[0]] += 1
                if span in gold:
                    tp[span[0]] += 1
            for span in gold:
                n_gold[span[0]] += 1
        scores = {}
        for etype in self.entity_types:
            scores[etype] = prf(tp[etype], n_pred[etype], n_gold[etype])
        scores["micro"] = prf(sum(tp.values()), sum(n_pred.values()), sum(n_gold.values()))
        return scores
