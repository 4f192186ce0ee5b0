"""SEAL-style link prediction: enclosing subgraphs around candidate edges, a dense GCN scorer."""
import argparse
import random
import runpy

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, RandomSampler

import evalkit
from linkpred import DenseGCNLinkPredictor, EdgePairs, SubgraphCollator, make_graph


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    args = ap.parse_args()
    s = runpy.run_path(args.settings)
    random.seed(s["SEED"])
    np.random.seed(s["SEED"])
    torch.manual_seed(s["SEED"])
    torch.set_num_threads(1)

    edge_index, feats, edges = make_graph(s["NUM_NODES"], s["EDGES_PER_NODE"], s["NUM_COMMUNITIES"],
                                          s["FEATURE_DIM"], s["SEED"])
    ds = EdgePairs(edges, s["NUM_NODES"], s["TRAIN_EDGES"], s["SEED"])
    collator = SubgraphCollator(edge_index, feats, s["NUM_HOPS"], s["FANOUT"], s["MAX_NODES"], s["SEED"])
    loader = DataLoader(ds, batch_size=s["BATCH_SIZE"], num_workers=s["NUM_WORKERS"], collate_fn=collator,
                        sampler=RandomSampler(ds, generator=torch.Generator().manual_seed(s["SEED"])))
    model = DenseGCNLinkPredictor(s["FEATURE_DIM"] + 2, 32)
    opt = torch.optim.Adam(model.parameters(), lr=s["LR"])
    meter = evalkit.Meter()

    step, epoch, hits = 0, 0, 0
    it = iter(loader)
    while step < s["MAX_STEPS"] and not meter.done():
        try:
            feats_b, adj, mask, labels = next(it)
        except StopIteration:
            epoch += 1
            it = iter(loader)
            continue
        meter.batch([feats_b, adj, mask, labels])
        logits = model(feats_b, adj, mask)
        loss = F.binary_cross_entropy_with_logits(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        hits += int(((logits.detach() > 0) == (labels > 0.5)).sum())
        step += 1
    meter.report({"epochs_done": epoch, "train_hits": hits, "edges": int(edge_index.shape[1])})


if __name__ == "__main__":
    main()
