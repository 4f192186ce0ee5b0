"""TransE (Bordes et al. 2013) with filtered uniform negative sampling in the collate function."""
import argparse
import tomllib

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from kg import make_triples


class FilteredNegativeCollate:
    """Corrupt the head or the tail of every positive; re-draw while the corruption is a known triple."""

    def __init__(self, known_triples, num_entities, num_neg, head_prob, generator):
        self.known = known_triples
        self.num_entities = num_entities
        self.num_neg = num_neg
        self.head_prob = head_prob
        self.g = generator

    def __call__(self, batch):
        positives, negatives = [], []
        for h, r, t in batch:
            positives.append((h, r, t))
            for _ in range(self.num_neg):
                while True:
                    e = int(torch.randint(self.num_entities, (1,), generator=self.g))
                    if float(torch.rand(1, generator=self.g)) < self.head_prob:
                        cand = (e, r, t)
                    else:
                        cand = (h, r, e)
                    if cand not in self.known:
                        break
                negatives.append(cand)
        return {"pos": torch.tensor(positives, dtype=torch.long), "neg": torch.tensor(negatives, dtype=torch.long)}


class TransE(nn.Module):
    def __init__(self, n_ent, n_rel, dim, p_norm):
        super().__init__()
        self.ent = nn.Embedding(n_ent, dim)
        self.rel = nn.Embedding(n_rel, dim)
        nn.init.uniform_(self.ent.weight, -6 / dim ** 0.5, 6 / dim ** 0.5)
        nn.init.uniform_(self.rel.weight, -6 / dim ** 0.5, 6 / dim ** 0.5)
        self.p = p_norm

    def distance(self, triples):
        h = F.normalize(self.ent(triples[:, 0]), dim=-1)
        t = F.normalize(self.ent(triples[:, 2]), dim=-1)
        return torch.norm(h + self.rel(triples[:, 1]) - t, p=self.p, dim=-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="transe.toml")
    with open(ap.parse_args().config, "rb") as f:
        cfg = tomllib.load(f)
    kg, sc, mc, tc = cfg["kg"], cfg["sampling"], cfg["model"], cfg["train"]
    torch.manual_seed(kg["seed"])
    torch.set_num_threads(1)

    triples = make_triples(kg["entities"], kg["relations"], kg["triples"], kg["seed"])
    known = [tuple(t) for t in triples]
    collate = FilteredNegativeCollate(known, kg["entities"], sc["negatives_per_positive"],
                                      sc["corrupt_head_prob"], torch.Generator().manual_seed(kg["seed"] + 1))
    loader = DataLoader(triples, batch_size=tc["batch_size"], shuffle=True, collate_fn=collate,
                        generator=torch.Generator().manual_seed(kg["seed"]))
    model = TransE(kg["entities"], kg["relations"], mc["dim"], mc["p_norm"])
    opt = torch.optim.Adagrad(model.parameters(), lr=tc["lr"])
    meter = evalkit.Meter()
    step, history = 0, []
    for epoch in range(tc["epochs"]):
        for batch in loader:
            meter.batch(batch)
            d_pos = model.distance(batch["pos"])
            d_neg = model.distance(batch["neg"]).view(len(d_pos), -1)
            loss = F.relu(mc["margin"] + d_pos.unsqueeze(1) - d_neg).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            if step % tc["log_every"] == 0:
                history.append({"step": step, "loss": round(loss.item(), 6),
                                "pos_dist": round(d_pos.mean().item(), 6), "neg_dist": round(d_neg.mean().item(), 6)})
                print(history[-1], flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"history": history})


if __name__ == "__main__":
    main()
