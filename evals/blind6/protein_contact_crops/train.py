"""Contact-map prediction on random crops of C-alpha traces (trRosetta-style pair head, tiny)."""
import argparse
import configparser
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit
from structures import AA, make_chain


class ContactCrops(Dataset):
    def __init__(self, chains, crop, threshold, seed):
        self.chains = chains  # list of (sequence, (L, 3) float64 coordinates)
        self.crop = crop
        self.threshold = threshold
        self.rng = np.random.default_rng(seed)
        self.aa_index = {a: i for i, a in enumerate(AA)}

    def __len__(self):
        return len(self.chains)

    def __getitem__(self, idx):
        seq, coords = self.chains[idx]
        start = int(self.rng.integers(0, len(seq) - self.crop + 1))
        xyz = coords[start:start + self.crop].tolist()
        n = len(xyz)
        dist = [[0.0] * n for _ in range(n)]
        for i in range(n):
            xi, yi, zi = xyz[i]
            for j in range(n):
                xj, yj, zj = xyz[j]
                dx, dy, dz = xi - xj, yi - yj, zi - zj
                dist[i][j] = math.sqrt(dx * dx + dy * dy + dz * dz)
        contacts = [[1.0 if d < self.threshold else 0.0 for d in row] for row in dist]
        local = [[dist[i][i + k] if i + k < n else 0.0 for k in (1, 2, 3, 4)] for i in range(n)]
        tokens = [self.aa_index[a] for a in seq[start:start + self.crop]]
        return {
            "tokens": torch.tensor(tokens, dtype=torch.long),
            "local_geom": torch.tensor(local, dtype=torch.float32),
            "contacts": torch.tensor(contacts, dtype=torch.float32),
        }


class PairNet(nn.Module):
    """Sequence encoder + bilinear pair head: logit_ij = <h_i, h_j> / sqrt(d) + b."""

    def __init__(self, channels, pair_dim=16):
        super().__init__()
        self.embed = nn.Embedding(len(AA), channels)
        self.geom = nn.Linear(4, channels)
        self.conv = nn.Conv1d(channels, channels, 5, padding=2)
        self.proj = nn.Conv1d(channels, pair_dim, 1)
        self.bias = nn.Parameter(torch.tensor(-1.0))
        self.scale = pair_dim ** -0.5

    def forward(self, tokens, local_geom):
        h = self.embed(tokens) + self.geom(local_geom / 10.0)
        h = F.relu(self.conv(h.transpose(1, 2)))  # B, C, L
        h = self.proj(h)                            # B, d, L
        return torch.bmm(h.transpose(1, 2), h) * self.scale + self.bias


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="contacts.ini")
    cp = configparser.ConfigParser()
    cp.read(ap.parse_args().config)
    seed = cp.getint("data", "seed")
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    rng = np.random.default_rng(seed)
    chains = [make_chain(rng, int(rng.integers(cp.getint("data", "min_length"), cp.getint("data", "max_length") + 1)))
              for _ in range(cp.getint("data", "num_chains"))]
    ds = ContactCrops(chains, cp.getint("data", "crop_size"), cp.getfloat("data", "contact_threshold"), seed + 1)
    loader = DataLoader(ds, batch_size=cp.getint("optim", "batch_size"), shuffle=True, drop_last=True,
                        generator=torch.Generator().manual_seed(seed))
    model = PairNet(cp.getint("model", "channels"))
    optimizer = torch.optim.Adam(model.parameters(), lr=cp.getfloat("optim", "lr"))
    meter = evalkit.Meter()
    log_every = cp.getint("optim", "log_every")
    records, step = [], 0
    for epoch in range(cp.getint("optim", "epochs")):
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["tokens"], batch["local_geom"])
            loss = F.binary_cross_entropy_with_logits(logits, batch["contacts"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            step += 1
            if step % log_every == 0:
                with torch.no_grad():
                    prob = torch.sigmoid(logits)
                    top = prob.flatten(1).topk(64, dim=1).indices
                    precision = batch["contacts"].flatten(1).gather(1, top).mean().item()
                records.append({"step": step, "loss": round(loss.item(), 6), "top_L_precision": round(precision, 6)})
                print(records[-1], flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"records": records})


if __name__ == "__main__":
    main()
