"""Rank-value encoding: genes ordered by expression relative to their corpus median."""
import math
import statistics


def normalise(counts, gene_medians, target_sum):
    """(value, gene) pairs for the expressed genes that the dictionary knows."""
    total = sum(counts)
    pairs = []
    for g, (c, med) in enumerate(zip(counts, gene_medians)):
        if c > 0 and not math.isnan(med):
            pairs.append((c / total * target_sum / med, g))
    return pairs


def rank_genes(pairs):
    """Descending by normalised value; ties keep the gene order (stable sort)."""
    return sorted(pairs, key=lambda p: p[0], reverse=True)


def tokenize_cell(counts, gene_medians, target_sum, max_tokens, cls_id=1, offset=2):
    pairs = normalise(counts, gene_medians, target_sum)
    ranked = rank_genes(pairs)[: max_tokens - 1]
    tokens = [cls_id] + [g + offset for _, g in ranked]
    values = [v for v, _ in pairs]
    q1, q2, q3 = statistics.quantiles(values, n=4) if len(values) > 1 else (0.0, 0.0, 0.0)
    summary = [len(pairs) / len(counts), q1, q2, q3, ranked[0][0] if ranked else 0.0]
    return tokens, summary
