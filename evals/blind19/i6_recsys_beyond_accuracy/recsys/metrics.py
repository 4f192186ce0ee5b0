"""Beyond-accuracy metrics for top-k lists: catalogue coverage, intra-list diversity, novelty."""
import itertools
import math


def cosine_similarity(u, v):
    dot = sum(a * b for a, b in zip(u, v))
    norm_u = math.sqrt(sum(a * a for a in u))
    norm_v = math.sqrt(sum(b * b for b in v))
    if norm_u == 0.0 or norm_v == 0.0:
        return 0.0
    return dot / (norm_u * norm_v)


def intra_list_diversity(rec_list, item_vectors):
    """Mean pairwise cosine distance between the items of one list (Ziegler et al., 2005)."""
    total = 0.0
    pairs = 0
    for a, b in itertools.combinations(rec_list, 2):
        total += 1.0 - cosine_similarity(item_vectors[a], item_vectors[b])
        pairs += 1
    return total / pairs if pairs else 0.0


def novelty(rec_list, popularity, num_users):
    """Mean self-information -log2 p(i) of the recommended items (add-one smoothed popularity)."""
    return sum(-math.log2((popularity[i] + 1) / (num_users + 1)) for i in rec_list) / len(rec_list)


class BeyondAccuracyTracker:
    def __init__(self, num_items, popularity, num_users):
        self.num_items = num_items
        self.popularity = popularity
        self.num_users = num_users
        self.recommended = set()
        self.history = {"coverage": [], "ild": [], "novelty": []}

    def update(self, top_items, item_embeddings):
        lists = top_items.tolist()
        vectors = item_embeddings.detach().tolist()
        self.recommended.update(i for rec in lists for i in rec)
        coverage = len(self.recommended) / self.num_items
        ild = sum(intra_list_diversity(rec, vectors) for rec in lists) / len(lists)
        nov = sum(novelty(rec, self.popularity, self.num_users) for rec in lists) / len(lists)
        self.history["coverage"].append(coverage)
        self.history["ild"].append(ild)
        self.history["novelty"].append(nov)
        return {"coverage": coverage, "ild": ild, "novelty": nov}
