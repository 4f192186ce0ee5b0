"""Train a frame-level acoustic decoder from phonemes + durations.

    python train.py @args.txt
"""
import argparse
import random

import numpy as np
import torch
from torch.utils.data import DataLoader

import evalkit
from ttsdur.corpus import PAD_ID, PHONEMES, make_corpus
from ttsdur.data import BucketBatchSampler, DurationCollate, UtteranceDataset
from ttsdur.model import FrameDecoder, masked_losses


def parse_args():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--num-utterances", type=int, default=1024)
    ap.add_argument("--min-phonemes", type=int, default=12)
    ap.add_argument("--max-phonemes", type=int, default=40)
    ap.add_argument("--max-duration", type=int, default=12)
    ap.add_argument("--n-mels", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--bucket-size", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--hidden", type=int, default=48)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--num-workers", type=int, default=0)
    return ap.parse_args()


def main():
    args = parse_args()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    items = make_corpus(args.num_utterances, args.min_phonemes, args.max_phonemes,
                        args.max_duration, args.n_mels, args.seed)
    ds = UtteranceDataset(items)
    sampler = BucketBatchSampler([ds.frame_length(i) for i in range(len(ds))], args.batch_size,
                                 args.bucket_size, torch.Generator().manual_seed(args.seed))
    loader = DataLoader(ds, batch_sampler=sampler, collate_fn=DurationCollate(PAD_ID),
                        num_workers=args.num_workers)
    model = FrameDecoder(len(PHONEMES), n_mels=args.n_mels, hidden=args.hidden)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    meter = evalkit.Meter()
    step = 0
    mel_hist = []
    for epoch in range(args.epochs):
        for batch in loader:
            meter.batch(batch)
            mel, log_dur = model(batch)
            mel_loss, dur_loss = masked_losses(mel, log_dur, batch)
            loss = mel_loss + 0.1 * dur_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            mel_hist.append(round(mel_loss.item(), 6))
            if step % args.log_every == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} mel {mel_loss.item():.4f} dur {dur_loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"mel_loss_last10": mel_hist[-10:]})


if __name__ == "__main__":
    main()
