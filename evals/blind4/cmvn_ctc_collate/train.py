import argparse
import json
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from asr.collate import CMVNCollate
from asr.corpus import SyntheticSpeech


@dataclass
class OptimConfig:
    lr: float
    batch_size: int
    epochs: int
    num_workers: int
    max_grad_norm: float


class ConvCTC(nn.Module):
    def __init__(self, n_mels, vocab, ch):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(n_mels, ch, 5, stride=2, padding=2), nn.GELU(),
            nn.Conv1d(ch, ch, 5, padding=2), nn.GELU(),
            nn.Conv1d(ch, vocab, 1))

    def forward(self, x, lens):
        y = self.net(x.transpose(1, 2)).transpose(1, 2)     # B, T/2, V
        out_lens = (lens + 1) // 2
        return y.log_softmax(-1), out_lens


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="asr_config.json")
    raw = json.load(open(parser.parse_args().config))
    oc = OptimConfig(**raw["optim"])
    torch.manual_seed(raw["seed"])
    torch.set_num_threads(1)
    ds = SyntheticSpeech(seed=raw["seed"], **raw["data"])
    loader = DataLoader(ds, batch_size=oc.batch_size, shuffle=True, collate_fn=CMVNCollate(),
                        num_workers=oc.num_workers, generator=torch.Generator().manual_seed(raw["seed"]))
    model = ConvCTC(raw["data"]["num_mels"], raw["data"]["vocab"], raw["model"]["channels"])
    opt = torch.optim.Adam(model.parameters(), lr=oc.lr)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    meter = evalkit.Meter()
    grad_norms = []
    for epoch in range(oc.epochs):
        for step, batch in enumerate(loader):
            meter.batch(batch.as_tuple())
            log_probs, out_lens = model(batch.feats, batch.feat_lens)
            loss = ctc(log_probs.transpose(0, 1), batch.targets, out_lens, batch.target_lens)
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), oc.max_grad_norm)
            opt.step()
            meter.step(loss)
            if step % 10 == 0:
                grad_norms.append(round(float(gn), 4))
                print(f"epoch {epoch} step {step} ctc {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"grad_norm_every_10": grad_norms})


if __name__ == "__main__":
    main()
