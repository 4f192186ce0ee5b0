"""Batch complexes into one disjoint graph over pocket + ligand atoms."""
import numpy as np
import torch

from .geometry import atoms_near, radius_graph


class PocketGraphCollator:
    def __init__(self, pocket_radius=6.0, edge_cutoff=4.0):
        self.pocket_radius = pocket_radius
        self.edge_cutoff = edge_cutoff

    def featurize(self, item):
        pocket = atoms_near(item["protein_pos"], item["ligand_pos"], self.pocket_radius)
        pos = np.concatenate([item["protein_pos"][pocket], item["ligand_pos"]], axis=0)
        z = np.concatenate([item["protein_z"][pocket], item["ligand_z"]])
        is_lig = np.concatenate([np.zeros(len(pocket), dtype=bool), np.ones(len(item["ligand_pos"]), dtype=bool)])
        src, dst, dist = radius_graph(pos, self.edge_cutoff)
        return pos, z, is_lig, np.array([src, dst], dtype=np.int64).reshape(2, -1), np.asarray(dist, dtype=np.float32)

    def __call__(self, items):
        pos_l, z_l, lig_l, ei_l, d_l, batch_l = [], [], [], [], [], []
        offset = 0
        for g, item in enumerate(items):
            pos, z, is_lig, ei, dist = self.featurize(item)
            pos_l.append(pos)
            z_l.append(z)
            lig_l.append(is_lig)
            ei_l.append(ei + offset)
            d_l.append(dist)
            batch_l.append(np.full(len(pos), g, dtype=np.int64))
            offset += len(pos)
        return {
            "pos": torch.from_numpy(np.concatenate(pos_l)),
            "z": torch.from_numpy(np.concatenate(z_l)),
            "is_ligand": torch.from_numpy(np.concatenate(lig_l)),
            "edge_index": torch.from_numpy(np.concatenate(ei_l, axis=1)),
            "edge_dist": torch.from_numpy(np.concatenate(d_l)),
            "batch": torch.from_numpy(np.concatenate(batch_l)),
            "affinity": torch.tensor([float(it["affinity"]) for it in items], dtype=torch.float32),
            "ids": torch.tensor([it["id"] for it in items]),
        }
