"""Quantile binning of numeric columns (histogram-GBDT style), 0 reserved for missing values."""
import numpy as np


def fit_bin_edges(column, max_bins):
    """Upper edges of up to max_bins - 1 quantile bins of the non-missing values."""
    values = column[~np.isnan(column)].astype(np.float64)
    qs = np.linspace(0, 1, max_bins + 1)[1:-1]
    edges = np.unique(np.quantile(values, qs))
    return edges.tolist()


def value_to_bin(v, edges):
    if v != v:  # NaN -> missing bin
        return 0
    for j, e in enumerate(edges):
        if v <= e:
            return j + 1
    return len(edges) + 1
