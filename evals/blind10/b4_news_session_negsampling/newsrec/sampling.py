"""Popularity-proportional negative sampling with rejection of already-seen items."""
import bisect
import itertools


class PopularityNegativeSampler:
    def __init__(self, item_counts, alpha, rng):
        self.items = sorted(item_counts)
        self.counts = item_counts
        self.alpha = alpha
        self.rng = rng

    def sample(self, seen, k, max_tries=1000):
        """k distinct items, none in `seen`, drawn with probability ~ count ** alpha (numpy rng, one draw per try)."""
        weights = [(self.counts[item] + 1) ** self.alpha for item in self.items]
        cumulative = list(itertools.accumulate(weights))
        total = cumulative[-1]
        negatives = []
        tries = 0
        while len(negatives) < k and tries < max_tries:
            tries += 1
            pos = bisect.bisect_right(cumulative, self.rng.random() * total)
            cand = self.items[min(pos, len(self.items) - 1)]
            if cand in seen or cand in negatives:
                continue
            negatives.append(cand)
        return negatives
