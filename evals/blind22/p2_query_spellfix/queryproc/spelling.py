"""Query spelling correction: snap each out-of-vocabulary term to its nearest vocabulary word."""


def levenshtein(a, b):
    """Classic two-row dynamic programme: insertions, deletions and substitutions cost 1."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            insert = previous[j] + 1
            delete = current[j - 1] + 1
            replace = previous[j - 1] + (ca != cb)
            current.append(min(insert, delete, replace))
        previous = current
    return previous[-1]


class SpellCorrector:
    def __init__(self, words, max_distance=2):
        self.words = list(words)
        self.known = set(self.words)
        self.max_distance = max_distance

    def correct(self, term):
        """The closest vocabulary word (first one on ties), or None when it is too far away."""
        if term in self.known:
            return term
        best, best_dist = None, None
        for word in self.words:
            dist = levenshtein(term, word)
            if best_dist is None or dist < best_dist:
                best, best_dist = word, dist
        return best if best_dist <= self.max_distance else None
