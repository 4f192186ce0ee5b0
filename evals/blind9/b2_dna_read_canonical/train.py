"""Species-of-origin classifier for short reads: one-hot CNN + canonical k-mer bag.

    python train.py run_config.json
"""
import json
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from evalkit import Meter
from reads import ReadCollator, ReadDataset, simulate_reads


class ReadClassifier(nn.Module):
    def __init__(self, vocab_size, k, conv_channels, kmer_dim, hidden, n_classes):
        super().__init__()
        self.k = k
        self.conv = nn.Conv1d(4, conv_channels, 9, padding=4)
        self.embed = nn.Embedding(vocab_size, kmer_dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(conv_channels + kmer_dim, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, onehot, kmers, lengths):
        pos = torch.arange(onehot.shape[-1])
        mask = (pos[None, :] < lengths[:, None]).float()
        h = F.relu(self.conv(onehot)) * mask[:, None, :]
        conv_feat = h.sum(-1) / lengths[:, None].float()
        kmask = (kmers != 0).float()
        emb = (self.embed(kmers) * kmask[..., None]).sum(1) / kmask.sum(1, keepdim=True).clamp_min(1.0)
        return self.mlp(torch.cat([conv_feat, emb], dim=1))


def main(path):
    with open(path) as fh:
        cfg = json.load(fh)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    reads = simulate_reads(cfg["simulation"], cfg["seed"])
    enc = cfg["encoding"]
    collate = ReadCollator(enc["k"], enc["min_base_quality"], enc["reverse_complement_prob"], cfg["seed"] + 1)
    dl = cfg["dataloader"]
    loader = DataLoader(ReadDataset(reads), batch_size=dl["batch_size"], shuffle=dl["shuffle"],
                        num_workers=dl["num_workers"], drop_last=dl["drop_last"], collate_fn=collate,
                        generator=torch.Generator().manual_seed(cfg["seed"]))

    m = cfg["model"]
    model = ReadClassifier(len(collate.vocab) + 2, enc["k"], m["conv_channels"], m["kmer_dim"], m["hidden"],
                           cfg["simulation"]["n_species"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optimizer"]["lr"], betas=tuple(cfg["optimizer"]["betas"]))

    meter = Meter()
    log = []
    step = 0
    it = iter(loader)
    while step < cfg["max_steps"] and not meter.done():
        try:
            onehot, kmers, lengths, labels = next(it)
        except StopIteration:
            it = iter(loader)
            continue
        meter.batch((onehot, kmers, lengths, labels))
        logits = model(onehot, kmers, lengths)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        step += 1
        if step % cfg["log_interval"] == 0:
            acc = (logits.argmax(1) == labels).float().mean().item()
            log.append([step, round(loss.item(), 5), round(acc, 4)])
            print(f"step {step:4d}  loss {loss.item():.4f}  acc {acc:.3f}", flush=True)
    meter.report(extra={"log": log, "n_reads": len(reads)})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "run_config.json")
