"""Negative-binomial UMI counts for a handful of cell types with marker programmes."""
import numpy as np


def simulate_counts(n_cells, n_genes, n_types, seed):
    rng = np.random.default_rng(seed)
    base = rng.lognormal(mean=-1.0, sigma=1.6, size=n_genes)
    programmes = np.ones((n_types, n_genes))
    for t in range(n_types):
        markers = rng.choice(n_genes, size=40, replace=False)
        programmes[t, markers] *= rng.uniform(4.0, 20.0, size=40)
    labels = rng.integers(0, n_types, size=n_cells)
    depth = rng.lognormal(mean=0.0, sigma=0.35, size=n_cells)
    mu = base[None, :] * programmes[labels] * depth[:, None]
    # Poisson-lognormal counts (cheaper to draw than a negative binomial, similar overdispersion)
    counts = rng.poisson(mu * rng.lognormal(0.0, 0.5, size=mu.shape))
    return counts.astype(np.int64), labels


def reference_medians(counts, unmapped_fraction, target_sum, seed):
    """Per-gene median of the depth-normalised non-zero values (the tokenizer's gene_median_dict).
    Genes that are not in the dictionary get NaN."""
    rng = np.random.default_rng(seed + 1)
    norm = counts / counts.sum(axis=1, keepdims=True) * target_sum
    med = np.full(counts.shape[1], np.nan)
    for g in range(counts.shape[1]):
        nz = norm[:, g][counts[:, g] > 0]
        if len(nz):
            med[g] = float(np.median(nz))
    unmapped = rng.random(counts.shape[1]) < unmapped_fraction
    med[unmapped] = np.nan
    return med
