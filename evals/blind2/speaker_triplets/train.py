"""Speaker-embedding training with semi-hard triplet loss on synthetic utterance features."""
import argparse
import json
import statistics

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit
from mining import mine_semihard, pairwise_distances
from sampling import PKBatchSampler


class UtteranceFeatures(Dataset):
    """Mean-pooled 'filterbank' vectors: a speaker centre pushed through a fixed random warp, plus noise."""

    def __init__(self, speakers, per_speaker, dim, noise, seed):
        g = torch.Generator().manual_seed(seed)
        centres = torch.randn(speakers, dim, generator=g)
        warp = torch.randn(dim, dim, generator=g) / dim ** 0.5
        self.labels = [s for s in range(speakers) for _ in range(per_speaker)]
        x = centres.repeat_interleave(per_speaker, 0) + noise * torch.randn(len(self.labels), dim, generator=g)
        self.features = torch.tanh(x @ warp) + 0.1 * x

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"feats": self.features[i], "speaker": self.labels[i]}


class Embedder(nn.Module):
    def __init__(self, dim, hidden, out):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, out))

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    with open(ap.parse_args().config) as fh:
        cfg = json.load(fh)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    dc = cfg["data"]
    ds = UtteranceFeatures(dc["speakers"], dc["utterances_per_speaker"], dc["feature_dim"], dc["noise"], cfg["seed"])
    sampler = PKBatchSampler(ds.labels, cfg["sampler"]["speakers_per_batch"],
                             cfg["sampler"]["utterances_per_speaker"], cfg["seed"])
    loader = DataLoader(ds, batch_sampler=sampler)
    model = Embedder(dc["feature_dim"], cfg["model"]["hidden"], cfg["model"]["embedding_dim"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    margin = cfg["optim"]["margin"]

    meter = evalkit.Meter()
    logs = {"active_fraction": [], "mean_d_ap": [], "mean_d_an": []}
    step = 0
    for epoch in range(cfg["optim"]["epochs"]):
        sampler.set_epoch(epoch)
        for batch in loader:
            meter.batch(batch)
            emb = model(batch["feats"])
            dist = pairwise_distances(emb)
            a, p, n = mine_semihard(dist, batch["speaker"])
            d_ap, d_an = dist[a, p], dist[a, n]
            per_triplet = F.relu(d_ap - d_an + margin)
            loss = per_triplet.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)

            logs["active_fraction"].append(statistics.fmean(float(v > 0) for v in per_triplet.tolist()))
            logs["mean_d_ap"].append(statistics.fmean(d_ap.tolist()))
            logs["mean_d_an"].append(statistics.fmean(d_an.tolist()))
            step += 1
            if step % cfg["log_every"] == 0:
                print(f"ep {epoch} step {step} loss {loss.item():.4f} active {logs['active_fraction'][-1]:.3f} "
                      f"d_ap {logs['mean_d_ap'][-1]:.3f} d_an {logs['mean_d_an'][-1]:.3f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra=logs)


if __name__ == "__main__":
    main()
