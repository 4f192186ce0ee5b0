"""Random connected molecules with valence limits and an additive property with ring terms."""
import random

from .smiles import ELEMENTS, VALENCE, write_smiles

_WEIGHTS = (70, 12, 12, 3, 2, 1)
_CONTRIB = {"C": 0.35, "N": -0.9, "O": -0.7, "S": 0.4, "F": 0.15, "Cl": 0.6}


def random_molecule(rng, min_atoms, max_atoms, max_rings):
    n = rng.randint(min_atoms, max_atoms)
    atoms = ["C"]
    free = [4]
    bonds = []
    while len(atoms) < n:
        el = rng.choices(ELEMENTS, weights=_WEIGHTS)[0]
        cands = [i for i, f in enumerate(free) if f >= 1]
        if not cands:
            break
        i = rng.choice(cands[-6:]) if rng.random() < 0.7 else rng.choice(cands)
        order = 2 if (free[i] >= 2 and VALENCE[el] >= 2 and rng.random() < 0.15) else 1
        atoms.append(el)
        free.append(VALENCE[el] - order)
        free[i] -= order
        bonds.append((i, len(atoms) - 1, order))
    bonded = {(min(i, j), max(i, j)) for i, j, _ in bonds}
    for _ in range(rng.randint(0, max_rings)):
        cands = [i for i, f in enumerate(free) if f >= 1]
        pairs = [(i, j) for i in cands for j in cands if 4 <= j - i <= 7 and (i, j) not in bonded]
        if not pairs:
            break
        i, j = rng.choice(pairs)
        bonds.append((i, j, 1))
        bonded.add((i, j))
        free[i] -= 1
        free[j] -= 1
    return atoms, bonds


def make_dataset(num, min_atoms, max_atoms, max_rings, seed):
    rng = random.Random(seed)
    smiles, targets = [], []
    for _ in range(num):
        atoms, bonds = random_molecule(rng, min_atoms, max_atoms, max_rings)
        rings = len(bonds) - (len(atoms) - 1)
        doubles = sum(1 for *_, o in bonds if o == 2)
        y = sum(_CONTRIB[a] for a in atoms) / len(atoms) * 4 + 0.45 * rings - 0.3 * doubles
        smiles.append(write_smiles(atoms, bonds))
        targets.append(y + rng.gauss(0.0, 0.05))
    return smiles, targets
