"""Early-fusion motion classifier (frames + frame differences) with motion-guided clip sampling.

    python train.py @clips.args
"""
import argparse
import collections
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from evalkit import Meter
from videodata import CLASSES, MotionClipDataset, collate_clips, make_videos


def get_args():
    p = argparse.ArgumentParser(description="motion clips", fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--videos-per-class", type=int, default=50)
    p.add_argument("--min-frames", type=int, default=100)
    p.add_argument("--max-frames", type=int, default=160)
    p.add_argument("--frame-size", type=int, default=32)
    p.add_argument("--clip-len", type=int, default=12)
    p.add_argument("--stride", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--print-freq", type=int, default=10)
    return p.parse_args()


class SmoothedValue:
    def __init__(self, window=20):
        self.deque = collections.deque(maxlen=window)
        self.total, self.count = 0.0, 0

    def update(self, value, n=1):
        self.deque.append(value)
        self.total += value * n
        self.count += n

    @property
    def avg(self):
        return sum(self.deque) / len(self.deque)

    @property
    def global_avg(self):
        return self.total / self.count


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.meters = collections.defaultdict(SmoothedValue)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            self.meters[k].update(float(v))

    def __str__(self):
        return self.delimiter.join(f"{k}: {m.avg:.4f} ({m.global_avg:.4f})" for k, m in self.meters.items())

    def log_every(self, iterable, print_freq, header=""):
        start = time.time()
        for i, obj in enumerate(iterable):
            yield obj
            if i % print_freq == 0:
                print(f"{header} [{i}/{len(iterable)}] {self} time: {time.time() - start:.1f}s", flush=True)


class FusionNet(nn.Module):
    def __init__(self, in_ch, n_classes, width=24):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_ch, width, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.motion_proj = nn.Linear(in_ch // 2 + 1, 16)
        self.fc = nn.Linear(2 * width + 16, n_classes)

    def forward(self, frames, motion):
        return self.fc(torch.cat([self.features(frames), torch.relu(self.motion_proj(motion))], dim=1))


def train_one_epoch(model, criterion, optimizer, loader, epoch, args, meter, summary):
    model.train()
    logger = MetricLogger()
    for frames, motion, target in logger.log_every(loader, args.print_freq, f"Epoch: [{epoch}]"):
        meter.batch((frames, motion, target))
        output = model(frames, motion / 50.0)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.step(loss)
        acc1 = (output.argmax(1) == target).float().mean() * 100
        logger.update(loss=loss.item(), acc1=acc1.item())
        if meter.done():
            break
    summary.append({"epoch": epoch, "loss": round(logger.meters["loss"].global_avg, 5),
                    "acc1": round(logger.meters["acc1"].global_avg, 3)})


def main():
    args = get_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    videos = make_videos(args.videos_per_class, args.min_frames, args.max_frames, args.frame_size, args.seed)
    dataset = MotionClipDataset(videos, args.clip_len, args.stride, args.seed + 1)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.workers,
                        collate_fn=collate_clips, drop_last=True, generator=torch.Generator().manual_seed(args.seed))
    model = FusionNet(2 * args.clip_len - 1, len(CLASSES))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    meter = Meter()
    summary = []
    for epoch in range(args.epochs):
        train_one_epoch(model, criterion, optimizer, loader, epoch, args, meter, summary)
        if meter.done():
            break
    meter.report(extra={"summary": summary})


if __name__ == "__main__":
    main()
