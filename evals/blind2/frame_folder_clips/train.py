"""TSN-style action recognition on frame folders."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from clip_dataset import FrameFolderClips
from make_clips import ACTIONS, write_clips


class TSN(nn.Module):
    """A 2D frame encoder shared over segments, consensus by averaging."""

    def __init__(self, width, num_classes):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, width, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.temporal = nn.Linear(width * 2, num_classes)

    def forward(self, clips):  # [B, T, C, H, W]
        b, t = clips.shape[:2]
        f = self.encoder(clips.flatten(0, 1)).view(b, t, -1)
        # consensus: mean over segments plus the motion between first and second half
        motion = f[:, t // 2:].mean(1) - f[:, :t // 2].mean(1)
        return self.temporal(torch.cat([f.mean(1), motion], dim=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    cfg = yaml.safe_load(open(ap.parse_args().config))
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    d = cfg["data"]
    write_clips(d["root"], d["clips"], d["min_frames"], d["max_frames"], d["frame_size"], cfg["seed"])

    dataset = FrameFolderClips(d["root"], d["num_segments"], d["frame_size"], cfg["seed"], d["mean"], d["std"])
    loader = DataLoader(dataset, shuffle=True, generator=torch.Generator().manual_seed(cfg["seed"]),
                        drop_last=True, **cfg["loader"])
    model = TSN(cfg["model"]["width"], len(ACTIONS))
    sgd = torch.optim.SGD(model.parameters(), lr=cfg["solver"]["lr"], momentum=cfg["solver"]["momentum"])

    meter = evalkit.Meter()
    top1_by_epoch = []
    stop = False
    for epoch in range(cfg["solver"]["epochs"]):
        dataset.set_epoch(epoch)
        correct = total = 0
        for clips, labels in loader:
            meter.batch((clips, labels))
            out = model(clips)
            loss = F.cross_entropy(out, labels)
            sgd.zero_grad()
            loss.backward()
            sgd.step()
            meter.step(loss)
            correct += (out.argmax(1) == labels).sum().item()
            total += labels.numel()
            if meter.done():
                stop = True
                break
        top1_by_epoch.append(correct / total)
        print(f"epoch {epoch}: top1 {correct / total:.3f} loss {loss.item():.4f}")
        if stop:
            break
    meter.report(extra={"top1_by_epoch": top1_by_epoch})


if __name__ == "__main__":
    main()
