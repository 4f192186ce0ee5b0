"""sklearn-style fitted transformer: per-user velocity features from the transaction history."""
import math
from bisect import bisect_left
from datetime import datetime

EPOCH = datetime(1970, 1, 1)
NO_HISTORY_SECONDS = 30 * 86400.0


def parse_time(text):
    return (datetime.strptime(text, "%Y-%m-%d %H:%M:%S") - EPOCH).total_seconds()


class VelocityFeatures:
    """Rolling per-user features of a transaction, computed from the user's earlier transactions.

    fit() indexes the ledger rows by user; transform(row) returns
    [log amount, hour sin, hour cos, log seconds since last, count per window..., log sum per window...,
     amount / mean over the longest window, log count of all earlier transactions].
    Earlier means before the row in (timestamp, txn_id) order.
    """

    def __init__(self, windows=(3600, 86400)):
        self.windows = tuple(windows)

    def fit(self, rows):
        self.history_ = {}
        for row in rows:
            self.history_.setdefault(row["user_id"], []).append(row)
        return self

    def _user_timeline(self, user):
        events = []
        for r in self.history_[user]:
            events.append((parse_time(r["timestamp"]), r["txn_id"], float(r["amount"])))
        events.sort()
        return events

    def transform_one(self, row):
        events = self._user_timeline(row["user_id"])
        times = [e[0] for e in events]
        t = parse_time(row["timestamp"])
        pos = bisect_left(events, (t, row["txn_id"]))  # index of this transaction
        amounts = [e[2] for e in events[:pos]]
        amount = float(row["amount"])
        hour = (t % 86400.0) / 3600.0
        since_last = t - times[pos - 1] if pos > 0 else NO_HISTORY_SECONDS
        feats = [math.log1p(amount), math.sin(2 * math.pi * hour / 24), math.cos(2 * math.pi * hour / 24),
                 math.log1p(since_last)]
        counts, sums = [], []
        for w in self.windows:
            lo = bisect_left(times, t - w, 0, pos)
            counts.append(pos - lo)
            sums.append(sum(amounts[lo:pos]))
        feats += [float(c) for c in counts]
        feats += [math.log1p(s) for s in sums]
        mean_long = sums[-1] / counts[-1] if counts[-1] else amount
        feats += [amount / (mean_long + 1.0), math.log1p(pos)]
        return feats
