import argparse

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

from synth import make_click_log
from trainer import Trainer


class WideDeep(nn.Module):
    def __init__(self, cardinalities, n_dense, emb_dim, hidden):
        super().__init__()
        self.register_buffer("offsets", torch.tensor([0] + list(torch.tensor(cardinalities).cumsum(0)[:-1])))
        self.emb = nn.Embedding(sum(cardinalities), emb_dim)
        self.wide = nn.Embedding(sum(cardinalities), 1)
        layers, d = [], len(cardinalities) * emb_dim + n_dense
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        layers.append(nn.Linear(d, 1))
        self.deep = nn.Sequential(*layers)
        nn.init.normal_(self.emb.weight, std=0.05)
        nn.init.zeros_(self.wide.weight)

    def forward(self, dense, cats):
        idx = cats + self.offsets
        deep_in = torch.cat([self.emb(idx).flatten(1), dense], dim=1)
        return (self.deep(deep_in) + self.wide(idx).sum(1)).squeeze(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/ctr.yaml")
    cfg = yaml.safe_load(open(ap.parse_args().config))
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    d = cfg["data"]
    dataset = make_click_log(d["rows"], d["users"], d["field_buckets"], d["dense_features"], cfg["seed"])
    loader = DataLoader(dataset, generator=torch.Generator().manual_seed(cfg["seed"]), **cfg["loader"])
    model = WideDeep([d["users"]] + d["field_buckets"], d["dense_features"],
                     cfg["model"]["embedding_dim"], cfg["model"]["hidden"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["optimizer"]["lr"])

    trainer = Trainer(**cfg["trainer"])
    trainer.fit(model, optimizer, loader)
    trainer.report()


if __name__ == "__main__":
    main()
