"""Contrastive image-text pretraining with in-batch retrieval metrics."""
import argparse

import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler

from evalkit import Meter
from retrieval import DualEncoder, LossHistory, PairedCaptionDataset, RetrievalMetrics, Trainer


def parse_args():
    p = argparse.ArgumentParser(fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-pairs", type=int, default=4096)
    p.add_argument("--concept-dim", type=int, default=16)
    p.add_argument("--image-dim", type=int, default=96)
    p.add_argument("--vocab-size", type=int, default=2000)
    p.add_argument("--embed-dim", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--temperature", type=float, default=0.07)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--log-every", type=int, default=10)
    return p.parse_args()


def main():
    args = parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    dataset = PairedCaptionDataset(args.num_pairs, args.concept_dim, args.image_dim, args.vocab_size, args.seed)
    # The data is a few in-memory tensors: sample whole batches of indices and gather them at once.
    sampler = BatchSampler(RandomSampler(dataset, generator=torch.Generator().manual_seed(args.seed + 1)),
                           batch_size=args.batch_size, drop_last=True)
    loader = DataLoader(dataset, sampler=sampler, batch_size=None, num_workers=args.num_workers)
    module = DualEncoder(args.image_dim, args.vocab_size, args.embed_dim, args.temperature)
    optimizer = torch.optim.AdamW(module.parameters(), lr=args.lr, weight_decay=0.01)

    meter = Meter()
    metrics = RetrievalMetrics(ks=(1, 5, 10))
    trainer = Trainer(args.epochs, callbacks=[LossHistory(), metrics], log_every=args.log_every, meter=meter)
    trainer.fit(module, loader, optimizer)
    meter.report(metrics.history)


if __name__ == "__main__":
    main()
