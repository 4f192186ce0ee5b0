"""Write a Criteo-format sample: label, 13 integer features, 26 hashed categorical features, tab separated."""
import os
import random

N_DENSE, N_CAT = 13, 26


def write_sample(path, num_lines, seed):
    rng = random.Random(seed)
    vocab = [[f"{rng.getrandbits(32):08x}" for _ in range(rng.choice([3, 30, 300, 3000]))] for _ in range(N_CAT)]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        for _ in range(num_lines):
            cats = [v[min(int(rng.paretovariate(1.1)) - 1, len(v) - 1)] if rng.random() > 0.1 else "" for v in vocab]
            dense = [str(int(rng.expovariate(1 / (3 + 10 * j)))) if rng.random() > 0.2 else "" for j in range(N_DENSE)]
            score = sum(1 for c in cats[:6] if c and int(c[0], 16) < 6) + (0.5 if dense[0] and int(dense[0]) > 5 else 0)
            label = 1 if rng.random() < 0.1 + 0.1 * score else 0
            fh.write("\t".join([str(label)] + dense + cats) + "\n")
    os.replace(tmp, path)
