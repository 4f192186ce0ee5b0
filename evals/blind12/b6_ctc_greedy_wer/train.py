"""CTC word-piece recogniser: python train.py @train_args.txt"""
import argparse
import random

import numpy as np
import torch
from torch.utils.data import DataLoader

import evalkit
from ctcasr import BucketBatchSampler, ConvCTC, PieceTokenizer, SpeechCollator, SyntheticSpeech, Trainer, build_corpus


def parse_args():
    p = argparse.ArgumentParser(fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-utterances", type=int, default=1000)
    p.add_argument("--vocab-words", type=int, default=200)
    p.add_argument("--min-words", type=int, default=3)
    p.add_argument("--max-words", type=int, default=9)
    p.add_argument("--num-pieces", type=int, default=256)
    p.add_argument("--n-mels", type=int, default=24)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=100)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--hidden", type=int, default=96)
    p.add_argument("--log-every", type=int, default=20)
    p.add_argument("--monitor-size", type=int, default=32)
    return p.parse_args()


def main():
    args = parse_args()
    torch.set_num_threads(1)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    texts = build_corpus(np.random.default_rng(args.seed), args.num_utterances + args.monitor_size,
                         args.vocab_words, args.min_words, args.max_words)
    texts, held_out = texts[:args.num_utterances], texts[args.num_utterances:]
    tokenizer = PieceTokenizer.train(texts, args.num_pieces)
    dataset = SyntheticSpeech(texts, tokenizer, args.n_mels, seed=args.seed + 1)
    monitor = SpeechCollator()(list(SyntheticSpeech(held_out, tokenizer, args.n_mels, seed=args.seed + 3)))
    sampler = BucketBatchSampler([it[0].shape[0] for it in dataset.items], args.batch_size, seed=args.seed + 2)
    loader = DataLoader(dataset, batch_sampler=sampler, collate_fn=SpeechCollator(), num_workers=args.num_workers)
    model = ConvCTC(args.n_mels, args.hidden, len(tokenizer))
    meter = evalkit.Meter()
    summary = Trainer(model, loader, tokenizer, meter, args.lr, args.max_steps, args.log_every, monitor).train()
    meter.report(summary)


if __name__ == "__main__":
    main()
