"""Train a tiny segmentation net on rendered shapes, logging per-class IoU and Dice every step.

    python train.py @seg_args.txt
"""
import argparse
import math
import random

import numpy as np
import torch
from torch.utils.data import DataLoader

import evalkit
from seg import MiniTrainer, SegmentationModule, ShapesSegmentation


def parse_args():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--num-images", type=int, default=512)
    ap.add_argument("--image-size", type=int, default=64)
    ap.add_argument("--num-classes", type=int, default=5)
    ap.add_argument("--ignore-index", type=int, default=255)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--max-epochs", type=int, default=1)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--log-every", type=int, default=10)
    return ap.parse_args()


def _json_safe(x):
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, list):
        return [_json_safe(v) for v in x]
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    return x


def main():
    args = parse_args()
    torch.set_num_threads(1)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    ds = ShapesSegmentation(args.num_images, args.image_size, args.ignore_index, args.seed,
                            torch.Generator().manual_seed(args.seed + 1))
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers,
                        drop_last=True, generator=torch.Generator().manual_seed(args.seed + 2))
    module = SegmentationModule(args.num_classes, args.ignore_index, args.width, args.lr)
    meter = evalkit.Meter()
    trainer = MiniTrainer(args.max_epochs, meter, args.log_every)
    trainer.fit(module, loader)
    meter.report(extra=_json_safe({"miou_curve": [m["miou"] for m in module.logged],
                                   "last_step": module.logged[-1] if module.logged else None,
                                   "epochs": module.epoch_summaries}))


if __name__ == "__main__":
    main()
