import torch


class TreeCollator:
    """Pads a list of SyntaxTree into node types, parent indices, depths and an ancestor mask.

    ancestor_mask[b, i, j] is True when node j is node i itself or one of its ancestors; the model's
    tree attention lets a node attend to its ancestors only.
    """

    def __init__(self, pad_type_id=0):
        self.pad_type_id = pad_type_id

    def __call__(self, trees):
        batch_size = len(trees)
        n_max = max(len(t.types) for t in trees)
        node_types = torch.full((batch_size, n_max), self.pad_type_id, dtype=torch.long)
        parents = torch.full((batch_size, n_max), -1, dtype=torch.long)
        depths = torch.zeros((batch_size, n_max), dtype=torch.long)
        node_mask = torch.zeros((batch_size, n_max), dtype=torch.bool)
        ancestor_mask = torch.zeros((batch_size, n_max, n_max), dtype=torch.bool)
        for b, tree in enumerate(trees):
            for i, (t, p) in enumerate(zip(tree.types, tree.parents)):
                node_types[b, i] = t
                parents[b, i] = p
                node_mask[b, i] = True
                if p >= 0:
                    depths[b, i] = depths[b, p] + 1
                j = i
                while j != -1:
                    ancestor_mask[b, i, j] = True
                    j = tree.parents[j]
        labels = torch.tensor([t.label for t in trees], dtype=torch.long)
        return {"node_types": node_types, "parents": parents, "depths": depths, "node_mask": node_mask,
                "ancestor_mask": ancestor_mask, "labels": labels}
