"""Optical flow from event-camera voxel grids (EV-FlowNet style, tiny)."""
import argparse

import torch
from torch.utils.data import DataLoader

from evalkit import Meter
from evflow.collate import VoxelGridCollate
from evflow.dataset import EventFlowDataset
from evflow.model import TinyEVFlowNet


def parse_args():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--height", type=int, default=48)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--num-bins", type=int, default=5)
    ap.add_argument("--num-sequences", type=int, default=320)
    ap.add_argument("--min-events", type=int, default=4000)
    ap.add_argument("--max-events", type=int, default=6000)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--flow-stride", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    return ap.parse_args()


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    dataset = EventFlowDataset(args)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        collate_fn=VoxelGridCollate(args.num_bins, args.height, args.width),
                        generator=torch.Generator().manual_seed(args.seed))
    model = TinyEVFlowNet(args.num_bins)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    meter = Meter()
    epe_hist = []
    for epoch in range(args.epochs):
        dataset.epoch = epoch
        for batch in loader:
            meter.batch(batch)
            pred = model(batch["voxel"])
            epe = torch.linalg.vector_norm(pred - batch["flow"], dim=1).mean()
            opt.zero_grad()
            epe.backward()
            opt.step()
            meter.step(epe)
            epe_hist.append(epe.item())
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"epe_first10": sum(epe_hist[:10]) / 10, "epe_last10": sum(epe_hist[-10:]) / 10})


if __name__ == "__main__":
    main()
