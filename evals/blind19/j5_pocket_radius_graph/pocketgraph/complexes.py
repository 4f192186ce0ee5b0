"""Synthetic protein-ligand complexes: a globular protein with a surface cavity holding a ligand."""
import numpy as np
from torch.utils.data import Dataset

ELEMENTS = ["C", "N", "O", "S", "F", "Cl", "P"]
PROTEIN_ELEMENT_P = [0.62, 0.17, 0.19, 0.02, 0.0, 0.0, 0.0]
LIGAND_ELEMENT_P = [0.68, 0.12, 0.12, 0.02, 0.03, 0.02, 0.01]


def _rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return q


class SyntheticComplexes(Dataset):
    def __init__(self, n, protein_atoms, protein_radius, lig_min, lig_max, seed, augment=True):
        self.n = n
        self.protein_atoms = protein_atoms
        self.protein_radius = protein_radius
        self.lig_min, self.lig_max = lig_min, lig_max
        self.seed = seed
        self.augment = augment
        self.epoch = 0
        # "load" every structure up front: the set is small enough to keep in memory
        self.structures = [self._build(np.random.default_rng([seed, i])) for i in range(n)]

    def __len__(self):
        return self.n

    def _build(self, rng):
        d = rng.normal(size=(self.protein_atoms, 3))
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        prot = d * (self.protein_radius * rng.random(self.protein_atoms) ** (1 / 3))[:, None]
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        centre = axis * self.protein_radius * rng.uniform(0.6, 0.85)
        cavity = rng.uniform(4.0, 6.0)
        prot = prot[np.linalg.norm(prot - centre, axis=1) > cavity]
        m = int(rng.integers(self.lig_min, self.lig_max + 1))
        steps = rng.normal(size=(m, 3))
        steps *= 1.45 / np.linalg.norm(steps, axis=1, keepdims=True)
        lig = np.cumsum(steps, axis=0)
        lig = lig - lig.mean(0) + centre
        burial = float((np.linalg.norm(prot - centre, axis=1) < cavity + 4.0).sum())
        y = 3.0 + 0.03 * burial + 0.05 * m + rng.normal(0, 0.3)
        pz = rng.choice(len(ELEMENTS), size=len(prot), p=PROTEIN_ELEMENT_P)
        lz = rng.choice(len(ELEMENTS), size=m, p=LIGAND_ELEMENT_P)
        return prot, pz, lig, lz, y

    def __getitem__(self, idx):
        prot, pz, lig, lz, y = self.structures[idx]
        if self.augment:
            aug = np.random.default_rng([self.seed, self.epoch, idx, 1])
            rot = _rotation(aug)
            shift = aug.normal(0, 2.0, size=3)
            prot = prot @ rot.T + shift
            lig = lig @ rot.T + shift
        return {
            "id": idx,
            "protein_pos": prot.astype(np.float32),
            "protein_z": pz.astype(np.int64),
            "ligand_pos": lig.astype(np.float32),
            "ligand_z": lz.astype(np.int64),
            "affinity": np.float32(y),
        }
