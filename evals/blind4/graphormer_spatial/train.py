import argparse
import importlib.util

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from molecules import SyntheticMolecules, collate_graphs


def load_config(path):
    spec = importlib.util.spec_from_file_location("run_config", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class GraphormerLite(nn.Module):
    def __init__(self, n_types, max_dist, dim, heads, layers):
        super().__init__()
        self.atom = nn.Embedding(n_types + 1, dim, padding_idx=0)
        self.deg = nn.Embedding(8, dim)
        self.spatial = nn.Embedding(max_dist + 1, heads)
        self.heads = heads
        self.blocks = nn.ModuleList(
            nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0, batch_first=True)
            for _ in range(layers))
        self.readout = nn.Linear(dim, 1)

    def forward(self, batch):
        h = self.atom(batch["atoms"]) + self.deg(batch["degree"])
        B, N = batch["atoms"].shape
        bias = self.spatial(batch["spd"]).permute(0, 3, 1, 2)          # B, H, N, N
        pad = ~batch["mask"]
        bias = bias.masked_fill(pad[:, None, None, :], float("-inf"))
        attn = bias.reshape(B * self.heads, N, N)
        for blk in self.blocks:
            h = blk(h, src_mask=attn)
        m = batch["mask"].unsqueeze(-1).float()
        return self.readout((h * m).sum(1) / m.sum(1)).squeeze(-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.py")
    cfg = load_config(ap.parse_args().config)
    torch.manual_seed(cfg.SEED)
    torch.set_num_threads(1)
    ds = SyntheticMolecules(cfg)
    loader = DataLoader(ds, batch_size=cfg.TRAIN["batch_size"], shuffle=True, drop_last=True,
                        collate_fn=collate_graphs, num_workers=cfg.TRAIN["workers"],
                        generator=torch.Generator().manual_seed(cfg.SEED))
    model = GraphormerLite(cfg.NUM_ATOM_TYPES, cfg.MAX_DIST, **cfg.MODEL)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.TRAIN["lr"])
    meter = evalkit.Meter()
    mae_per_epoch = []
    for epoch in range(cfg.TRAIN["epochs"]):
        abs_err, count = 0.0, 0
        for i, batch in enumerate(loader):
            meter.batch(batch)
            pred = model(batch)
            loss = nn.functional.mse_loss(pred, batch["y"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            abs_err += (pred.detach() - batch["y"]).abs().sum().item()
            count += len(pred)
            if meter.done():
                break
        mae_per_epoch.append(abs_err / count)
        print(f"epoch {epoch}: mae {mae_per_epoch[-1]:.4f}")
        if meter.done():
            break
    meter.report(extra={"mae": mae_per_epoch})


if __name__ == "__main__":
    main()
