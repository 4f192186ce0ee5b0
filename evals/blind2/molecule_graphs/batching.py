"""Batching of variable-size graphs into one disconnected graph (like PyG's Batch)."""
import torch


def collate_graphs(samples):
    xs, src, dst, edge_attr, batch, ys = [], [], [], [], [], []
    offset = 0
    for graph_id, g in enumerate(samples):
        num_nodes = g["x"].shape[0]
        for row in g["x"]:
            xs.append(row.tolist())
            batch.append(graph_id)
        ei = g["edge_index"]
        for e in range(ei.shape[1]):
            src.append(int(ei[0, e]) + offset)
            dst.append(int(ei[1, e]) + offset)
            edge_attr.append(g["edge_attr"][e].tolist())
        ys.append(float(g["y"]))
        offset += num_nodes
    return {
        "x": torch.tensor(xs, dtype=torch.float32),
        "edge_index": torch.tensor([src, dst], dtype=torch.long),
        "edge_attr": torch.tensor(edge_attr, dtype=torch.float32),
        "batch": torch.tensor(batch, dtype=torch.long),
        "y": torch.tensor(ys, dtype=torch.float32).unsqueeze(1),
        "num_graphs": len(samples),
    }
