"""Row-wise feature pipeline: parse -> impute -> bucketise -> encode categories -> hash ids and crosses."""
import bisect
import hashlib
import statistics
from collections import Counter

MISSING_TOKENS = {None, "", "NA", "?"}


def is_missing(value):
    return value in MISSING_TOKENS


def parse_number(value):
    if is_missing(value):
        return None
    return float(str(value).replace(",", ""))


def stable_bucket(key, n_buckets):
    """Process-independent hash bucket (Python's hash() is salted per process)."""
    digest = hashlib.md5(key.encode("utf-8")).hexdigest()
    return int(digest[:12], 16) % n_buckets


class NumericStep:
    """Median imputation + missing flag, standardisation and quantile bucket of each numeric column."""

    def __init__(self, columns, n_buckets):
        self.columns = columns
        self.n_buckets = n_buckets

    def fit(self, rows):
        self.stats = {}
        for col in self.columns:
            values = sorted(v for v in (parse_number(r[col]) for r in rows) if v is not None)
            median = statistics.median(values)
            mean = statistics.fmean(values)
            std = statistics.pstdev(values) or 1.0
            edges = [values[int(len(values) * q / self.n_buckets)] for q in range(1, self.n_buckets)]
            self.stats[col] = (median, mean, std, edges)
        return self

    def __call__(self, row):
        out = dict(row)
        for col in self.columns:
            median, mean, std, edges = self.stats[col]
            value = parse_number(row[col])
            out[col + "_missing"] = 1.0 if value is None else 0.0
            if value is None:
                value = median
            out[col + "_z"] = (value - mean) / std
            out[col.split("_")[0] + "_bucket"] = f"q{bisect.bisect_right(edges, value)}"
        return out


class CategoryStep:
    """Frequency-thresholded vocabulary per column: 0 = missing, 1 = rare / unseen, 2.. = known."""

    def __init__(self, columns, min_count):
        self.columns = columns
        self.min_count = min_count

    def fit(self, rows):
        self.vocab = {}
        for col in self.columns:
            counts = Counter(r[col] for r in rows if not is_missing(r[col]))
            kept = sorted(v for v, c in counts.items() if c >= self.min_count)
            self.vocab[col] = {v: i + 2 for i, v in enumerate(kept)}
        return self

    def __call__(self, row):
        out = dict(row)
        for col in self.columns:
            value = row[col]
            out[col + "_id"] = 0 if is_missing(value) else self.vocab[col].get(value, 1)
        return out


class HashStep:
    """Hashing trick for high-cardinality columns and for feature crosses."""

    def __init__(self, columns, crosses, n_buckets):
        self.columns = columns
        self.crosses = crosses
        self.n_buckets = n_buckets

    def fit(self, rows):
        return self

    def __call__(self, row):
        out = dict(row)
        for col in self.columns:
            value = "__missing__" if is_missing(row[col]) else str(row[col]).strip().lower()
            out[col + "_hash"] = stable_bucket(f"{col}={value}", self.n_buckets)
        for a, b in self.crosses:
            va = "__missing__" if is_missing(out[a]) else str(out[a]).strip().lower()
            vb = "__missing__" if is_missing(out[b]) else str(out[b]).strip().lower()
            out[f"{a}_x_{b}_hash"] = stable_bucket(f"{a}={va}|{b}={vb}", self.n_buckets)
        return out


class RowPipeline:
    def __init__(self, steps, categorical, hashed, numeric, crosses):
        self.steps = steps
        self.id_columns = ([c + "_id" for c in categorical] + [c + "_hash" for c in hashed]
                           + [f"{a}_x_{b}_hash" for a, b in crosses])
        self.float_columns = [c + "_z" for c in numeric] + [c + "_missing" for c in numeric]

    def fit(self, rows):
        for step in self.steps:
            step.fit(rows)
            rows = [step(r) for r in rows] if step is not self.steps[-1] else rows
        return self

    def __call__(self, row):
        for step in self.steps:
            row = step(row)
        return [row[c] for c in self.id_columns], [row[c] for c in self.float_columns]
