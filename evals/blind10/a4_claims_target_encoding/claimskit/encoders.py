"""sklearn-like fitted transformers."""
import math

MISSING = "__missing__"


class SmoothedTargetEncoder:
    """Replace each category by the smoothed mean target of its rows in the fitting data:

        enc = (sum_y + smoothing * prior) / (n + smoothing)

    with prior the mean target overall; categories with fewer than min_samples_leaf rows (or
    never seen) get n = 0 and so the prior. Blank values are a category of their own."""

    def __init__(self, columns, smoothing=20.0, min_samples_leaf=1):
        self.columns = list(columns)
        self.smoothing = smoothing
        self.min_samples_leaf = min_samples_leaf

    def fit(self, rows, y):
        self.values_ = {col: [row[col] or MISSING for row in rows] for col in self.columns}
        self.y_ = [float(t) for t in y]
        self.prior_ = sum(self.y_) / len(self.y_)
        return self

    def _stats(self, col, value):
        ys = [t for v, t in zip(self.values_[col], self.y_) if v == value]
        if len(ys) < self.min_samples_leaf:
            return 0.0, 0
        return sum(ys), len(ys)

    def encode_value(self, col, value):
        total, n = self._stats(col, value or MISSING)
        return (total + self.smoothing * self.prior_) / (n + self.smoothing)

    def transform_row(self, row):
        return [self.encode_value(col, row[col]) for col in self.columns]

    def transform(self, rows):
        return [self.transform_row(row) for row in rows]

    def fit_transform(self, rows, y):
        return self.fit(rows, y).transform(rows)

    def get_feature_names_out(self):
        return [f"{col}_te" for col in self.columns]
