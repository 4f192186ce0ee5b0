"""Top-down human pose training with per-step PCK / OKS-AP logging.

    python train.py @train_args.txt
"""
import argparse
import random

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from posekit.callbacks import KeypointMetrics
from posekit.data import SyntheticPersons
from posekit.model import TinyHeatmapNet


class Trainer:
    def __init__(self, model, optimizer, callbacks, max_epochs, meter):
        self.model, self.optimizer, self.callbacks = model, optimizer, list(callbacks)
        self.max_epochs, self.meter = max_epochs, meter
        self.logged = {}
        self.global_step = 0

    def log(self, name, value):
        self.logged[name] = value

    def _call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def fit(self, loader):
        self._call("on_train_start")
        for _epoch in range(self.max_epochs):
            for batch in loader:
                self.meter.batch(batch)
                images, target, _kps, vis, _area = batch
                outputs = self.model(images)
                weight = (vis > 0).float()[:, :, None, None]
                loss = (F.mse_loss(outputs, target, reduction="none") * weight).mean() * 100.0
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.meter.step(loss)
                self._call("on_train_batch_end", outputs, batch, self.global_step)
                self.global_step += 1
                if self.meter.done():
                    self._call("on_train_end")
                    return
        self._call("on_train_end")


def main():
    parser = argparse.ArgumentParser(fromfile_prefix_chars="@", description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-samples", type=int, default=512)
    parser.add_argument("--image-size", type=lambda s: tuple(int(v) for v in s.split(",")), default=(64, 48))
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--num-workers", type=int, required=True)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--metric-window", type=int, default=8)
    parser.add_argument("--pck-alpha", type=float, default=0.2)
    args = parser.parse_args()

    torch.set_num_threads(1)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    dataset = SyntheticPersons(args.num_samples, args.image_size, args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers,
                        generator=torch.Generator().manual_seed(args.seed))
    model = TinyHeatmapNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    metrics = KeypointMetrics(args.metric_window, args.pck_alpha, dataset.stride)
    meter = evalkit.Meter()
    trainer = Trainer(model, optimizer, [metrics], args.epochs, meter)
    trainer.fit(loader)
    meter.report({"pck": trainer.logged.get("pck"), "oks_ap": trainer.logged.get("oks_ap"),
                  "ap_history": [h["ap"] for h in metrics.history]})


if __name__ == "__main__":
    main()
