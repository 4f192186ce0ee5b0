"""Gloss classification from pose keypoints. Usage: python train.py @args.txt"""
import argparse
import random

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from signpose.collate import PoseCollator
from signpose.dataset import BucketBatchSampler, PoseSequenceDataset
from signpose.model import PoseTCN
from signpose.synth import N_KP, make_signs


def parse_args():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--num-signs", type=int, default=640)
    ap.add_argument("--num-glosses", type=int, default=12)
    ap.add_argument("--min-frames", type=int, default=24)
    ap.add_argument("--max-frames", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--conf-threshold", type=float, default=0.3)
    ap.add_argument("--scale-jitter", type=float, default=0.1)
    return ap.parse_args()


def main():
    args = parse_args()
    torch.set_num_threads(1)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    seqs, labels = make_signs(args.num_signs, args.num_glosses, args.min_frames, args.max_frames, args.seed)
    ds = PoseSequenceDataset(seqs, labels, args.scale_jitter)
    sampler = BucketBatchSampler([len(s) for s in seqs], args.batch_size, seed=args.seed)
    loader = DataLoader(ds, batch_sampler=sampler, collate_fn=PoseCollator(args.conf_threshold), num_workers=0)

    model = PoseTCN(4 * N_KP, args.num_glosses)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    meter = evalkit.Meter()
    for epoch in range(args.epochs):
        total, n = 0.0, 0
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["pose"], batch["frame_mask"])
            loss = F.cross_entropy(logits, batch["labels"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            total += loss.item()
            n += 1
            if meter.done():
                break
        print(f"epoch {epoch}: loss {total / max(n, 1):.4f}")
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
