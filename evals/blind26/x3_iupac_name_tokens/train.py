import argparse
import configparser

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from chemtok import MorphemeBPE
from chemtok.dataset import IupacNameDataset
from chemtok.names import CLASS_NAMES
from evalkit import Meter


class NameBag(nn.Module):
    """fastText-style classifier: mean of token embeddings -> MLP."""

    def __init__(self, vocab_size, embed_dim, hidden, n_classes, pad_id):
        super().__init__()
        self.pad_id = pad_id
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_id)
        self.mlp = nn.Sequential(nn.Linear(embed_dim, hidden), nn.GELU(), nn.Linear(hidden, n_classes))

    def forward(self, ids):
        mask = (ids != self.pad_id).unsqueeze(-1).float()
        h = (self.embed(ids) * mask).sum(1) / mask.sum(1).clamp_min(1.0)
        return self.mlp(h)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="iupac.ini")
    cfg = configparser.ConfigParser()
    cfg.read(ap.parse_args().config)
    seed = cfg.getint("run", "seed")
    torch.set_num_threads(cfg.getint("run", "threads"))
    torch.manual_seed(seed)

    tok = MorphemeBPE(lowercase=cfg.getboolean("tokenizer", "lowercase"))
    max_len = cfg.getint("tokenizer", "max_len")
    ds = IupacNameDataset(cfg.getint("corpus", "n_names"), cfg.getint("corpus", "max_substituents"),
                          tok, max_len, seed)
    loader = DataLoader(ds, batch_size=cfg.getint("optim", "batch_size"), shuffle=True, num_workers=0,
                        generator=torch.Generator().manual_seed(seed))
    m = cfg["model"]
    model = NameBag(len(tok.vocab), m.getint("embed_dim"), m.getint("hidden"), len(CLASS_NAMES), tok.pad_id)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.getfloat("optim", "lr"))
    meter = Meter()
    unk_seen = 0
    for epoch in range(cfg.getint("optim", "epochs")):
        for ids, labels in loader:
            meter.batch((ids, labels))
            loss = F.cross_entropy(model(ids), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            unk_seen += int((ids == tok.unk_id).sum())
            if meter.done():
                break
        if meter.done():
            break
        print(f"epoch {epoch}: loss {loss.item():.4f}")
    meter.report({"unk_tokens": unk_seen, "vocab_size": len(tok.vocab)})


if __name__ == "__main__":
    main()
