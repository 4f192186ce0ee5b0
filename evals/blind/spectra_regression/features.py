"""Feature helpers shared with the notebooks: plain-Python so they work on lists or arrays."""


def standardize(values, mean, std):
    return [(v - m) / s for v, m, s in zip(values, mean, std)]


def clip(values, lo, hi):
    return [lo if v < lo else hi if v > hi else v for v in values]


def baseline_level(values, k=16):
    """Mean of the k smallest values: a cheap continuum estimate."""
    smallest = sorted(values)[:k]
    return sum(smallest) / len(smallest)
