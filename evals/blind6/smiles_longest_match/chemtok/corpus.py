"""A tiny generator of SMILES-like strings with a made-up additive property."""
import random

ATOMS = ["C", "C", "C", "N", "O", "S", "F", "Cl", "Br", "I", "c1ccccc1", "[nH]", "[NH+]", "[NH3+]",
         "[O-]", "[C@@H]", "[C@H]", "[Si]", "[Se]", "P", "B", "[2H]", "[13C]"]
BONDS = ["", "", "", "=", "#"]
CONTRIB = {"C": 0.5, "N": -0.7, "O": -0.4, "S": 0.6, "F": 0.1, "Cl": 0.9, "Br": 1.1, "I": 1.3,
           "c1ccccc1": 1.9, "[nH]": -0.3, "[NH+]": -1.5, "[NH3+]": -1.9, "[O-]": -1.6,
           "[C@@H]": 0.3, "[C@H]": 0.3, "[Si]": 0.8, "[Se]": 0.7, "P": 0.2, "B": -0.2,
           "[2H]": 0.05, "[13C]": 0.5}


def _chain(rng, depth, out):
    score = 0.0
    n = rng.randint(3, 9)
    for i in range(n):
        atom = rng.choice(ATOMS)
        if i:
            out.append(rng.choice(BONDS) if atom[0] not in "c[" else "")
        out.append(atom)
        score += CONTRIB[atom]
        if depth < 2 and rng.random() < 0.3:
            out.append("(")
            score += 0.8 * _chain(rng, depth + 1, out)
            out.append(")")
    return score


def make_corpus(n, seed):
    rng = random.Random(seed)
    smiles, props = [], []
    for _ in range(n):
        out = []
        score = _chain(rng, 0, out)
        if rng.random() < 0.25:
            out.append(".")
            out.append(rng.choice(["[Na+]", "[Cl-]", "O", "[K+]"]))
            score -= 0.5
        smiles.append("".join(out))
        props.append(score + rng.gauss(0.0, 0.2))
    return smiles, props
